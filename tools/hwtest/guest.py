"""make hwtest's hands inside the VM: press buttons through gpio-sim's line bias, read the
output lines, take the I2C writes i2c-record kept. Run by the agent as root; one JSON answer.

    guest.py press PIN SECONDS [--bounce N] [--glitch]   then drain, as below
    guest.py drain [QUIET]     the I2C writes until none came for QUIET seconds (bounded)
    guest.py sample PIN... SECONDS [--ready FILE]   each output line's share of time high and
                               its edges (FILE made once the first sample is taken)
    guest.py uart unplug|plug TTY    unbind or bind the UART's PCI device from its driver
    guest.py clock             CLOCK_MONOTONIC now (ns)

The I2C log is consumed as it is read, so every command that reads it returns what it read
(base64); the host keeps the whole history and rebuilds the panel from it.
"""

from __future__ import annotations

import base64
import glob
import json
import os
import sys
import time

LOG = "/sys/kernel/debug/i2c-record/log"
DRAIN_LIMIT = 20.0  # a guard: a box that never stops drawing still gets an answer


def line(pin: int, what: str) -> str:
    found = glob.glob(f"/sys/devices/platform/gpio-sim.*/gpiochip*/sim_gpio{pin}/{what}")
    if not found:
        raise SystemExit(f"no gpio-sim line {pin}")
    return found[0]


def pull(fd: int, value: bytes) -> int:
    os.pwrite(fd, value, 0)
    return time.monotonic_ns()


def hold(fd: int, since_ns: int, seconds: float) -> None:
    """Until SECONDS after SINCE_NS: sleeping for long holds, spinning for a glitch's few ms
    (a sleep's wake-up under emulation can take longer than the glitch itself)."""
    end = since_ns + int(seconds * 1e9)
    if seconds > 0.05:
        time.sleep(max(0.0, (end - time.monotonic_ns()) / 1e9))
    while time.monotonic_ns() < end:
        pass


def read_log() -> bytes:
    with open(LOG, "rb", buffering=0) as f:
        chunks = []
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def drain(quiet: float) -> bytes:
    """The writes until QUIET seconds passed without one (at most DRAIN_LIMIT in all)."""
    got = [read_log()]
    end = time.monotonic() + DRAIN_LIMIT
    last = time.monotonic()
    while time.monotonic() < end and time.monotonic() - last < quiet:
        time.sleep(0.02)
        chunk = read_log()
        if chunk:
            got.append(chunk)
            last = time.monotonic()
    return b"".join(got)


def press(pin: int, seconds: float, bounce: int, quiet: float) -> dict:
    fd = os.open(line(pin, "pull"), os.O_WRONLY)
    down, up = b"pull-down", b"pull-up"
    before = read_log()
    edges = []
    try:
        t_before = time.monotonic_ns()  # the kernel stamps the edge inside the write
        t_down = pull(fd, down)
        edges.append(t_down)
        for _ in range(bounce):  # contact bounce: up and down again within a few ms
            hold(fd, edges[-1], 0.0002)
            edges.append(pull(fd, up))
            hold(fd, edges[-1], 0.0002)
            edges.append(pull(fd, down))
        hold(fd, t_before, seconds)  # the whole pulse, its first write included
        t_up = pull(fd, up)
    finally:
        os.close(fd)
    after = drain(quiet)
    return {
        "t_before": t_before,
        "t_down": t_down,
        "t_up": t_up,
        "edges": edges,
        "before": base64.b64encode(before).decode(),
        "log": base64.b64encode(after).decode(),
    }


def sample(pins: list[int], seconds: float, ready: str = "") -> dict:
    """Reads each line's value over and over (gpio-sim has no edge events on outputs): a tone
    of a few hundred Hz is sampled, not resolved, so its edges count but its pitch does not."""
    files = {pin: open(line(pin, "value"), "rb", buffering=0) for pin in pins}  # noqa: SIM115
    high = dict.fromkeys(pins, 0)
    edges = dict.fromkeys(pins, 0)
    last: dict[int, bytes] = {}
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if n == 1 and ready:  # the host waits for it before its stimulus
            open(ready, "w").close()
        n += 1
        for pin, f in files.items():
            f.seek(0)
            value = f.read(1)
            high[pin] += value == b"1"
            if pin in last and last[pin] != value:
                edges[pin] += 1
            last[pin] = value
        time.sleep(0.0005)
    final = {pin: value == b"1" for pin, value in last.items()}
    return {
        "samples": n,
        "duty": {p: high[p] / max(n, 1) for p in pins},
        "edges": edges,
        "last": final,
    }


def uart(action: str, tty: str) -> dict:
    if action == "unplug":
        device = os.path.realpath(f"/sys/class/tty/{tty}/device")
        address = os.path.basename(device)
        driver = os.path.basename(os.path.realpath(f"{device}/driver"))
        with open(f"/sys/bus/pci/drivers/{driver}/unbind", "w") as f:
            f.write(address)
        return {"address": address, "driver": driver}
    address, driver = tty.split("@")  # plug ADDRESS@DRIVER, as unplug answered
    with open(f"/sys/bus/pci/drivers/{driver}/bind", "w") as f:
        f.write(address)
    return {"address": address, "driver": driver}


def main(argv: list[str]) -> dict:
    command, args = argv[0], argv[1:]
    if command == "press":
        bounce = int(args[args.index("--bounce") + 1]) if "--bounce" in args else 0
        quiet = float(args[args.index("--quiet") + 1]) if "--quiet" in args else 1.0
        return press(int(args[0]), float(args[1]), bounce, quiet)
    if command == "drain":
        quiet = float(args[0]) if args else 1.0
        return {"log": base64.b64encode(drain(quiet)).decode(), "t": time.monotonic_ns()}
    if command == "sample":
        ready = ""
        if "--ready" in args:
            at = args.index("--ready")
            ready, args = args[at + 1], args[:at] + args[at + 2 :]
        return sample([int(a) for a in args[:-1]], float(args[-1]), ready)
    if command == "uart":
        return uart(args[0], args[1])
    if command == "clock":
        return {"t": time.monotonic_ns()}
    raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
