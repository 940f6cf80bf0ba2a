#!/bin/sh
# make hwtest's board inside the VM (hwtest-board.service, before the box starts): what a Pi
# has and this virtual machine lacks. Part of the test machine, not of the box.
#  - GPIO: a gpio-sim chip with 54 lines (BCM 0..53), gpiochip0 as on a Pi 4; the test presses
#    a button by pulling its line down (sim_gpioN/pull) and reads outputs from sim_gpioN/value.
#  - I2C: i2c-record as bus 1 with the OLED at 0x3c; i2c-dev for /dev/i2c-1.
#  - UART: the first PCI 16550 is /dev/ttyS0; udev names it /dev/serial0 as on a Pi.
# The modules are loaded by systemd-modules-load (/etc/modules-load.d/hwtest.conf; a minbase
# root has no modprobe).
set -eu
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
sim=/sys/kernel/config/gpio-sim/pi
if [ ! -d "$sim" ]; then
    mkdir "$sim" "$sim/bank0"
    echo 54 >"$sim/bank0/num_lines"
    echo pinctrl-bcm2711 >"$sim/bank0/label" 2>/dev/null || true
    echo 1 >"$sim/live"
fi
ls /dev/gpiochip0 /dev/i2c-1 >/dev/null
