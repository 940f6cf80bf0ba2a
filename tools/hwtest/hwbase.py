"""hwtest's settings and its host: the pins, the guards, the recipe, the host's packages,
commands on the host."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import sysbase  # tools/systest/sysbase.py (hwtest.py puts its folder on the path): Log

HERE = Path(__file__).resolve().parent

RECIPE = HERE / "recipe.toml"

IMAGE = HERE / "image"  # what the image gets besides the root and the kernel (all in the digest)

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 0, 1, 2, 77

# Host packages the tool needs; installed with apt-get when missing (CI runs as root).
HOST_PACKAGES = {
    "aarch64-linux-gnu-gcc-12": "gcc-12-aarch64-linux-gnu",
    "make": "make",
    "dtc": "device-tree-compiler",
    "qemu-img": "qemu-utils",
    "mke2fs": "e2fsprogs",
    "depmod": "kmod",
    "cpio": "cpio",
    "debootstrap": "debootstrap",
    "qemu-aarch64-static": "qemu-user-static",
    "update-binfmts": "binfmt-support",
    # QEMU's virtio NIC ROM: qemu-system-arm only recommends it, and -M virt will not start
    # without it ("failed to find romfile efi-virtio.rom"), even to dump its device tree.
    # Debian's QEMU reads it where ipxe-qemu puts it (/usr/share/qemu has no link to it).
    "/usr/lib/ipxe/qemu/efi-virtio.rom": "ipxe-qemu",
}

# Guards against a hang, never timing assertions: generous, and a check that reaches one fails.
BOOT_GUARD = 300.0

COMMAND_GUARD = 120.0

INSTALL_GUARD = 1500.0

FRAME_GUARD = 60.0

QUIET_GUARD = 15.0  # a differing panel without a write this long is final (a frame: 0.3 s p99)

AGENT_PORT = "hwtest.agent"

VIRTFS = "security_model=none,readonly=on"

SHARE_TAG = "hwtest"

CLONE = "/root/trap-companion"

STATE = "/var/lib/trap-companion"

CONFIG = "/etc/trap-companion/config.toml"

UNIT = "trap-companion.service"

BAUD_RDM6300 = 9600

# Buttons (BCM) and outputs of the config as installed (companion/data/config.example.toml).
BUTTONS = {"up": 5, "down": 6, "ok": 13, "back": 19, "green": 26, "red": 21}

LED = {"red": 17, "green": 27, "blue": 22}

BUZZER = 18

PRESS_SECONDS = 0.1

GLITCH_SECONDS = 0.003

DEBOUNCE_MS = 5.0  # debounce_ms in the config as installed: a glitch must be shorter

GLITCH_VALID_MS = DEBOUNCE_MS - 1.0  # a pulse applied longer is no glitch: applied again

STIMULUS_TRIES = 20  # a try takes 2-5 s; at load 14 eleven in a row were stretched once

STRETCHED_QUIET = 3.0  # s without an I2C write: the box has drawn what a stretched try made

DEBOUNCE_BAND_MS = 1.0  # the simulator's pulse on the side of the debounce the box took

LED_TOLERANCE = 0.1  # a duty cycle estimated from samples of the line

HOLD_SECONDS = 1.5  # hold_seconds is 1.0

GLASS_PRESSES = 32  # down and up in turn on the start menu: each one a frame (issue 46)

BUZZER_SAMPLE_SECONDS = 5.0  # the card's cue (0.28 s) comes well within it

CARD_RDM6300 = "0F00A1B2C3"

CARD_PN532 = "04A1B2C3D4E5F6"

PN532_PORT = "/dev/ttyS1"  # the second PCI UART, wired to the host's FakePn532

REPEATABLE = ("glitch", "bounce")  # checks that leave the box as the simulator expects it

# The steps HWTEST_ONLY can leave out, by the checks they record (install and the frame at start
# always run: the rest stands on them).
ONLY = {
    "buttons": ("buttons",),
    "press_to_glass": ("press to glass",),
    "glitch_and_bounce": ("glitch", "bounce"),
    "cards": ("card rdm6300", "buzzer"),
    "unplug": ("reader unplugged",),
    "panel_gone": ("panel gone",),
    "pn532": ("card pn532",),
    "leds": ("led",),
    "power_cut": ("power cut",),
}

# Where lose-press drops a press: the line of hal/buttons.py that posts an edge (indented 12
# spaces; tests/test_hwtest.py checks it is there once).
LOSE_PRESS_ANCHOR = "post(ButtonEdge(name, pressed, "

FAULTS = {
    "lose-press": "the button layer drops every third press (hal/buttons.py)",
    "wrong-frame": "every frame rendered gets one pixel more (ui/render.py)",
    "miss-card": "the RDM6300 driver never finds a frame's start (hal/readers/rdm6300.py)",
}


class Failed(Exception):
    """A step could not go on (the message says what was seen)."""


def say(text: str) -> None:
    print(text, flush=True)


def load_recipe(text: bytes) -> dict[str, Any]:
    try:
        data = tomllib.loads(text.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{RECIPE}: {err}") from err
    for key in ("kernel_meta", "kernel_packages", "source_files", "machine"):
        if key not in data:
            raise ValueError(f"{RECIPE}: missing {key}")
    return data


def host_problem(euid: int, which: Any, arch: str) -> str | None:
    """Why this machine cannot run hwtest, in one line; None when it can."""
    if arch != "arm64":
        return f"ARCH={arch}: hwtest boots arm64 only (make hwtest ARCH=arm64)"
    if euid != 0:
        return "needs root (apt-get, binfmt_misc, image build): run `sudo make hwtest ARCH=arm64`"
    if which("qemu-system-aarch64") is None:
        return "needs qemu-system-aarch64 (apt-get install qemu-system-arm)"
    return None


def run(cmd: list[str], log: sysbase.Log, timeout: float = 600, **kw: Any) -> str:
    log.write("$ " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    log.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise Failed(f"{cmd[0]} failed (exit {proc.returncode}): {' | '.join(tail)}")
    return proc.stdout


def host_has(tool: str) -> bool:
    """A program on PATH, or a file by its absolute path."""
    return Path(tool).exists() if tool.startswith("/") else shutil.which(tool) is not None


def ensure_host_packages(log: sysbase.Log) -> None:
    missing = sorted({pkg for tool, pkg in HOST_PACKAGES.items() if not host_has(tool)})
    if not missing:
        return
    say(f"hwtest: installing {' '.join(missing)}")
    run(["apt-get", "update", "-qq"], log)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(
        ["nice", "apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
        log,
        env=env,
    )
