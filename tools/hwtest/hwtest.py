#!/usr/bin/env python3
"""`make hwtest ARCH=arm64`: the box through real kernel drivers in a booted arm64 VM.

Debian 12 for arm64 boots under qemu-system-aarch64 (TCG, -M virt -cpu cortex-a72, the Pi 4's
core) from Debian's own kernel, with the pieces a Pi has and the VM lacks: gpio-sim (buttons,
LED and buzzer lines, gpiochip0), i2c-record (bus 1, the OLED at 0x3c: every write kept) and two
PCI 16550 UARTs wired to the host (/dev/serial0 for the RDM6300, /dev/ttyS1 for the PN532, each
driven by the project's fake reader on a host pty). The image is built once per recipe
(recipe.toml) into the cache; each run boots a throw-away overlay on it, so the image never
changes, and installs this checkout with the owner's installer (`make install`, offline from a
wheelhouse). The unit is the one shipped: no drop-in.

Then checks, one PASS or FAIL line each with its figures: the frame at start; the six buttons
pressed and long-pressed through the line bias, each frame read back from the bus and compared
pixel for pixel with what the simulator draws for the same presses; a 3 ms glitch and a
bouncing press (applied again when host load stretched them past what they must prove, the
simulator given each exactly as applied); the LED's colour and the buzzer read back from the
output lines; an RDM6300 card at real baud pacing, shown and in the daemon's log; the reader
unplugged and back; the panel gone and back; the PN532 (config switched to it on /dev/ttyS1,
the box restarted) with a card from the fake PN532; a power cut mid-game and the game resumed
on the next boot; the figures (press to first I2C write, card to panel, READY).

HWTEST_FAULT=lose-press|wrong-frame|miss-card patches the installed copy in the VM to show that
the checks catch such a box (they must FAIL).

HWTEST_REPEAT=glitch,bounce:20 runs the named checks 20 times each in the one boot (one PASS or
FAIL line each: the runs that passed, the tries each took, the figures' spread); HWTEST_ONLY=
glitch,bounce leaves out the checks not named (install and the frame at start always run).

Exit status: 0 every check passed, 1 one failed, 2 bad command line, 77 this machine cannot run
it (one line says why: not root, no qemu-system-aarch64).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# Its parts, and what it takes from systest and pitest, by their plain names (docs/architecture.md)
sys.path.insert(0, str(REPO / "tools" / "systest"))
sys.path.insert(0, str(REPO / "tools" / "pitest"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import archive  # noqa: E402  (tools/systest/archive.py: Debian's lists, versions, choosers)
import piroot  # noqa: E402  (tools/pitest/piroot.py: the cached arm64 root)
import rootfs  # noqa: E402  (tools/systest/rootfs.py: host_arch, checkout_files)
import sysbase  # noqa: E402  (tools/systest/sysbase.py: Log, Skip, NAME, the parsers)
from checks_buttons import pct, step_buttons, step_leds, step_press_to_glass  # noqa: E402
from checks_glitch import parse_only, parse_repeat, step_glitch_and_bounce  # noqa: E402
from checks_power import step_power_cut  # noqa: E402
from checks_readers import step_cards, step_panel_gone, step_pn532, step_unplug  # noqa: E402
from checks_start import step_install, step_start_frame  # noqa: E402
from disk import build_image, cache_dir, wheelhouse  # noqa: E402
from hwbase import (  # noqa: E402
    EXIT_FAIL,
    EXIT_PASS,
    EXIT_SKIP,
    EXIT_USAGE,
    FAULTS,
    ONLY,
    Failed,
    ensure_host_packages,
    host_problem,
    run,
    say,
)
from hwrun import Run  # noqa: E402
from machine import Simulator, Vm  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hwtest", description=__doc__.split("\n")[0])
    parser.add_argument("--arch", default="arm64")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder (frames, logs)")
    args = parser.parse_args(argv)
    problem = host_problem(os.geteuid(), shutil.which, args.arch)
    if problem:
        say(f"hwtest: cannot run here: {problem}")
        return EXIT_SKIP
    fault = os.environ.get("HWTEST_FAULT", "")
    if fault and fault not in FAULTS:
        say(f"hwtest: HWTEST_FAULT={fault}: use one of {', '.join(FAULTS)}")
        return EXIT_USAGE
    try:
        repeat = parse_repeat(os.environ.get("HWTEST_REPEAT", ""))
        only = parse_only(os.environ.get("HWTEST_ONLY", ""))
    except ValueError as err:
        say(f"hwtest: HWTEST_REPEAT/HWTEST_ONLY: {err}")
        return EXIT_USAGE
    cache = cache_dir()
    (cache / "logs").mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    log = sysbase.Log(cache / "logs" / f"{stamp}-hwtest.log")
    say(f"hwtest: log {log.path}")
    started = time.monotonic()
    load = os.getloadavg()[0]
    with contextlib.ExitStack() as stack:
        try:
            ensure_host_packages(log)
            say("hwtest: " + piroot.ensure_emulation("arm64"))
            with (cache / "lock").open("w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # one preparation at a time (apt's lists)
                image, recipe = build_image(cache, log)
                wheels = wheelhouse(cache, recipe, log)
            prepared = time.monotonic() - started
            run_dir = Path(tempfile.mkdtemp(prefix="hwtest-", dir=cache))
            if not args.keep:
                stack.callback(shutil.rmtree, run_dir, ignore_errors=True)
            vm_dir = run_dir / "vm"
            vm_dir.mkdir()
            share = run_dir / "share"
            checkout = share / "checkout"
            for rel in rootfs.checkout_files(REPO):
                target = checkout / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / rel, target)
            shutil.copytree(wheels, share / "wheels")
            (share / "tools").mkdir()
            shutil.copytree(HERE, share / "tools" / "hwtest",
                            ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
            run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
                 str(image.disk), str(vm_dir / "disk.qcow2")], log)  # fmt: skip
            from companion.hal.readers.fake import FakePn532, FakeRdm6300, PtyPort

            rdm = FakeRdm6300(PtyPort())
            pn532 = FakePn532(PtyPort())
            stack.callback(rdm.close)
            stack.callback(pn532.close)
            vm = Vm(image, recipe["machine"], vm_dir, share, [rdm.path, pn532.path], log)
            stack.callback(vm.stop)
            sim_state = run_dir / "sim-state"
            sim_state.mkdir()
            sim = Simulator(sim_state)
            stack.callback(sim.close)
            say(f"hwtest: booting the VM (qemu-system-aarch64, TCG, cortex-a72; load {load:.1f})")
            boot = vm.start()
            say(f"hwtest: the VM's agent answered {boot:.0f} s after QEMU started")
            r = Run(vm, sim, log, fault, rdm, pn532, repeat=repeat)
            r.figures["boot"] = f"{boot:.0f} s"
            install_started = time.monotonic()
            step_install(r, install_started)
            for step in (step_start_frame, step_press_to_glass, step_buttons,
                         step_glitch_and_bounce, step_leds, step_cards, step_unplug,
                         step_panel_gone, step_pn532, step_power_cut):  # fmt: skip
                checks = ONLY.get(step.__name__.removeprefix("step_"), ())
                if only and checks and not only.intersection(checks):
                    continue
                try:
                    step(r)
                except Failed as err:
                    r.record(step.__name__.removeprefix("step_").replace("_", " "), False, str(err))
            lat = r.latencies_ms
            total = time.monotonic() - started
            r.record(
                "figures",
                True,
                f"press (its release) to first I2C write p50 {pct(lat, 50):.0f} ms "
                f"p99 {pct(lat, 99):.0f} ms "
                f"(n={len(lat)}), to its frame complete p50 {pct(r.last_ms, 50):.0f} ms "
                f"p99 {pct(r.last_ms, 99):.0f} ms (n={len(r.last_ms)}); "
                f"card first byte to panel {r.figures.get('card_to_panel')}; "
                f"READY {r.figures.get('ready')} after start; boot {boot:.0f} s; install "
                f"{r.figures.get('install')}; prepare {prepared:.0f} s; whole run {total:.0f} s; "
                f"load average {load:.1f} at start, {os.getloadavg()[0]:.1f} now (TCG)",
            )
            failed = [x for x in r.results if not x.ok]
            say(
                f"hwtest: {'all checks passed' if not failed else f'{len(failed)} check(s) FAILED'}"
            )
            return EXIT_FAIL if failed else EXIT_PASS
        except Failed as err:
            say(f"FAIL hwtest: {err}")
            return EXIT_FAIL
        except sysbase.Skip as err:
            say(f"hwtest: cannot run here: {err}")
            return EXIT_SKIP
        except piroot.NoEmulation as err:
            say(f"hwtest: cannot run here: {err}")
            return EXIT_SKIP
        except archive.Missing as err:
            say(f"hwtest: cannot run here: {err}")
            return EXIT_SKIP


if __name__ == "__main__":
    sys.exit(main())
