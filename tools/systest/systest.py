#!/usr/bin/env python3
"""`make systest`: the box under a real systemd, installed as an owner installs it.

Boots a Debian 12 container with systemd-nspawn, copies this checkout in, runs `sudo make
install` as the owner would (SKIP_APT=1 SKIP_FIRMWARE=1, pin_factory = "mock": a container has
no GPIO and Debian has no python3-lgpio), then checks eight steps, one PASS or FAIL line each:

  1 install     make install succeeds; active (running) through Type=notify, with STATUS
  2 journal     the daemon's lines (level, logger, message) are in journald; no traceback
  3 watchdog    a SIGSTOPped daemon is killed and back within WatchdogSec plus a few seconds;
                a SIGKILLed one is restarted
  4 bad-config  exit 78, no restart loop, the message in `systemctl status`; fixed, it is back
  5 power-cut   a game played into the state dir, the container's init SIGKILLed, booted again:
                the service starts at boot and resumes that game exactly
  6 hardening   the daemon writes only its state dir, has no network, and `systemd-analyze
                security` gives the exposure docs/raspberry-pi.md states
  7 upgrade     make install again keeps config, cards and journal; uninstall stops and
                disables and keeps them; PURGE=1 removes them
  8 update      installed again from a bundle, updated to another one and back by hand; a
                broken release goes back by itself; a power cut after every step of an update
                boots into a release that starts (update_cut.py)
  9 time        the run (the cached root file system aside) within BUDGET_SECONDS

The root file system is built once by debootstrap from recipe.toml and kept in the cache
(SYSTEST_CACHE, else ~/.cache/trap-companion/systest); a change to the recipe's text builds a
new one. Each run boots an overlay on it, so the cache stays clean. Everything the run makes
(the container, the overlay, a tmpfs on /run/systemd/nspawn if that is no tmpfs) is undone at
the end, also when a step fails or on Ctrl-C; nothing else is touched.

Exit status: 0 every step passed, 1 a step failed, 2 bad command line, 77 this machine cannot
run it (not root, or no systemd-nspawn): one line says why.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import sysbase  # noqa: E402
from container import Container, failure_tail, furnish, newer_qemu_for, prepare, services_start  # noqa: E402
from rootfs import (  # noqa: E402
    SUITES,
    Recipe,
    cache_dir,
    cache_for,
    checkout_files,
    describe,
    fs_type,
    host_arch,
    host_pip,
    host_problem,
    load_recipe,
    nspawn_tmpfs,
    one_run_at_a_time,
    overlay,
    pip_conf,
    pip_paths,
    pip_settings,
    recipe_digest,
    root_failure,
    root_fs,
    with_suite,
)
from steps_owner import OwnerSteps  # noqa: E402
from steps_power import PowerSteps  # noqa: E402
from steps_service import ServiceSteps  # noqa: E402
from sysbase import (  # noqa: E402
    BUDGET_SECONDS,
    CA_BUNDLE,
    CLONE,
    EMULATED_BUDGET_SECONDS,
    EMULATED_PACE,
    EMULATION_DROPIN,
    EXIT_FAIL,
    EXIT_PASS,
    EXIT_SKIP,
    EXIT_USAGE,
    INSTALL,
    NAME,
    NSPAWN_RUN,
    OWNER,
    PATH,
    RECIPE,
    REPO,
    Log,
    Skip,
    StepFailed,
    analyze_exposure,
    bad_log_lines,
    docs_exposure,
    last_resumed,
    parse_show,
    parse_timespan,
    say,
)

# What pitest, piroot, tools/bundle and the tests take from here (systest.X), besides the steps.
__all__ = [
    "CA_BUNDLE",
    "CLONE",
    "EMULATION_DROPIN",
    "EXIT_SKIP",
    "INSTALL",
    "NAME",
    "NSPAWN_RUN",
    "OWNER",
    "PATH",
    "RECIPE",
    "STEPS",
    "SUITES",
    "Container",
    "Log",
    "Recipe",
    "Skip",
    "StepFailed",
    "Systest",
    "analyze_exposure",
    "bad_log_lines",
    "cache_dir",
    "cache_for",
    "checkout_files",
    "describe",
    "docs_exposure",
    "failure_tail",
    "fs_type",
    "furnish",
    "host_arch",
    "host_pip",
    "host_problem",
    "last_resumed",
    "load_recipe",
    "main",
    "newer_qemu_for",
    "nspawn_tmpfs",
    "one_run_at_a_time",
    "overlay",
    "parse_show",
    "parse_timespan",
    "pip_conf",
    "pip_paths",
    "pip_settings",
    "prepare",
    "recipe_digest",
    "root_failure",
    "root_fs",
    "run_steps",
    "terminate_as_interrupt",
    "with_suite",
]


class Systest(ServiceSteps, PowerSteps, OwnerSteps):
    """The steps, in STEPS' order (each a method of its family)."""


STEPS: list[tuple[str, str]] = [
    ("install", "step_install"),
    ("journal", "step_journal"),
    ("watchdog", "step_watchdog"),
    ("bad-config", "step_bad_config"),
    ("power-cut", "step_power_cut"),
    ("hardening", "step_hardening"),
    ("owner", "step_owner"),
    ("upgrade", "step_upgrade"),
    ("update", "step_update"),
]


def run_steps(
    suite: Systest, started: float, budget: float = BUDGET_SECONDS, only: set[str] | None = None
) -> list[str]:
    failed: list[str] = []
    for number, (name, method) in enumerate(STEPS, 1):
        if only and number > 1 and name not in only:
            continue
        if failed and failed[0] == "1":
            say(f"FAIL {number} {name}: not run: nothing is installed (step 1 failed)")
            failed.append(str(number))
            continue
        try:
            said = getattr(suite, method)()
        except StepFailed as err:
            say(f"FAIL {number} {name}: {err}")
            failed.append(str(number))
        except Exception as err:  # a bug here, or an answer it did not expect: go on
            suite.log.write(traceback.format_exc())
            say(f"FAIL {number} {name}: the systest itself failed: {type(err).__name__}: {err}")
            failed.append(str(number))
        else:
            say(f"PASS {number} {name}: {said}")
    took, last = time.monotonic() - started, len(STEPS) + 1
    if took > budget:
        say(f"FAIL {last} time: the run took {took:.0f} s, over the {budget:.0f} s budget")
        failed.append(str(last))
    else:
        say(f"PASS {last} time: the run took {took:.0f} s (budget {budget:.0f} s)")
    return failed


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP end the run like Ctrl-C: through the clean-up."""

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="systest",
        description="Install the box in a booted Debian container and check it under systemd.",
    )
    parser.add_argument("--rebuild", action="store_true", help="build the root file system again")
    parser.add_argument(
        "--arch", choices=sorted(EMULATED_BUDGET_SECONDS), help="on the Pi's CPU, under QEMU"
    )
    parser.add_argument(
        "--only",
        metavar="STEP[,STEP]",
        help="install, then only these steps (e.g. update); for working on one step",
    )
    parser.add_argument(
        "--suite",
        choices=sorted(SUITES),
        help="the Debian release (default: the recipe's, bookworm)",
    )
    args = parser.parse_args(argv)

    problem = host_problem(os.geteuid(), shutil.which)
    if problem:
        say(f"systest: skipped: {problem}")
        return EXIT_SKIP
    try:
        default = load_recipe(RECIPE.read_bytes(), str(RECIPE)).suite
        recipe = load_recipe(RECIPE.read_bytes(), str(RECIPE), args.suite)
    except (OSError, ValueError) as err:
        say(f"systest: {err}")
        return EXIT_USAGE
    cache = cache_for(cache_dir(dict(os.environ)), recipe.suite, default)
    sysbase.BUNDLE_PYTHON = SUITES[recipe.suite][1]
    budget, pace = BUDGET_SECONDS, 1.0
    if args.arch:
        sys.path.insert(0, str(REPO / "tools" / "pitest"))
        sys.modules.setdefault("systest", sys.modules[__name__])
        import piroot  # the emulated root and QEMU's registration, shared with make pitest

        try:
            say(f"systest: {args.arch}: {piroot.ensure_emulation(args.arch)}")
            recipe = piroot.load(args.arch, args.suite)
        except piroot.NoEmulation as err:
            say(f"systest: skipped: {err}")
            return EXIT_SKIP
        except (OSError, ValueError) as err:
            say(f"systest: {err}")
            return EXIT_USAGE
        cache = piroot.cache_dir(dict(os.environ), args.arch, args.suite)
        budget, pace = EMULATED_BUDGET_SECONDS[args.arch], EMULATED_PACE
    (cache / "logs").mkdir(parents=True, exist_ok=True)
    name = f"trap-systest-{args.arch + '-' if args.arch else ''}{os.getpid()}"
    log = Log(cache / "logs" / f"{time.strftime('%Y%m%d-%H%M%S')}-{name}.log")
    for pattern in ("*.log", "*.console"):
        for old in sorted((cache / "logs").glob(pattern), key=lambda p: p.stat().st_mtime)[:-10]:
            old.unlink()
    say(f"systest: {describe(recipe)}; log {log.path}")

    failed: list[str] = []
    with terminate_as_interrupt(), contextlib.ExitStack() as stack:
        try:
            root = root_fs(cache, recipe, log, args.rebuild)
            one_run_at_a_time(stack)
            started = time.monotonic()
            nspawn_tmpfs(stack, log)
            run_dir = cache / "runs" / name
            merged = overlay(stack, log, root, run_dir)
            pip_conf_text, pip_files = host_pip(log)
            binds = [p for p in pip_files if Path(p).is_dir()]
            furnish(merged, pip_conf_text, pip_files, emulated=bool(args.arch))
            if args.arch:  # Debian 13's systemd needs a newer QEMU than Debian 12's
                say(
                    f"systest: {args.arch}: {newer_qemu_for(stack, merged, args.arch, recipe, log)}"
                )
            box = Container(
                merged, name, log, cache / "logs" / f"{name}.console", binds,
                pace=pace, emulated=args.arch or "",
            )  # fmt: skip
            stack.callback(box.stop)
            booted = box.boot()
            say(f"systest: container {name} booted in {booted:.1f} s")
            if args.arch:
                services_start(box)
            prepare(box, merged)
            only = set(args.only.split(",")) if args.only else None
            failed = run_steps(Systest(box, log), started, budget, only)
        except Skip as err:
            say(f"systest: skipped: {err}")
            return EXIT_SKIP
        except StepFailed as err:
            say(f"FAIL setup: {err}")
            failed = ["setup"]
        except KeyboardInterrupt:
            say("systest: interrupted; cleaning up")
            failed = ["interrupted"]
    if failed:
        say(f"systest: FAILED ({', '.join(failed)}); every command and its output: {log.path}")
        return EXIT_FAIL
    say("systest: all steps passed")
    return EXIT_PASS


if __name__ == "__main__":
    sys.exit(main())
