#!/usr/bin/env python3
"""`make pitest ARCH=arm64|armhf`: the box installed and its tests run on the Pi's CPU, emulated.

Boots the cached Debian 12 root for the architecture (SUITE=trixie: Debian 13's, Python 3.13;
tools/pitest/piroot.py: debootstrap, QEMU through binfmt_misc) as a container, copies this
checkout into the owner's home and installs the box the way docs/raspberry-pi.md tells an owner
(`sudo make install`, with SKIP_APT=1 SKIP_FIRMWARE=1 NO_START=1: Debian has no python3-lgpio,
so the lgpio wheel from PyPI goes into the venv, as pyproject's `pi` extra says; a container has
no boot partition, and nothing to start the daemon for). Then the test suite runs inside, in the
venv `make test` makes, while the same tests run natively here at the same time; the report says
which ran, which failed, and each test whose outcome differs from x86_64, with the reason.

--ci runs the part CI runs (hardware layer, daemon, journal, every replay script: CI_TESTS);
without it the whole suite runs (about half an hour to an hour under emulation).

A failure the emulation alone causes is listed in tools/pitest/emulation.toml with why (and in
docs/raspberry-pi.md); any other test that passes natively and fails emulated fails the run.

Exit status: 0 passed, 1 a test failed that passes natively (or the install failed), 2 bad
command line, 77 this machine cannot emulate the Pi (one line says why).
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import piroot  # noqa: E402
from piroot import systest  # noqa: E402

REPO = piroot.REPO
KNOWN = HERE / "emulation.toml"
EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 0, 1, 2, 77
INSTALL = "sudo make install SKIP_APT=1 SKIP_FIRMWARE=1 NO_START=1"
VENV = f"/opt/{systest.NAME}/current/venv"  # the release `current` names (issue 34)
PIP_CACHE = "/root/.cache/pip"  # kept between runs in the host's cache (downloads, built wheels)
RESULTS = "/var/tmp/pitest"  # inside (not /tmp: a tmpfs there, out of the host's sight)

# The part CI runs under emulation: the hardware layer, the daemon, the journal and every
# replay script (tests/scripts, the games' replays). test_power_cut.py (hundreds of replay
# processes, 400 s of the 1043 s this part took under load) is left to the full run.
CI_TESTS = (
    "tests/test_buttons.py",
    "tests/test_display.py",
    "tests/test_lights_sound.py",
    "tests/test_reader_*.py",
    "tests/test_daemon.py",
    "tests/test_signals.py",
    "tests/test_notify.py",
    "tests/test_journal.py",
    "tests/test_replay.py",
    "tests/test_*_replay.py",
)


# --- pure parts (tests/test_pitest.py) -------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    status: str  # passed, failed, skipped
    message: str = ""
    seconds: float = 0.0


def junit_outcomes(xml: str) -> dict[str, Outcome]:
    """pytest's --junitxml as test id -> outcome (an error counts as failed)."""
    outcomes: dict[str, Outcome] = {}
    for case in ET.fromstring(xml).iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        test_id = f"{classname}::{name}" if classname else name
        status, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                status = "failed"
                message = (child.get("message") or child.text or "").strip()
                break
            if child.tag == "skipped":
                status, message = "skipped", (child.get("message") or "").strip()
        outcomes[test_id] = Outcome(
            status, message.splitlines()[0] if message else "", float(case.get("time") or 0)
        )
    return outcomes


def counts(outcomes: dict[str, Outcome]) -> dict[str, int]:
    found = {"passed": 0, "failed": 0, "skipped": 0}
    for outcome in outcomes.values():
        found[outcome.status] += 1
    return found


def load_known(text: str, where: str = "emulation.toml") -> dict[str, str]:
    """Test id patterns -> why the emulation alone makes them fail."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{where}: {err}") from err
    known = data.get("known", {})
    if not isinstance(known, dict) or not all(isinstance(v, str) for v in known.values()):
        raise ValueError(f"{where}: [known] maps test id patterns to reasons")
    return known


def why_known(test_id: str, known: dict[str, str]) -> str | None:
    for pattern, reason in known.items():
        if fnmatch.fnmatch(test_id, pattern):
            return reason
    return None


@dataclass(frozen=True)
class Difference:
    test_id: str
    native: str
    emulated: str
    why: str
    box: bool  # True: a failure of the box's own (passes natively, fails emulated, not known)


def differences(
    native: dict[str, Outcome], emulated: dict[str, Outcome], known: dict[str, str]
) -> list[Difference]:
    """Each test whose outcome differs between here and the emulated run, with the reason."""
    found = []
    for test_id in sorted(set(native) | set(emulated)):
        here, there = native.get(test_id), emulated.get(test_id)
        a = here.status if here else "not run"
        b = there.status if there else "not run"
        if a == b:
            continue
        reason = why_known(test_id, known)
        box = False
        if reason is None:
            if there and there.status != "passed" and there.message:
                reason = there.message
            elif here and here.status == "skipped":
                reason = f"skipped here: {here.message}"
            else:
                reason = "no reason given"
            box = b == "failed" and a == "passed"
        found.append(Difference(test_id, a, b, reason, box))
    return found


def report(
    arch: str,
    native: dict[str, Outcome],
    emulated: dict[str, Outcome],
    diffs: list[Difference],
    times: dict[str, float],
) -> str:
    """The run in words: a Markdown page (also what the terminal shows, less the lists)."""
    n, e = counts(native), counts(emulated)
    lines = [
        f"# pitest {arch}: the box's tests under the emulated CPU beside {platform.machine()}",
        "",
        "| | " + platform.machine() + f" (native) | {arch} (QEMU) |",
        "|---|---|---|",
        *(f"| {k} | {n[k]} | {e[k]} |" for k in ("passed", "failed", "skipped")),
        f"| seconds | {times.get('native', 0):.0f} | {times.get('tests', 0):.0f} |",
        "",
        f"Install (`{INSTALL}`): {times.get('install', 0):.0f} s; the test venv "
        f"(`make test`'s): {times.get('venv', 0):.0f} s.",
        "",
        "## Tests whose outcome differs from the native run",
        "",
    ]
    if not diffs:
        lines.append("None.")
    for diff in diffs:
        mark = "**the box's own** " if diff.box else ""
        lines.append(
            f"- {mark}`{diff.test_id}`: {diff.native} natively, {diff.emulated} on {arch}: "
            f"{diff.why}"
        )
    failed = [t for t, o in emulated.items() if o.status == "failed"]
    lines += ["", f"## Failed on {arch}", ""]
    lines += [f"- `{t}`: {emulated[t].message}" for t in sorted(failed)] or ["None."]
    return "\n".join(lines) + "\n"


def selection(ci: bool, repo: Path = REPO) -> list[str]:
    """The test files to run: CI's part or everything."""
    if not ci:
        return ["tests"]
    files: list[str] = []
    for pattern in CI_TESTS:
        for path in sorted(repo.glob(pattern)):
            name = str(path.relative_to(repo))
            if name not in files:
                files.append(name)
    return files


# --- the run ---------------------------------------------------------------------------------


def say(text: str) -> None:
    print(text, flush=True)


def file_seconds(junit_text: str) -> dict[str, float]:
    """Seconds per test file in a junit report ("tests.test_x" -> "tests/test_x.py")."""
    seconds: dict[str, float] = {}
    for case in ET.fromstring(junit_text).iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        if len(parts) < 2 or parts[0] != "tests":
            continue
        name = f"tests/{parts[1]}.py"
        seconds[name] = seconds.get(name, 0.0) + float(case.get("time") or 0.0)
    return seconds


def shard(files: list[str], k: int, n: int, seconds: dict[str, float]) -> list[str]:
    """Part K of N of the test files, the parts about equal in time: the longest file first into
    the part with the least so far (seconds from an earlier native run; a file never timed
    counts as the mean). Every file is in exactly one part, and the same inputs give the same
    parts, so N runs with K = 1..N run the whole suite once."""
    mean = sum(seconds.values()) / len(seconds) if seconds else 1.0
    weight = {f: seconds.get(f, mean) for f in files}
    parts: list[list[str]] = [[] for _ in range(n)]
    totals = [0.0] * n
    for f in sorted(files, key=lambda f: (-weight[f], f)):
        least = min(range(n), key=lambda i: (totals[i], i))
        parts[least].append(f)
        totals[least] += weight[f]
    return sorted(parts[k - 1])


def shard_selection(k: int, n: int, logs: Path, repo: Path = REPO) -> list[str]:
    """Part K of N of the whole suite's files, timed by the newest native report in LOGS."""
    files = sorted(str(p.relative_to(repo)) for p in (repo / "tests").glob("test_*.py"))
    reports = sorted(logs.glob("*-native.xml"), key=lambda p: p.stat().st_mtime)
    seconds: dict[str, float] = {}
    if reports:
        with contextlib.suppress(ET.ParseError, OSError):
            seconds = file_seconds(reports[-1].read_text())
    return shard(files, k, n, seconds)


def pytest_args(files: list[str], junit: str) -> list[str]:
    return ["-p", "no:randomly", "-p", "no:cacheprovider", "-q", f"--junitxml={junit}", *files]


def native_run(files: list[str], junit: Path, out: Path) -> subprocess.Popen[bytes] | None:
    """The same tests natively, beside the emulated run (in this checkout's venv)."""
    python = REPO / ".venv" / "bin" / "python"
    if not python.exists():
        return None
    with out.open("w") as sink:
        return subprocess.Popen(
            [str(python), "-m", "pytest", *pytest_args(files, str(junit))],
            cwd=REPO,
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )


def inside(box: systest.Container, script: str, timeout: float, what: str) -> float:
    """Run SCRIPT in the container as root; its seconds, or StepFailed saying WHAT failed."""
    started = time.monotonic()
    proc = box.sh(script, timeout=timeout)
    if proc.returncode != 0:
        raise systest.StepFailed(
            f"{what} exited {proc.returncode}: {systest.failure_tail(proc, 6)}"
        )
    return time.monotonic() - started


def install(box: systest.Container, test_venv: bool = True) -> dict[str, float]:
    """The owner's install, lgpio's wheel, and the venv `make test` makes; their seconds."""
    clone = systest.CLONE
    times = {}
    started = time.monotonic()
    proc = box.sh(f"cd {clone} && {INSTALL}", user=systest.OWNER, timeout=3600)
    times["install"] = time.monotonic() - started
    if proc.returncode != 0:
        raise systest.StepFailed(
            f"`{INSTALL}` exited {proc.returncode}: " + (systest.failure_tail(proc, 6))
        )
    say(f"pitest: {INSTALL}: {times['install']:.0f} s")
    # pyproject's spec: a bare `lgpio` takes PyPI's 0.0.0.2, an empty lgpio.py, where no wheel
    # of the real one exists (Python 3.13: a Pi takes python3-lgpio from Raspberry Pi OS's
    # archive, which Debian 13 has not).
    wheel = box.sh(
        f"{VENV}/bin/python -m pip download --quiet --no-deps --only-binary=:all: "
        f"--dest /var/tmp/lgpio 'lgpio>=0.2'"
    )
    libraries = "gpiozero, luma.oled, PIL, serial, aiohttp"
    if wheel.returncode == 0:
        install, libraries = (
            f"{VENV}/bin/python -m pip install --quiet 'lgpio>=0.2' && ",
            f"lgpio, {libraries}",
        )
    else:
        install = ""
        say(
            "pitest: PyPI has no lgpio wheel for this Python (on a Pi: python3-lgpio from "
            "Raspberry Pi OS's archive); the venv without it"
        )
    times["lgpio"] = inside(
        box,
        f"{install}{VENV}/bin/python -c 'import {libraries}'",
        1800,
        "lgpio's wheel (pyproject's pi extra) in the venv",
    )
    machine = box.sh(f"{VENV}/bin/python -c 'import platform; print(platform.machine())'")
    say(
        f"pitest: {'lgpio from PyPI, ' if install else ''}the venv's libraries import in {VENV}: "
        f"{times['lgpio']:.0f} s; "
        f"the venv's Python runs as {machine.stdout.strip()}"
    )
    if not test_venv:
        return times
    # make test's venv (as root here, so the pip cache of both installs is the same one).
    times["venv"] = inside(box, f"cd {clone} && make .venv/.installed", 3600, "make test's venv")
    say(f"pitest: make test's venv (.venv, dev extras): {times['venv']:.0f} s")
    return times


def run(
    arch: str,
    ci: bool,
    rebuild: bool,
    bench: bool = False,
    alone: bool = False,
    suite: str | None = None,
    part: tuple[int, int] | None = None,
    tests: list[str] | None = None,
    records: bool = False,
) -> int:
    problem = systest.host_problem(os.geteuid(), shutil.which)
    if problem:
        say(f"pitest: skipped: {problem}")
        return EXIT_SKIP
    try:
        said = piroot.ensure_emulation(arch)
    except piroot.NoEmulation as err:
        say(f"pitest: skipped: {err}")
        return EXIT_SKIP
    try:
        known = load_known(KNOWN.read_text(), str(KNOWN))
    except (OSError, ValueError) as err:
        say(f"pitest: {err}")
        return EXIT_USAGE
    cache = piroot.cache_dir(dict(os.environ), arch, suite)
    logs = cache / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    name = f"trap-pitest-{arch}-{os.getpid()}"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    log = systest.Log(logs / f"{stamp}-{name}.log")
    for pattern in ("*.log", "*.console", "*.md", "*.xml", "*.out"):
        for old in sorted(logs.glob(pattern), key=lambda p: p.stat().st_mtime)[:-12]:
            old.unlink()
    say(f"pitest: {arch}, {systest.describe(piroot.load(arch, suite))}: {said}; log {log.path}")
    if tests:
        files = tests
    elif part:
        files = shard_selection(*part, logs)
        say(f"pitest: part {part[0]} of {part[1]}: {len(files)} test files")
    else:
        files = selection(ci)
    with systest.terminate_as_interrupt(), contextlib.ExitStack() as stack:
        try:
            root = piroot.root(arch, log, rebuild, suite)
            if systest.fs_type(systest.NSPAWN_RUN) != "tmpfs":
                systest.one_run_at_a_time(stack)
                systest.nspawn_tmpfs(stack, log)
            merged = systest.overlay(stack, log, root, cache / "runs" / name)
            pip_conf_text, pip_files = systest.host_pip(log)
            systest.furnish(merged, pip_conf_text, pip_files)
            pip_cache = cache / "pip"
            pip_cache.mkdir(exist_ok=True)
            binds = [p for p in pip_files if Path(p).is_dir()]
            box = systest.Container(
                merged, name, log, logs / f"{name}.console", binds, [f"{pip_cache}:{PIP_CACHE}"]
            )
            stack.callback(box.stop)
            started = time.monotonic()
            booted = box.boot()
            say(f"pitest: {arch} container booted in {booted:.1f} s")
            systest.prepare(box, merged)
            # The tests run as root from the owner's checkout, and one takes root's DAC override
            # away (tests/test_storage_refused.py): Debian 13 makes a home 0700 (login.defs'
            # HOME_MODE), Debian 12 0755, as the tests expect.
            box.sh(f"chmod 0755 /home/{systest.OWNER}")
            times = install(box, test_venv=not bench)
            times["boot"] = booted
            if bench:
                out = logs / f"{stamp}-{arch}-bench.json"
                return (
                    pi_bench(box, arch, out, alone)
                    if not records
                    else records_bench(box, arch, out)
                )
            native_junit, native_out = logs / f"{stamp}-native.xml", logs / f"{stamp}-native.out"
            native = native_run(files, native_junit, native_out)
            say(
                f"pitest: running {' '.join(files)} on {arch}"
                + ("" if native else " (no native reference: no .venv here; `make` builds it)")
            )
            tests_started = time.monotonic()
            box.sh(f"mkdir -p {RESULTS}")
            args = " ".join(pytest_args(files, f"{RESULTS}/junit.xml"))
            box.sh(
                f"cd {systest.CLONE} && .venv/bin/python -m pytest {args} > {RESULTS}/out 2>&1",
                timeout=3 * 3600,
            )
            times["tests"] = time.monotonic() - tests_started
            emulated_dir = merged / RESULTS.lstrip("/")
            shutil.copyfile(emulated_dir / "out", logs / f"{stamp}-{arch}.out")
            junit = emulated_dir / "junit.xml"
            if not junit.exists():
                raise systest.StepFailed(
                    f"pytest wrote no results; its output: {logs / f'{stamp}-{arch}.out'}"
                )
            shutil.copyfile(junit, logs / f"{stamp}-{arch}.xml")
            emulated = junit_outcomes(junit.read_text())
            native_outcomes: dict[str, Outcome] = {}
            if native is not None:
                native_started = time.monotonic()
                native.wait()
                times["native"] = time.monotonic() - native_started  # its remainder only
                if native_junit.exists():
                    native_outcomes = junit_outcomes(native_junit.read_text())
                    times["native"] = sum(o.seconds for o in native_outcomes.values())
            times["total"] = time.monotonic() - started
        except systest.Skip as err:
            say(f"pitest: skipped: {err}")
            return EXIT_SKIP
        except systest.StepFailed as err:
            say(f"pitest: FAIL: {err}")
            say(f"pitest: every command and its output: {log.path}")
            return EXIT_FAIL
        except KeyboardInterrupt:
            say("pitest: interrupted; cleaning up")
            return EXIT_FAIL
    diffs = differences(native_outcomes, emulated, known) if native_outcomes else []
    page = report(arch, native_outcomes, emulated, diffs, times)
    report_path = logs / f"{stamp}-{arch}-report.md"
    report_path.write_text(page)
    e = counts(emulated)
    say(
        f"pitest: {arch}: {len(emulated)} tests ran in {times['tests']:.0f} s: {e['passed']} "
        f"passed, {e['failed']} failed, {e['skipped']} skipped"
    )
    if native_outcomes:
        n = counts(native_outcomes)
        say(
            f"pitest: {platform.machine()} (same tests, same minutes): {n['passed']} passed, "
            f"{n['failed']} failed, {n['skipped']} skipped in {times['native']:.0f} s of tests"
        )
    for diff in diffs:
        mark = "BOX " if diff.box else ""
        say(
            f"pitest: {mark}differs: {diff.test_id}: {diff.native} natively, {diff.emulated} "
            f"on {arch}: {diff.why}"
        )
    # Every failure counts that the emulation alone does not explain (natively failing too:
    # the box's own as well).
    own = [t for t, o in emulated.items() if o.status == "failed" and not why_known(t, known)]
    say(f"pitest: report {report_path}; the whole run {times['total']:.0f} s")
    if own:
        say(f"pitest: FAILED: {len(own)} test(s) fail on {arch} and not for the emulation alone")
        return EXIT_FAIL
    say(f"pitest: {arch}: passed")
    return EXIT_PASS


# The figures of `trap-companion bench --pi-class` the table shows, and how each reads.
BENCH_ROWS = (
    ("python_loop_seconds", "plain Python loop, s"),
    ("bare_import_seconds", "bare import of the libraries, s"),
    ("ready_seconds", "start to READY=1, s"),
    ("ready_per_bare_import", "READY=1 / bare import"),
    ("bare_import_cpu_seconds", "bare import, CPU s"),
    ("ready_cpu_seconds", "start to READY=1, CPU s"),
    ("ready_per_bare_import_cpu", "READY=1 / bare import, CPU"),
    ("stop_seconds", "SIGTERM to exit, s"),
    ("peak_rss_mb", "peak memory, MB"),
    ("button_p50_ms", "button to frame p50, ms"),
    ("button_p99_ms", "button to frame p99, ms"),
    ("button_loop_cpu_ms", "button press, the loop's CPU, ms"),
    ("button_process_cpu_ms", "button press, the process's CPU, ms"),
    ("button_repress_p50_ms", "re-press in the window to frame p50, ms"),
    ("button_repress_p99_ms", "re-press in the window to frame p99, ms"),
    ("frame_whole_ms", "a frame drawn whole, ms"),
    ("frame_partial_ms", "a frame drawn from the one before, ms"),
    ("frame_send_whole_ms", "a frame to the panel, whole (luma), the loop's ms"),
    ("frame_send_window_ms", "a frame to the panel, window, written there, ms"),
    ("frame_handoff_ms", "a frame handed to the writer thread, the loop's ms"),
    ("card_p50_ms", "card to frame p50, ms"),
    ("card_p99_ms", "card to frame p99, ms"),
    ("web_press_p50_ms", "HTTP press to event p50, ms"),
    ("web_press_p99_ms", "HTTP press to event p99, ms"),
    ("web_press_loop_cpu_ms", "HTTP press, the loop's CPU, ms"),
    ("web_press_process_cpu_ms", "HTTP press, the process's CPU (server, client), ms"),
    ("replay_seconds", "replay of a 30-roll dice game, s"),
    ("load_average", "load average (1, 5, 15 min) at the end"),
)
# A game of any length (issue 31 point 2): the start and a press at both ends, and their ratios.
GAME_LENGTH_ROWS = (
    ("ready_seconds_game_1000", "start, a 1,000-step game, s"),
    ("ready_seconds_game_100000", "start, a 100,000-step game, s"),
    ("ready_ratio_game_long_to_short", "start, 100,000 steps / 1,000"),
    ("peak_rss_more_mb_game_long", "peak memory, 100,000 steps - 1,000, MB"),
    ("press_cpu_ms_step_10", "press CPU at step 10 (phones on), ms"),
    ("press_cpu_ms_step_100000", "press CPU at step 100,000 (phones on), ms"),
    ("press_cpu_ratio_long_to_short", "press CPU, step 100,000 / step 10"),
)

# The box's own press under the phones' floods, the server apart (issue 33 point 6).
FLOOD_ROWS = (
    ("own_press_quiet_p50_ms", "own press to frame, quiet, p50 ms"),
    ("own_press_quiet_p99_ms", "own press to frame, quiet, p99 ms"),
    ("own_press_json_bomb_p99_ms", "own press, JSON-bomb flood, p99 ms"),
    ("own_press_json_bomb_ratio_p99", "own press, JSON bomb / quiet, p99"),
    ("own_press_slow_read_p99_ms", "own press, slow readers, p99 ms"),
    ("own_press_slow_read_ratio_p99", "own press, slow readers / quiet, p99"),
    ("own_press_press_p99_ms", "own press, a phone's press flood, p99 ms"),
    ("own_press_press_ratio_p99", "own press, press flood / quiet, p99"),
    ("own_press_floods_error", "floods: what went wrong (if anything)"),
)


def bench_table(arch: str, native: dict[str, Any], emulated: dict[str, Any]) -> list[str]:
    """Native and emulated side by side, with the ratio; the loop's ratio is the slowdown."""
    here = platform.machine()
    lines = [f"| figure | {here} | {arch} (QEMU) | ratio |", "|---|---|---|---|"]
    for key, label in (*BENCH_ROWS, *GAME_LENGTH_ROWS, *FLOOD_ROWS):
        a, b = native.get(key), emulated.get(key)
        ratio = (
            f"{b / a:.1f}x"
            if isinstance(a, int | float) and a and isinstance(b, int | float)
            else "-"
        )
        lines.append(f"| {label} | {a} | {b} | {ratio} |")
    return lines


def budget_verdict(emulated: dict[str, Any], unit_text: str) -> list[str]:
    """The unit's start and watchdog limits against the emulated (Pi Zero 2 class) figures."""
    start, watchdog = (_unit_seconds(unit_text, key) for key in ("TimeoutStartSec", "WatchdogSec"))
    ready = float(emulated.get("ready_seconds", 0))
    worst = max(float(emulated.get("button_p99_ms", 0)), float(emulated.get("card_p99_ms", 0)))
    return [
        f"start: READY=1 after {ready:.1f} s emulated; TimeoutStartSec={start:.0f} s is "
        f"{start / ready:.0f} times that"
        if ready
        else "start: no figure",
        f"watchdog: the slowest press or card took {worst:.0f} ms emulated; WatchdogSec="
        f"{watchdog:.0f} s is {watchdog * 1000 / worst:.0f} times that"
        if worst
        else "watchdog: no figure",
    ]


def _unit_seconds(text: str, key: str) -> float:
    """A time setting of a unit file in seconds (a bare number is seconds, as systemd reads it)."""
    for line in text.splitlines():
        if line.startswith(f"{key}="):
            value = line.split("=", 1)[1].strip()
            return float(value) if value.isdigit() else systest.parse_timespan(value)
    return 0.0


def installed_env(env: dict[str, str]) -> dict[str, str]:
    """The environment for the native bench: Python may keep bytecode, as on an installed box
    (pip compiles at install; PYTHONDONTWRITEBYTECODE would compile the box at every start)."""
    return {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


def pi_bench(box: systest.Container, arch: str, out: Path, alone: bool = False) -> int:
    """`trap-companion bench --pi-class` in the container and here at the same time (``alone``:
    one after the other, so neither run takes CPU from the other), each with its bytecode
    compiled, as an installed box has it: the container's install is pip's (compiled there);
    this checkout's editable install is compiled here first."""
    python = REPO / ".venv" / "bin" / "python"  # make's venv
    env = installed_env(dict(os.environ))
    subprocess.run(
        [str(python), "-m", "compileall", "-q", str(REPO / "companion")], env=env, check=True
    )
    cmd = [str(REPO / ".venv" / "bin" / "trap-companion"), "bench", "--pi-class"]
    said = box.sh(
        f"{VENV}/bin/python -c 'import companion, sys; print(sys.flags.dont_write_bytecode)'"
    )
    say(
        f"pitest: trap-companion bench --pi-class on {arch} and here, "
        f"{'one after the other' if alone else 'at the same time'}; "
        f"load average {load_average()}; bytecode written there: "
        f"{'no' if said.stdout.strip() == '1' else 'yes'}"
    )
    if alone:
        proc = box.sh(f"{VENV}/bin/trap-companion bench --pi-class", timeout=1800)
        say(f"pitest: {arch} done (load average {load_average()}); now here, alone")
    native_proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, text=True, env=env)
    if not alone:
        proc = box.sh(f"{VENV}/bin/trap-companion bench --pi-class", timeout=1800)
    native_out, _ = native_proc.communicate()
    say(f"pitest: load average after both runs: {load_average()}")
    if proc.returncode != 0 or native_proc.returncode != 0:
        raise systest.StepFailed(
            f"bench exited {proc.returncode} on {arch}, {native_proc.returncode} here: "
            + systest.failure_tail(proc)
        )
    native, emulated = json.loads(native_out), json.loads(proc.stdout)
    out.write_text(json.dumps({"native": native, arch: emulated}, indent=2) + "\n")
    unit = (REPO / "systemd" / f"{systest.NAME}.service").read_text()
    for line in [*bench_table(arch, native, emulated), *budget_verdict(emulated, unit)]:
        say(line)
    say(f"pitest: both runs' figures: {out}")
    return records_bench(box, arch, out.with_name(out.name.replace("-bench", "-records")))


def records_bench(box: systest.Container, arch: str, out: Path) -> int:
    """Issue 48's figure: the players' records' first paint on a phone against the box on the
    emulated CPU, with 1,000 plays kept and none (records_paint.py), and the same here."""
    import records_paint

    say(f"pitest: the records' first paint on {arch} and here, one after the other")
    emulated = records_paint.in_container(box, VENV, systest.CLONE, box.pace)
    native = records_paint.here()
    out.write_text(json.dumps({"native": native, arch: emulated}, indent=2) + "\n")
    for line in records_paint.lines(arch, emulated, native):
        say(line)
    say(f"pitest: the records' figures: {out}")
    return EXIT_PASS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pitest", description="The box's tests on the Pi's CPU (arm64, armhf) under QEMU."
    )
    parser.add_argument("--arch", required=True, choices=sorted(piroot.ARCHES))
    parser.add_argument("--ci", action="store_true", help="only the part CI runs")
    parser.add_argument("--rebuild", action="store_true", help="build the root again")
    parser.add_argument(
        "--bench", action="store_true", help="`trap-companion bench --pi-class` there and here"
    )
    parser.add_argument(
        "--alone",
        action="store_true",
        help="with --bench: the emulated run first, then the native one (not side by side)",
    )
    parser.add_argument(
        "--records",
        action="store_true",
        help="with --bench: only the players' records' first paint (issue 48), not the bench",
    )
    parser.add_argument(
        "--suite",
        choices=sorted(systest.SUITES),
        help="the Debian release of the root (default: the recipe's, bookworm)",
    )
    parser.add_argument(
        "--shard",
        metavar="K/N",
        help="part K of N of the whole suite (N runs, one per part, run it all once)",
    )
    parser.add_argument("--tests", nargs="+", metavar="TEST", help="only these tests (pytest ids)")
    args = parser.parse_args(argv)
    part = None
    if args.shard:
        k, _, n = args.shard.partition("/")
        if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
            parser.error(f"--shard {args.shard}: say K/N with 1 <= K <= N, e.g. 1/2")
        part = (int(k), int(n))
    if sum(map(bool, (args.ci, part, args.tests, args.bench))) > 1:
        parser.error("say one of --ci, --shard, --tests, --bench")
    return run(
        args.arch,
        args.ci,
        args.rebuild,
        args.bench,
        args.alone,
        args.suite,
        part,
        args.tests,
        args.records,
    )


if __name__ == "__main__":
    sys.exit(main())
