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
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import archive  # noqa: E402  (tools/systest/archive.py: Debian's lists, what is missing)

REPO = HERE.parents[1]
RECIPE = HERE / "recipe.toml"

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 0, 1, 2, 77
# The last step: the whole run with the root file system cached. Step 8 (update) takes about
# 3 minutes of it: a fresh install, three bundles, an update with a 60 s trial, twelve power
# cuts and boots.
BUDGET_SECONDS = 600
# Under QEMU (make systest ARCH=arm64|armhf): every time limit this many times longer, and the
# run's budget. Measured (docs/raspberry-pi.md, "On the Pi's CPU, emulated"): 254 s on arm64 on
# an idle 2-core machine; about 35 minutes with two more emulated runs and other work on it
# (make install alone 1085 s). armhf builds Pillow in its install: half as long again.
EMULATED_PACE = 4.0
EMULATED_BUDGET_SECONDS = {"arm64": 2700, "armhf": 3600}
# Only under QEMU's user-mode emulation: systemd cannot set up a private network or IPC
# namespace there ("Failed to set up network namespacing: Input/output error").
EMULATION_DROPIN = "emulation.conf"
EMULATION_DROPIN_TEXT = (
    "# Written by make systest ARCH=... only: QEMU's user-mode emulation cannot set these up.\n"
    "[Service]\nPrivateNetwork=no\nPrivateIPC=no\n"
)
# Debian 13's journald imports credentials (ImportCredential=journal.*): systemd sets their
# directory up in a child cloned into a mount namespace of its own, and no QEMU's user-mode
# emulation clones with namespace flags (EINVAL: 243/CREDENTIALS). Without journald step 2 has
# nothing to read: under QEMU only, journald imports none (the box's units use no credentials).
JOURNALD_DROPIN_TEXT = (
    "# Written by make systest ARCH=... only: QEMU cannot clone into a new mount namespace.\n"
    "[Service]\nImportCredential=\n"
)
# The phones' server's unit (it has a network): under QEMU no private IPC namespace either, nor
# a private user namespace (PrivateUsers=: "Failed to set up user namespacing: Invalid
# argument", 217/USER, on Debian 12 and 13 alike).
PHONES_UNIT = "trap-companion-phones.service"
PHONES_DROPIN_TEXT = (
    "# Written by make systest ARCH=... only: QEMU's user-mode emulation cannot set these up.\n"
    "[Service]\nPrivateIPC=no\nPrivateUsers=no\n"
)
GRACE_SECONDS = 5.0  # "within WatchdogSec plus a few seconds"

NAME = "trap-companion"
UNIT = f"{NAME}.service"
STATE = f"/var/lib/{NAME}"
ETC = f"/etc/{NAME}"
CONFIG = f"{ETC}/config.toml"
HOSTNAME = "trapbox"
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"  # the host's: pip checks the index against it
OWNER = "owner"  # the Pi's login user, who cloned the repository
CLONE = f"/home/{OWNER}/{NAME}"
INSTALL = "sudo make install SKIP_APT=1 SKIP_FIRMWARE=1"
# The Python of the bundles the steps install: the Debian release's (SUITES; main sets it).
BUNDLE_PYTHON = "3.11"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NSPAWN_RUN = Path("/run/systemd/nspawn")
# One run at a time on a machine: a run takes away the tmpfs it mounted, which another run's
# nspawn may be using (whatever cache each one uses).
HOST_LOCK = (
    Path("/run/lock" if Path("/run/lock").is_dir() else "/run") / "trap-companion-systest.lock"
)

# The game of step 5: three rolls of 2d6, all journaled before the cut.
PLAY = "game dice die=2d6\ndice 3 3\npress green\ndice 1 5\npress green\ndice 6 2\npress green\n"
PLAY_ACTIONS = 3

LOG_LINE = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL) [A-Za-z_][\w.]*: \S")
RESUMED = re.compile(r"resumed (\S+) after (\d+) actions")
EXPOSURE = re.compile(r"Overall exposure level for \S+: (\d+\.\d+)")
DOCS_EXPOSURE = re.compile(r"exposure level of \**(\d+\.\d+)")


class StepFailed(Exception):
    """A check did not hold; the message says which and what was seen."""


class Skip(Exception):
    """This machine cannot run the systest (exit status 77)."""


# --- pure parts (tests/test_systest.py) -------------------------------------------------------


@dataclass(frozen=True)
class Recipe:
    suite: str
    variant: str
    include: tuple[str, ...]
    mirror: str
    digest: str  # of the file's text: the cache key
    arch: str = ""  # debootstrap's --arch (arm64, armhf: tools/pitest); "" is the host's

    def debootstrap(self, target: Path, mirror: str | None = None) -> list[str]:
        return [
            "debootstrap",
            *([f"--arch={self.arch}"] if self.arch else []),
            f"--variant={self.variant}",
            f"--include={','.join(self.include)}",
            self.suite,
            str(target),
            mirror or self.mirror,
        ]


def host_arch() -> str:
    """Debian's name for this machine's CPU (the bundle a native container takes)."""
    machine = os.uname().machine
    return {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "armhf"}.get(machine, machine)


def recipe_digest(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()[:16]


# The Debian releases a run may take (SUITE=, --suite): each one's version and Python, for the
# messages. The recipe's own suite (bookworm) keeps its cache key and directory; another is built
# beside it, in a directory of its own (cache_for), so the roots in use stay where they are.
SUITES = {"bookworm": ("Debian 12", "3.11"), "trixie": ("Debian 13", "3.13")}


def with_suite(recipe: Recipe, suite: str | None) -> Recipe:
    """The recipe for another Debian release: its key is the file's text and the suite's name."""
    if not suite or suite == recipe.suite:
        return recipe
    if suite not in SUITES:
        raise ValueError(f"SUITE={suite}: not one of {', '.join(SUITES)}")
    digest = recipe_digest(f"{recipe.digest}\0suite={suite}".encode())
    return dataclasses.replace(recipe, suite=suite, digest=digest)


def cache_for(cache: Path, suite: str, default: str) -> Path:
    """The cache directory for SUITE: the default suite's own, else one beside it (-SUITE), so a
    build for one release never clears the roots of another."""
    return cache if suite == default else cache.with_name(f"{cache.name}-{suite}")


def describe(recipe: Recipe) -> str:
    """'Debian 13 (trixie)': how the messages name the release."""
    return f"{SUITES.get(recipe.suite, ('Debian',))[0]} ({recipe.suite})"


def load_recipe(text: bytes, where: str = "recipe.toml", suite: str | None = None) -> Recipe:
    if suite:
        return with_suite(load_recipe(text, where), suite)
    try:
        data = tomllib.loads(text.decode())
        missing = [key for key in ("suite", "variant", "include", "mirror") if key not in data]
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        include = data["include"]
        if not isinstance(include, list) or not all(isinstance(p, str) for p in include):
            raise ValueError("include must be a list of package names")
        return Recipe(
            suite=str(data["suite"]),
            variant=str(data["variant"]),
            include=tuple(include),
            mirror=str(data["mirror"]),
            digest=recipe_digest(text),
        )
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"{where}: {err}") from err


def host_problem(euid: int, which: Callable[[str], str | None]) -> str | None:
    """Why this machine cannot run the systest, in one line; None when it can."""
    if euid != 0:
        return "needs root (systemd-nspawn, mounts): run `sudo make systest`"
    missing = [tool for tool in ("systemd-nspawn", "nsenter", "mount") if which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (Debian: apt-get install systemd-container util-linux)"
    return None


def parse_show(text: str) -> dict[str, str]:
    """`systemctl show -p A -p B` output as a dict."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


_SPAN_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def parse_timespan(text: str) -> float:
    """systemd's "1min 30s", "10s", "500ms" in seconds; "infinity" and "" are 0 (none)."""
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)\s*(us|ms|min|s|h)", text):
        total += float(number) * _SPAN_UNITS[unit]
    return total


def pip_settings(listing: str) -> dict[str, str]:
    """`pip config list` (files and PIP_* variables) as one [global] section: what the host's pip
    uses. A variable wins over a file, as in pip."""
    files: dict[str, str] = {}
    env: dict[str, str] = {}
    for line in listing.splitlines():
        match = re.match(r"^(:env:|[\w-]+)\.([\w-]+)=(.*)$", line.strip())
        if not match:
            continue
        scope, key, value = match.groups()
        try:
            value = shlex.split(value)[0] if value else ""
        except (ValueError, IndexError):
            value = value.strip("'\"")
        if scope == ":env:":
            env[key] = value
        elif scope in ("global", "install"):
            files.setdefault(key, value)
    return files | env


def pip_conf(settings: dict[str, str]) -> str:
    lines = ["# The host's pip configuration, copied by `make systest` (tools/systest)", "[global]"]
    lines += [f"{key} = {value}" for key, value in sorted(settings.items())]
    return "\n".join(lines) + "\n"


def pip_paths(settings: dict[str, str]) -> list[str]:
    """The host paths pip's configuration names (files and file:// indexes)."""
    paths = []
    for value in settings.values():
        for token in value.split():
            path = token.removeprefix("file://").rstrip("/")
            # A local index's pages link to files beside its simple/ folder: bring its root.
            if token.startswith("file://") and path.endswith("/simple"):
                path = path.removesuffix("/simple")
            if path.startswith("/") and path not in paths:
                paths.append(path)
    return paths


def docs_exposure(text: str) -> str | None:
    match = DOCS_EXPOSURE.search(text)
    return match.group(1) if match else None


def analyze_exposure(text: str) -> str | None:
    match = EXPOSURE.search(text)
    return match.group(1) if match else None


def bad_log_lines(lines: list[str]) -> list[str]:
    """The daemon's journal lines that are not "LEVEL logger: message"."""
    return [line for line in lines if not LOG_LINE.match(line)]


def last_resumed(text: str) -> tuple[str, int] | None:
    found = RESUMED.findall(text)
    return (found[-1][0], int(found[-1][1])) if found else None


def cache_dir(env: dict[str, str]) -> Path:
    if env.get("SYSTEST_CACHE"):
        return Path(env["SYSTEST_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / NAME / "systest"


# --- the host: commands, mounts, the cached root ----------------------------------------------


class Log:
    """Every command and its output goes to one file; the terminal gets the PASS/FAIL lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file: IO[str] = path.open("w")

    def write(self, text: str) -> None:
        self.file.write(text if text.endswith("\n") else text + "\n")
        self.file.flush()


def say(text: str) -> None:
    print(text, flush=True)


def host_run(log: Log, cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    log.write(f"host$ {shlex.join(cmd)}")
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    log.write(proc.stdout + proc.stderr + f"[exit {proc.returncode}]")
    return proc


def fs_type(path: Path) -> str:
    while not path.exists():
        path = path.parent
    out = subprocess.run(["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True)
    return out.stdout.strip()


def make_dirs(path: Path) -> list[Path]:
    """mkdir -p, returning the folders it made (deepest last) so they can be removed again."""
    made: list[Path] = []
    for parent in [*reversed(path.parents), path]:
        if not parent.exists():
            parent.mkdir()
            made.append(parent)
    return made


def unmount(log: Log, where: Path) -> bool:
    """WHERE unmounted; False, with a warning, where it is busy (another run on it)."""
    proc = host_run(log, ["umount", str(where)])
    if proc.returncode != 0:
        say(f"systest: warning: could not unmount {where}: {proc.stderr.strip()}")
        return False
    return True


def one_run_at_a_time(stack: contextlib.ExitStack) -> None:
    lock = stack.enter_context(HOST_LOCK.open("w"))
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        say(f"systest: another systest is running on this machine; waiting for it ({HOST_LOCK})")
        fcntl.flock(lock, fcntl.LOCK_EX)


def nspawn_tmpfs(stack: contextlib.ExitStack, log: Log) -> None:
    """nspawn refuses to start unless /run/systemd/nspawn is on a tmpfs: mount one if it is not
    (and take it away at the end). A tmpfs that is already there is left alone."""
    if fs_type(NSPAWN_RUN) == "tmpfs":
        return
    made = make_dirs(NSPAWN_RUN)
    proc = host_run(log, ["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", str(NSPAWN_RUN)])
    if proc.returncode != 0:
        remove_dirs(made)
        raise StepFailed(f"cannot mount a tmpfs on {NSPAWN_RUN}: {proc.stderr.strip()}")
    # The folders go only once the tmpfs is off them; a tmpfs another run still uses stays.
    stack.callback(lambda: unmount(log, NSPAWN_RUN) and remove_dirs(made))


def remove_dirs(made: list[Path]) -> bool:
    """The folders make_dirs made, deepest first, where they are empty and free; one another run
    still uses (a container of pitest's on the tmpfs: EBUSY) stays, and is reused."""
    for folder in reversed(made):
        try:
            folder.rmdir()
        except FileNotFoundError:
            continue
        except OSError as err:
            say(f"systest: warning: left {folder} in place: {err.strerror}")
            return False
    return True


def root_failure(recipe: Recipe, partial: Path, build_log: Path, status: int) -> str:
    """Why debootstrap failed, in one line: the recipe's packages the suite's list (as
    debootstrap fetched it into the partial root) has none of, else debootstrap's own error."""
    lists = partial / "var" / "lib" / "apt" / "lists"
    arch = recipe.arch or host_arch()
    stanzas = archive.read_lists(lists, recipe.include) if lists.is_dir() else []
    absent = archive.absent(stanzas, recipe.include, arch) if stanzas else []
    if absent:
        return (
            f"debootstrap failed (exit {status}): Debian {recipe.suite} for {arch} has no "
            f"{', '.join(absent)} (the recipe's include; its log: {build_log})"
        )
    said = archive.debootstrap_failure(build_log.read_text(errors="replace"))
    return f"debootstrap failed (exit {status}): {said} (its log: {build_log})"


def root_fs(cache: Path, recipe: Recipe, log: Log, rebuild: bool) -> Path:
    """The cached root file system for this recipe, built by debootstrap when missing."""
    cache.mkdir(parents=True, exist_ok=True)
    root = cache / f"root-{recipe.digest}"
    with (cache / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time; others wait and reuse it
        if root.is_dir() and not rebuild:
            say(f"systest: root file system {root} (cached)")
            return root
        if shutil.which("debootstrap") is None:
            raise Skip(
                "needs debootstrap to build its root file system (apt-get install debootstrap)"
            )
        partial = cache / f"root-{recipe.digest}.partial"
        for old in (partial, root):
            if old.exists():
                shutil.rmtree(old)
        mirror = os.environ.get("SYSTEST_MIRROR") or recipe.mirror
        build_log = cache / "build.log"
        say(
            f"systest: building the root file system (Debian {recipe.suite}"
            + (f" for {recipe.arch}, under QEMU" if recipe.arch else "")
            + f", once; about {'10 to 20' if recipe.arch else '3 to 6'} minutes) in {root}; "
            f"its log: {build_log}"
        )
        started = time.monotonic()
        with build_log.open("w") as out:
            proc = subprocess.run(
                recipe.debootstrap(partial, mirror),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        if proc.returncode != 0:
            raise StepFailed(root_failure(recipe, partial, build_log, proc.returncode))
        partial.rename(root)
        (cache / f"root-{recipe.digest}.recipe").write_text(shlex.join(recipe.debootstrap(root)))
        for old in cache.glob("root-*"):  # the roots of older recipes: ours, and unused now
            if old.name.split(".")[0] != root.name:
                if old.is_dir():
                    shutil.rmtree(old)
                else:
                    old.unlink()
        say(f"systest: root file system built in {time.monotonic() - started:.0f} s")
        log.write(f"built {root} in {time.monotonic() - started:.0f} s")
        return root


def overlay(stack: contextlib.ExitStack, log: Log, lower: Path, run_dir: Path) -> Path:
    """The run's own root: an overlay on the cached one (a copy where overlayfs fails)."""
    upper, work, merged = run_dir / "upper", run_dir / "work", run_dir / "root"
    for d in (upper, work, merged):
        d.mkdir(parents=True)
    stack.callback(shutil.rmtree, run_dir, ignore_errors=True)
    options = f"lowerdir={lower},upperdir={upper},workdir={work}"
    proc = host_run(log, ["mount", "-t", "overlay", "overlay", "-o", options, str(merged)])
    if proc.returncode == 0:
        stack.callback(unmount, log, merged)
    else:
        say("systest: overlayfs failed here; copying the root file system instead")
        copy = host_run(log, ["cp", "-a", "--reflink=auto", f"{lower}/.", str(merged)], 600)
        if copy.returncode != 0:
            raise StepFailed(f"cannot copy the root file system: {copy.stderr.strip()}")
    return merged


def host_pip(log: Log) -> tuple[str, list[str]]:
    """The host's pip configuration as a pip.conf, and the paths it names."""
    try:
        proc = host_run(log, [sys.executable, "-m", "pip", "config", "list"])
        listing = proc.stdout if proc.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        listing = ""
    settings = pip_settings(listing)
    for variable in ("https_proxy", "HTTPS_PROXY"):
        if os.environ.get(variable) and "proxy" not in settings:
            settings["proxy"] = os.environ[variable]
    return pip_conf(settings), pip_paths(settings)


def checkout_files(repo: Path) -> list[str]:
    """The checkout as a contributor has it: tracked and new files, not what git ignores."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
    )
    if proc.returncode == 0:
        return [f for f in proc.stdout.split("\0") if f and (repo / f).is_file()]
    skip = {".git", ".venv", ".cache", "__pycache__", ".pytest_cache", ".ruff_cache"}
    return [
        str(p.relative_to(repo))
        for p in repo.rglob("*")
        if p.is_file() and not skip.intersection(p.relative_to(repo).parts)
    ]


# --- the container ---------------------------------------------------------------------------


def _comm(proc_dir: Path) -> str:
    try:
        return (proc_dir / "comm").read_text().strip()
    except OSError:
        return ""


@dataclass
class Container:
    root: Path
    name: str
    log: Log
    console: Path
    binds: list[str] = field(default_factory=list)
    binds_rw: list[str] = field(default_factory=list)  # "host:inside", written to (a cache)
    # How much slower than this machine's CPU it runs (EMULATED_PACE under QEMU): every time
    # limit of a command or a wait is this many times longer; the checks stay the same.
    pace: float = 1.0
    emulated: str = ""  # the architecture QEMU runs (make systest ARCH=...), "" natively
    proc: subprocess.Popen[bytes] | None = None
    init: int = 0
    boots: int = 0

    def boot(self) -> float:
        """Boot, wait for the system to be up; returns the seconds it took."""
        started = time.monotonic()
        self.boots += 1
        cmd = [
            "systemd-nspawn",
            f"--directory={self.root}",
            "--boot",
            "--register=no",  # no systemd on the host to register with
            "--keep-unit",
            f"--machine={self.name}",
            "--console=pipe",
            # A Pi's systemd has it: PrivateNetwork= brings up the loopback of the daemon's own
            # network with it. Without it Debian 13's systemd (257) proceeds with no private
            # network at all (Debian 12's set one up all the same).
            "--capability=CAP_NET_ADMIN",
            *(f"--bind-ro={path}" for path in self.binds),
            *(f"--bind={path}" for path in self.binds_rw),
        ]
        self.log.write(f"host$ {shlex.join(cmd)}   (console: {self.console})")
        with self.console.open("a") as out:
            out.write(f"--- boot {self.boots} ---\n")
            out.flush()
            cgroups = self.own_cgroups()
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=lambda: [
                    (c / "cgroup.procs").write_text(str(os.getpid())) for c in cgroups
                ],
            )
        self.init = self._find_init(deadline=time.monotonic() + 30 * self.pace)

        # Until its init has the bus up, systemctl cannot ask; then it waits for the boot.
        def up() -> str | None:
            state = self.sh("systemctl is-system-running --wait", timeout=120).stdout.strip()
            return None if state in ("", "offline", "initializing", "starting") else state

        state, _ = wait_for("the container's system manager", up, 60 * self.pace)
        if state not in ("running", "degraded"):
            raise StepFailed(f"the container did not come up: is-system-running says {state!r}")
        if state == "degraded":
            failed = self.sh("systemctl --failed --no-legend --plain").stdout.strip()
            self.log.write(f"degraded: {failed}")
        return time.monotonic() - started

    def own_cgroups(self) -> list[Path]:
        """On a host without systemd (cgroup hierarchies mounted, nobody managing them), nspawn
        puts its container in "payload" beside itself: two containers at once (make pitest and
        make systest ARCH=...) would share it and the second one's init dies. Each one starts
        from a cgroup of its own, named after the container; removed again by stop()."""
        made = []
        for hierarchy in ("systemd", "unified"):
            base = Path("/sys/fs/cgroup") / hierarchy
            if (base / "cgroup.procs").exists() and not Path("/run/systemd/system").exists():
                (base / self.name).mkdir(exist_ok=True)
                made.append(base / self.name)
        return made

    def _remove_cgroups(self) -> None:
        for hierarchy in ("systemd", "unified"):
            top = Path("/sys/fs/cgroup") / hierarchy / self.name
            if top.is_dir():
                for folder in sorted(top.rglob("*/"), key=lambda p: len(p.parts), reverse=True):
                    with contextlib.suppress(OSError):
                        folder.rmdir()
                with contextlib.suppress(OSError):
                    top.rmdir()

    def _find_init(self, deadline: float) -> int:
        """The container's init: nspawn's child in a PID namespace of its own. nspawn forks an
        outer child first, in its own PID namespace, which starts the init and exits: taken for
        the init, it is gone by the first command (seen with Debian 13's root, whose outer child
        lives long enough to be found)."""
        assert self.proc is not None
        own = os.readlink(f"/proc/{self.proc.pid}/ns/pid")
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.console.read_text(errors="replace").splitlines()[-5:]
                raise StepFailed(
                    f"systemd-nspawn exited with {self.proc.returncode}: " + " | ".join(tail)
                )
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                # nspawn's child is first a copy of nspawn itself, which starts init and goes:
                # only the child that is systemd, in a PID namespace of its own, is the init (a
                # boot in a loaded moment caught the copy once, and every command after went to
                # a process that was gone; Debian 13's root showed it too).
                if int(fields[1]) == self.proc.pid and _comm(stat.parent) == "systemd":
                    with contextlib.suppress(OSError):
                        if os.readlink(stat.parent / "ns" / "pid") != own:
                            return int(stat.parent.name)
            time.sleep(0.1)
        raise StepFailed(f"systemd-nspawn started no init within {30 * self.pace:.0f} s")

    def sh(
        self, script: str, user: str | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run a shell script inside (as root, or as USER), with a clean environment."""
        if self.proc is None or self.proc.poll() is not None:
            raise StepFailed("the container is not running")
        inner = ["bash", "-c", script]
        if user:
            inner = ["runuser", "-u", user, "--", *inner]
        cmd = [
            "nsenter", "-t", str(self.init), "-a", "--",
            "env", "-i", f"PATH={PATH}", "HOME=/root", "LANG=C.UTF-8", "TERM=dumb",
            *inner,
        ]  # fmt: skip
        self.log.write(f"[{self.name}{' as ' + user if user else ''}]$ {script}")
        timeout *= self.pace
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired as err:
            self.log.write(f"[timed out after {timeout:.0f} s]")
            raise StepFailed(f"`{script}` did not end within {timeout:.0f} s") from err
        self.log.write(proc.stdout + proc.stderr + f"[exit {proc.returncode}]")
        return proc

    def host_pid(self, pid: str) -> int:
        """The host's number of the container's process PID."""
        pid_ns = os.readlink(f"/proc/{self.init}/ns/pid")
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                text = status.read_text()
                same_ns = os.readlink(status.parent / "ns" / "pid") == pid_ns
            except OSError:
                continue
            line = next((ln for ln in text.splitlines() if ln.startswith("NSpid:")), "")
            if same_ns and line.split()[-1:] == [str(pid)]:
                return int(status.parent.name)
        raise StepFailed(f"no process {pid} in the container")

    def in_mounts_of(self, pid: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """ARGV in the mount namespace of the container's process PID, entered by the host's
        nsenter: a program inside runs under QEMU when emulated, and QEMU's threads keep it from
        joining a mount namespace ("reassociate to namespace 'ns/mnt' failed")."""
        cmd = ["nsenter", "-t", str(self.host_pid(pid)), "-m", "--", "env", "-i", f"PATH={PATH}"]
        self.log.write(f"[{self.name}, in the mounts of {pid}]$ {shlex.join(argv)}")
        proc = subprocess.run(
            [*cmd, *argv],
            capture_output=True,
            text=True,
            timeout=60 * self.pace,
            stdin=subprocess.DEVNULL,
        )
        self.log.write(proc.stdout + proc.stderr + f"[exit {proc.returncode}]")
        return proc

    def show(self, *props: str) -> dict[str, str]:
        args = " ".join(f"-p {p}" for p in props)
        return parse_show(self.sh(f"systemctl show {UNIT} {args}").stdout)

    def power_cut(self) -> None:
        """SIGKILL the container's init: every process in it dies at once."""
        self.log.write(f"host$ kill -KILL {self.init}   (power cut)")
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.init, signal.SIGKILL)
        self._wait_nspawn()

    def _wait_nspawn(self) -> None:
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # our own nspawn, which outlived its init
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.power_cut()
        self.proc = None
        self._remove_cgroups()


# --- the steps -------------------------------------------------------------------------------


def failure_tail(proc: subprocess.CompletedProcess[str], lines: int = 4) -> str:
    """The last lines of a failed command, pip's notes about absent local index pages left out."""
    said = [
        line.strip()
        for line in (proc.stdout + proc.stderr).splitlines()
        if line.strip() and not line.startswith("WARNING: Location ")
    ]
    return " | ".join(said[-lines:])


def wait_for(
    what: str, probe: Callable[[], Any], timeout: float, interval: float = 0.5
) -> tuple[Any, float]:
    """Ask PROBE until it answers something true; (answer, seconds). StepFailed after TIMEOUT,
    naming WHAT and the last answer. (A systemd outside us: asking is the only way.)"""
    started = time.monotonic()
    answer = None
    while time.monotonic() - started < timeout:
        answer = probe()
        if answer:
            return answer, time.monotonic() - started
        time.sleep(interval)
    raise StepFailed(f"{what}: not within {timeout:.0f} s")


class Systest:
    def __init__(self, box: Container, log: Log) -> None:
        self.box = box
        self.log = log
        self.good_config = ""
        self.played: dict[str, Any] = {}
        self.plain_debian = False  # the bundles have no lgpio: bundle_install

    # helpers

    def running(self, why: str = "") -> dict[str, str]:
        """The unit's state; StepFailed unless active (running) with a STATUS."""
        show = self.box.show(
            "ActiveState", "SubState", "MainPID", "StatusText", "NRestarts", "Result",
            "ExecMainStatus", "Type", "WatchdogUSec", "RestartUSec",
        )  # fmt: skip
        if (show.get("ActiveState"), show.get("SubState")) != ("active", "running"):
            raise StepFailed(
                f"{why}the service is {show.get('ActiveState')} ({show.get('SubState')}), "
                f"result {show.get('Result')}, exit status {show.get('ExecMainStatus')}; "
                + self.journal_tail()
            )
        return show

    def ensure_running(self) -> dict[str, str]:
        """Each step starts from a running service (and a fresh start-limit count)."""
        self.box.sh(f"systemctl reset-failed {UNIT}; systemctl start {UNIT}", timeout=90)
        return self.running("before the step, ")

    def journal_tail(self, lines: int = 4) -> str:
        out = self.box.sh(f"journalctl -u {UNIT} -b 0 --no-pager -o cat -n {lines}").stdout
        if not out.strip():
            return f"no log line from {UNIT} in this boot"
        return "last log lines: " + " | ".join(out.strip().splitlines())

    def daemon_lines(self, since: str = "") -> list[str]:
        args = f"--since {shlex.quote(since)}" if since else "-b 0"
        out = self.box.sh(f"journalctl -u {UNIT} {args} --no-pager -o json").stdout
        lines = []
        for raw in out.splitlines():
            entry = json.loads(raw)
            if entry.get("SYSLOG_IDENTIFIER") == NAME and isinstance(entry.get("MESSAGE"), str):
                lines.append(entry["MESSAGE"])
        return lines

    def now(self) -> str:
        return self.box.sh("date '+%Y-%m-%d %H:%M:%S'").stdout.strip()

    def install(self) -> subprocess.CompletedProcess[str]:
        # Plain Debian where PyPI has no lgpio wheel for its Python (Debian 13's 3.13 on ARM):
        # the bundle make install builds inside has no lgpio either, as step 1's (mock pins).
        plain = " BUNDLE_PLAIN_DEBIAN=1" if self.plain_debian else ""
        return self.box.sh(f"cd {CLONE} && {INSTALL}{plain}", user=OWNER, timeout=600)

    def bundle_install(self) -> tuple[subprocess.CompletedProcess[str], str]:
        """The owner's way from one file (issue 34): a bundle for the box's CPU built here
        (`make bundle`), copied to the owner's home, installed by the one command the guide
        gives, in a network namespace of its own (lo only): no network at all."""
        arch = self.box.emulated or host_arch()
        out = self.box.root / "home" / OWNER
        built = subprocess.run(
            [sys.executable, str(REPO / "tools" / "bundle" / "build.py"), "--arch", arch,
             "--python", BUNDLE_PYTHON, "--out", str(out), "--plain-debian"],
            capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        self.log.write(built.stdout + built.stderr + f"[exit {built.returncode}]")
        if built.returncode != 0:
            raise StepFailed(f"make bundle ARCH={arch} failed: {failure_tail(built)}")
        bundle = Path(built.stdout.strip().splitlines()[-1])
        self.plain_debian = bool(self.box.emulated) and "without lgpio" in built.stdout
        self.box.sh(f"chown {OWNER}:{OWNER} /home/{OWNER}/{shlex.quote(bundle.name)}")
        # Under QEMU's user-mode emulation a network namespace cannot be set up (as for the
        # unit's PrivateNetwork=): there `make bundletest` shows the install with no network.
        offline = "" if self.box.emulated else "unshare --net -- "
        if offline:
            cut = self.box.sh(f"sudo {offline}cat /proc/net/dev", user=OWNER)
            interfaces = sorted(
                line.split(":")[0].strip() for line in cut.stdout.splitlines() if ":" in line
            )
            if cut.returncode != 0 or interfaces != ["lo"]:
                raise StepFailed(f"cannot cut the network: {interfaces}, {cut.stderr.strip()}")
        name = shlex.quote(bundle.name)
        proc = self.box.sh(
            f"cd && tar -xOf {name} install.sh | sudo SKIP_FIRMWARE=1 {offline}sh -s {name}",
            user=OWNER,
            timeout=600,
        )
        where = "no network: lo only" if offline else "network left on under QEMU"
        if self.plain_debian:
            where += f"; no lgpio (none for Python {BUNDLE_PYTHON} in plain Debian: mock pins)"
        return proc, f"{bundle.name}, {bundle.stat().st_size / 2**20:.1f} MiB, {where}"

    def sha(self, path: str) -> str:
        proc = self.box.sh(f"sha256sum {shlex.quote(path)}")
        return (
            proc.stdout.split()[0] if proc.returncode == 0 else f"missing ({proc.stderr.strip()})"
        )

    # 1

    def step_install(self) -> str:
        """The owner's way: the clone in their home, their config with mock pins, sudo make
        install."""
        prepare = (
            f"sudo install -d -m 0755 {ETC} && "
            f"sed 's/^pin_factory = .*/pin_factory = \"mock\"/' "
            f"{CLONE}/companion/data/config.example.toml | sudo tee {CONFIG} >/dev/null"
        )
        proc = self.box.sh(prepare, user=OWNER)
        if proc.returncode != 0:
            raise StepFailed(f"cannot write {CONFIG}: {proc.stderr.strip()}")
        started = time.monotonic()
        proc, bundle = self.bundle_install()
        took = time.monotonic() - started
        if proc.returncode != 0:
            raise StepFailed(
                f"the bundle's install.sh exited {proc.returncode}: " + failure_tail(proc)
            )
        release = self.box.sh(f"readlink /opt/{NAME}/current").stdout.strip()
        if (
            not release.startswith("releases/")
            or self.box.sh(f"test -f /opt/{NAME}/{release}/RELEASE.json").returncode
        ):
            raise StepFailed(f"/opt/{NAME}/current is {release!r}, not a finished release")
        show = self.running("after the bundle's install, ")
        if show.get("Type") != "notify":
            raise StepFailed(f"the unit is Type={show.get('Type')}, not notify")
        if not show.get("StatusText"):
            raise StepFailed("active (running) but no STATUS= from the daemon")
        if show.get("NRestarts") != "0":
            raise StepFailed(f"it restarted {show.get('NRestarts')} times already")
        self.good_config = self.box.sh(f"cat {CONFIG}").stdout
        status = show["StatusText"]
        return (
            f"from one file ({bundle}) in {took:.0f} s with the bundle's build, current "
            f'-> {release}; active (running), Type=notify, STATUS "{status}"'
        )

    # 2

    def step_journal(self) -> str:
        self.running()
        lines = self.daemon_lines()
        if not lines:
            raise StepFailed(f"journald has no line from {NAME} (SYSLOG_IDENTIFIER={NAME})")
        bad = bad_log_lines(lines)
        everything = self.box.sh(f"journalctl -u {UNIT} -b 0 --no-pager -o cat").stdout
        if "Traceback" in everything:
            at = everything[everything.index("Traceback") :].splitlines()[:4]
            raise StepFailed("a traceback in the journal: " + " | ".join(at))
        if bad:
            raise StepFailed(f"{len(bad)} lines are not 'LEVEL logger: message', e.g. {bad[0]!r}")
        if not any(" companion.daemon: ready: " in line for line in lines):
            raise StepFailed("no 'ready:' line from companion.daemon")
        return f"{len(lines)} lines as 'LEVEL logger: message', no traceback"

    # 3

    def step_watchdog(self) -> str:
        show = self.ensure_running()
        watchdog = parse_timespan(show.get("WatchdogUSec", ""))
        restart = parse_timespan(show.get("RestartUSec", ""))
        if watchdog <= 0:
            raise StepFailed("the unit has no WatchdogSec: a hung daemon would never be killed")
        pid, restarts = show["MainPID"], int(show["NRestarts"])
        since = self.now()
        self.box.sh(f"kill -STOP {pid}")
        grace = GRACE_SECONDS * self.box.pace
        limit = watchdog + restart + grace

        def back_from(old: str) -> dict[str, str] | None:
            now = self.box.show("ActiveState", "SubState", "MainPID", "NRestarts")
            moved = now.get("MainPID") not in (old, "0")
            return now if moved and now.get("SubState") == "running" else None

        try:
            _, took = wait_for(f"back after SIGSTOP of {pid}", lambda: back_from(pid), limit)
        except StepFailed as err:
            raise StepFailed(
                f"SIGSTOP: the service was not back within WatchdogSec {watchdog:.0f} s + "
                f"RestartSec {restart:.0f} s + {grace:.0f} s; " + self.journal_tail()
            ) from err
        said = self.box.sh(f"journalctl -u {UNIT} --since {shlex.quote(since)} --no-pager -o cat")
        if "Watchdog timeout" not in said.stdout:
            raise StepFailed(
                "the daemon was restarted, but not by the watchdog: " + self.journal_tail()
            )
        show = self.running("after the watchdog, ")
        pid = show["MainPID"]
        self.box.sh(f"kill -KILL {pid}")
        try:
            _, killed = wait_for(
                f"back after SIGKILL of {pid}", lambda: back_from(pid), restart + 15 * self.box.pace
            )
        except StepFailed as err:
            raise StepFailed(
                "SIGKILL: the service was not restarted; " + self.journal_tail()
            ) from err
        show = self.running("after SIGKILL, ")
        if int(show["NRestarts"]) < restarts + 2:
            raise StepFailed(f"NRestarts went from {restarts} to {show['NRestarts']}, not +2")
        return (
            f"SIGSTOP: killed by the watchdog ({watchdog:.0f} s) and back in {took:.1f} s; "
            f"SIGKILL: back in {killed:.1f} s"
        )

    # 4

    def step_bad_config(self) -> str:
        show = self.ensure_running()
        restart = parse_timespan(show.get("RestartUSec", ""))
        restarts = show["NRestarts"]
        said = []
        # A bad value (78), and a good one off a Pi: "auto" finds no GPIO library (69). Neither
        # is restarted: restarting fixes neither (issue 45 point 4: 69 restarted five times).
        for value, exit_status in (("bogus", "78"), ("auto", "69")):
            self.box.sh(f"sed -i 's/^pin_factory = .*/pin_factory = \"{value}\"/' {CONFIG}")
            try:
                if value == "auto":  # started by the owner's installer, as off a Pi
                    said.append(self.install_off_a_pi())
                message = self._bad_config(restart, restarts, exit_status, value != "auto")
            finally:  # the later steps need the good config, whatever happened here
                self.box.sh(f"cat > {CONFIG} <<'EOF'\n{self.good_config}EOF")
            self.box.sh(f"systemctl reset-failed {UNIT}; systemctl restart {UNIT}", timeout=60)
            self.running("after fixing the config and restarting, ")
            restarts = self.box.show("NRestarts")["NRestarts"]
            said.append(f'exit {exit_status}, failed, no restart; status shows "{message}"')
        return "; ".join(said) + "; fixed: back"

    def install_off_a_pi(self) -> str:
        """The bundle's install again with a config of "auto" pins on a machine with no GPIO:
        installed, the service's failure told with what to do, then the next steps (issue 45
        point 4: it ended at "Job for trap-companion.service failed"); no lgpio warning off a
        Pi."""
        name = self.box.sh(f"cd /home/{OWNER} && ls trap-companion-*.tar | tail -n 1").stdout
        name = shlex.quote(name.strip())
        proc = self.box.sh(
            f"cd && tar -xOf {name} install.sh | sudo SKIP_FIRMWARE=1 sh -s {name}",
            user=OWNER,
            timeout=600,
        )
        said = proc.stdout + proc.stderr
        wanted = (
            "The service did not start: trap-companion: hardware.pin_factory = 'auto': no GPIO",
            'pin_factory = "mock"',
            "is installed",
            "Next:",
        )
        missing = [words for words in wanted if words not in said]
        if proc.returncode != 0 or missing:
            raise StepFailed(
                f"the install off a Pi: exit {proc.returncode}, without {missing}: {said[-300:]}"
            )
        if "cannot import lgpio" in said or "Job for" in said:
            raise StepFailed(f"the install off a Pi warned of lgpio or systemd's job: {said}")
        return "the install off a Pi told why the service did not start, then the next steps"

    def _bad_config(
        self, restart: float, restarts: str, exit_status: str = "78", start: bool = True
    ) -> str:
        if start:
            self.box.sh(f"systemctl restart {UNIT}", timeout=60)
        # Long enough for systemd to have restarted it, had it wanted to.
        time.sleep(restart + 3 * self.box.pace)
        show = self.box.show("ActiveState", "SubState", "Result", "ExecMainStatus", "NRestarts")
        status = self.box.sh(f"systemctl status {UNIT} --no-pager -l -n 20").stdout
        if show.get("NRestarts") != restarts:
            raise StepFailed(
                f"a bad pin_factory: systemd restarts it (a loop): NRestarts {restarts} -> "
                f"{show.get('NRestarts')}, now {show.get('ActiveState')}/{show.get('SubState')}"
                f" (is {exit_status} in RestartPreventExitStatus=?)"
            )
        if show.get("ExecMainStatus") != exit_status or show.get("ActiveState") != "failed":
            raise StepFailed(
                f"a bad pin_factory: exit status {show.get('ExecMainStatus')}, not {exit_status}; "
                f"{show.get('ActiveState')}/{show.get('SubState')}, not failed"
            )
        if "hardware.pin_factory" not in status:
            raise StepFailed("`systemctl status` does not show the message naming the key")
        line = next(line for line in status.splitlines() if "hardware.pin_factory" in line)
        return line.split(": ", 1)[-1].strip()[:120]

    # 5

    def step_power_cut(self) -> str:
        self.ensure_running()
        self.box.sh(f"systemctl stop {UNIT}")
        # The game, played into the daemon's own state dir by the service user.
        # In /var/tmp: /tmp is emptied by the reboot.
        config, script = "/var/tmp/systest-play.toml", "/var/tmp/systest-play.txt"
        self.box.sh(
            f"sed 's|^dir = .*|dir = \"{STATE}\"|' {CONFIG} > {config} && chmod 644 {config}"
            f" && printf %s {shlex.quote(PLAY)} > {script} && chmod 644 {script}"
        )
        proc = self.box.sh(f"{NAME} replay --config {config} {script}", user=NAME)
        if proc.returncode != 0:
            raise StepFailed(f"replay as {NAME} exited {proc.returncode}: {proc.stderr.strip()}")
        last = json.loads(proc.stdout.splitlines()[-1])
        self.played = {"game": last["game"], "state": last["state"]}
        journal = self.box.sh(f"cat {STATE}/journal.jsonl").stdout
        actions = journal.count('"kind":"action"')
        if actions != PLAY_ACTIONS:
            raise StepFailed(
                f"the journal holds {actions} actions after the game, not {PLAY_ACTIONS}"
            )
        self.box.sh(f"systemctl start {UNIT}", timeout=60)
        show = self.running("with the game in play, ")
        if not show["StatusText"].lower().startswith(last["game"]):
            raise StepFailed(
                f'before the power cut, with the saved game, STATUS "{show["StatusText"]}" '
                f"does not name the game {last['game']}"
            )
        self.box.power_cut()
        booted = self.box.boot()
        try:
            show, _ = wait_for(
                "the service after boot",
                lambda: (
                    (s := self.box.show("ActiveState", "SubState")).get("SubState") == "running"
                    and s
                ),
                30 * self.box.pace,
            )
        except StepFailed as err:
            enabled = self.box.sh(f"systemctl is-enabled {UNIT}").stdout.strip()
            raise StepFailed(
                f"after the power cut the service did not start at boot (is-enabled: {enabled}); "
                + self.journal_tail()
            ) from err
        show = self.running("after the power cut, ")
        resumed = last_resumed("\n".join(self.daemon_lines()))
        if resumed != (last["game"], PLAY_ACTIONS):
            raise StepFailed(
                f"after the power cut the journal says {resumed}, not resumed "
                f"{last['game']} after {PLAY_ACTIONS} actions; " + self.journal_tail()
            )
        if not show["StatusText"].lower().startswith(last["game"]):
            raise StepFailed(f'after the power cut STATUS is "{show["StatusText"]}"')
        # Exactly that game: the state the box folds from its journal is the state played.
        start = self.box.show("InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic")
        ready = (
            int(start["ActiveEnterTimestampMonotonic"])
            - int(start["InactiveExitTimestampMonotonic"])
        ) / 1e6
        self.box.sh(f"systemctl stop {UNIT}")
        proc = self.box.sh(f"printf 'wait 0\\n' | {NAME} replay --config {config} -", user=NAME)
        self.box.sh(f"systemctl start {UNIT}", timeout=60)
        if proc.returncode != 0 or not proc.stdout.strip():
            raise StepFailed(
                f"cannot read the game back after the power cut: {proc.stderr.strip()}"
            )
        again = json.loads(proc.stdout.splitlines()[-1])
        if {"game": again["game"], "state": again["state"]} != self.played:
            raise StepFailed(
                f"the game after the power cut differs: {again['state']} != {self.played['state']}"
            )
        return (
            f"{last['game']} resumed after {PLAY_ACTIONS} actions, the same state; boot "
            f"{booted:.1f} s, the service ready {ready:.2f} s after its start"
        )

    # 6

    def step_hardening(self) -> str:
        show = self.ensure_running()
        pid = show["MainPID"]
        # Root inside the daemon's own mount namespace: what the namespace lets through.
        paths = ["/", "/etc", ETC, "/opt", f"/opt/{NAME}/current/venv", "/usr", "/usr/local/bin",
                 "/var", "/var/lib", "/var/log", "/srv", "/root", "/home"]  # fmt: skip
        probe = (
            "for d in " + " ".join(paths) + "; do "
            't="$d/.systest-probe"; if touch "$t" 2>/dev/null; then echo "$d"; rm -f "$t"; fi; '
            "done"
        )
        wrote = self.box.in_mounts_of(pid, ["sh", "-c", probe]).stdout.split()
        if wrote:
            raise StepFailed(f"the daemon's view lets it write {', '.join(wrote)}")
        as_user = ["setpriv", f"--reuid={NAME}", f"--regid={NAME}", "--init-groups", "--", "sh"]
        probe = f"touch {STATE}/.systest-probe && rm {STATE}/.systest-probe"
        proc = self.box.in_mounts_of(pid, [*as_user, "-c", probe])
        if proc.returncode != 0:
            raise StepFailed(f"the daemon cannot write its own state dir: {proc.stderr.strip()}")
        # No network: its own network namespace with only lo, and sockets only of AF_UNIX.
        if self.box.emulated:
            return self.hardening_emulated(pid, measured_exposure=self.exposure())
        ns = self.box.sh(f"readlink /proc/{pid}/ns/net /proc/1/ns/net").stdout.split()
        devices = self.box.sh(f"tail -n +3 /proc/{pid}/net/dev").stdout
        interfaces = sorted(
            line.split(":")[0].strip() for line in devices.splitlines() if ":" in line
        )
        if len(ns) != 2 or ns[0] == ns[1] or interfaces != ["lo"]:
            raise StepFailed(
                f"the daemon shares a network: namespace {ns}, interfaces {interfaces}"
            )
        unit = self.box.show("RestrictAddressFamilies", "PrivateNetwork")
        if unit.get("RestrictAddressFamilies") != "AF_UNIX":
            raise StepFailed(
                f"the unit allows the address families {unit.get('RestrictAddressFamilies')!r}, "
                "not AF_UNIX only"
            )
        if unit.get("PrivateNetwork") != "yes":
            raise StepFailed(f"the unit has PrivateNetwork={unit.get('PrivateNetwork')}")
        status = parse_show(
            self.box.sh(f"tr ':\\t' '=\\0' < /proc/{pid}/status | tr -d '\\0 '").stdout
        )
        if (
            status.get("NoNewPrivs") != "1"
            or status.get("Seccomp") != "2"
            or int(status.get("CapEff", "1"), 16)
        ):
            raise StepFailed(
                f"the process: NoNewPrivs {status.get('NoNewPrivs')}, Seccomp "
                f"{status.get('Seccomp')}, CapEff {status.get('CapEff')}"
            )
        measured = self.exposure()
        phones = self.phones_on_and_off()
        return (
            f"writes only {STATE} (/, /etc, /opt, /usr, /var read-only); own network (lo only), "
            f"AF_UNIX only; no capabilities; exposure {measured} as documented; {phones}"
        )

    def exposure(self) -> str:
        """The exposure the owner's guide states, as `systemd-analyze security` measures it (of
        the unit as installed, under emulation without the emulation's drop-in)."""
        dropin = f"/etc/systemd/system/{UNIT}.d/{EMULATION_DROPIN}"
        hide = f"mv {dropin} /run/ && systemctl daemon-reload && " if self.box.emulated else ""
        back = (
            f"; mv /run/{EMULATION_DROPIN} {dropin} && systemctl daemon-reload"
            if self.box.emulated
            else ""
        )
        analysis = self.box.sh(
            f"{hide}systemd-analyze security {UNIT} --no-pager{back}", timeout=120
        ).stdout
        measured = analyze_exposure(analysis)
        docs = REPO / "docs" / "raspberry-pi.md"
        stated = docs_exposure(docs.read_text())
        if measured is None:
            raise StepFailed("systemd-analyze security gave no exposure level")
        if stated != measured:
            raise StepFailed(
                f"systemd-analyze security says {measured}; docs/raspberry-pi.md states {stated}"
            )
        return measured

    def hardening_emulated(self, pid: str, measured_exposure: str) -> str:
        """Under QEMU the unit runs with the emulation's drop-in (no private network or IPC
        namespace: they cannot be set up there): the network is checked as the unit declares it,
        and the daemon's sockets as it holds them."""
        unit = self.box.show("RestrictAddressFamilies", "PrivateNetwork", "DropInPaths")
        declared = self.box.sh(f"systemctl cat {UNIT} --no-pager").stdout
        base = declared.split("\n# /etc/systemd/system/" + UNIT + ".d/", 1)[0]
        if "\nPrivateNetwork=yes" not in base:
            raise StepFailed("the installed unit does not declare PrivateNetwork=yes")
        if unit.get("RestrictAddressFamilies") != "AF_UNIX":
            raise StepFailed(
                f"the unit allows the address families {unit.get('RestrictAddressFamilies')!r}, "
                "not AF_UNIX only"
            )
        dropins = unit.get("DropInPaths", "").split()
        if [Path(d).name for d in dropins] != [EMULATION_DROPIN]:
            raise StepFailed(f"drop-ins other than the emulation's: {dropins}")
        sockets = self.box.sh(
            f"ls -l /proc/{pid}/fd | grep -o 'socket:\\[[0-9]*\\]' | tr -dc '0-9\\n'"
        ).stdout.split()
        inet = self.box.sh("cat /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6").stdout
        held = [inode for inode in sockets if f" {inode} " in inet]
        if held:
            raise StepFailed(f"the daemon holds internet sockets: inodes {held}")
        phones = self.phones_on_and_off()
        return (
            f"writes only {STATE} (/, /etc, /opt, /usr, /var read-only); declares PrivateNetwork"
            f" (off under emulation only), AF_UNIX only, holds no internet socket; exposure "
            f"{measured_exposure} as documented (without the emulation's drop-in); {phones}"
        )

    def phones_on_and_off(self) -> str:
        """Phones on (`phones enable`): the phones' server is a unit of its own
        (trap-companion-phones), listening on the port, at a lower CPU weight; the game's unit
        keeps its own network namespace and AF_UNIX only. `phones disable` stops the phones'
        unit (issue 33 point 1)."""
        if self.box.sh(f"{NAME} phones --help").returncode != 0:
            return "no phones command to check"
        # A port free on this host: the container shares the host's network.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.box.sh(f"sed -i '/^\\[phones\\]/,/^\\[/ s/^port = .*/port = {port}/' {CONFIG}")
        phones_unit = f"{NAME}-phones.service"

        def phones_show(*props: str) -> dict[str, str]:
            args = " ".join(f"-p {p}" for p in props)
            return parse_show(self.box.sh(f"systemctl show {phones_unit} {args}").stdout)

        base = {"RestrictAddressFamilies": "AF_UNIX", "PrivateNetwork": "yes"}
        if self.box.emulated:  # the emulation's drop-in: no private network namespace there
            base["PrivateNetwork"] = "no"
        proc = self.box.sh(f"{NAME} phones enable", timeout=90)
        if proc.returncode != 0:
            raise StepFailed(f"phones enable exited {proc.returncode}: {failure_tail(proc)}")
        try:
            show = self.running("after phones enable, ")
            unit = self.box.show("RestrictAddressFamilies", "PrivateNetwork")
            if unit != base:
                raise StepFailed(f"phones enabled, and the game's unit has a network: {unit}")
            if not self.box.emulated:
                ns = self.box.sh(f"readlink /proc/{show['MainPID']}/ns/net /proc/1/ns/net")
                pair = ns.stdout.split()
                if len(pair) != 2 or pair[0] == pair[1]:
                    raise StepFailed(f"phones enabled, the game shares a network: {pair}")
            served: dict[str, str] = {}

            def listening() -> bool:
                served.update(phones_show("ActiveState", "MainPID", "CPUWeight"))
                if served.get("ActiveState") != "active" or served.get("MainPID") in ("", "0"):
                    return False
                tables = self.box.sh(f"cat /proc/{served['MainPID']}/net/tcp*").stdout
                return f":{port:04X} " in tables

            wait_for(f"the phones' unit listening on port {port}", listening, 20 * self.box.pace)

            def linked() -> bool:  # the game's STATUS says so only once the link is up
                text = self.box.show("StatusText").get("StatusText", "")
                return f"phones on port {port}" in text

            wait_for("the game linked to the phones' unit", linked, 20 * self.box.pace)
            if served.get("CPUWeight") != "20":
                raise StepFailed(f"the phones' unit has CPUWeight={served.get('CPUWeight')}")
            sockets = self.box.sh(
                f"ls -l /proc/{show['MainPID']}/fd | grep -o 'socket:\\[[0-9]*\\]' "
                "| tr -dc '0-9\\n'"
            ).stdout.split()
            inet = self.box.sh(
                "cat /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6"
            ).stdout
            held = [inode for inode in sockets if f" {inode} " in inet]
            if held:
                raise StepFailed(f"phones enabled, the game holds internet sockets: {held}")
        finally:
            proc = self.box.sh(f"{NAME} phones disable", timeout=90)
        if proc.returncode != 0:
            raise StepFailed(f"phones disable exited {proc.returncode}: {failure_tail(proc)}")
        show = self.running("after phones disable, ")
        unit = self.box.show("RestrictAddressFamilies", "PrivateNetwork")
        if unit != base:
            raise StepFailed(f"after phones disable the daemon has a network: {unit}")
        state = phones_show("ActiveState").get("ActiveState")
        if state not in ("inactive", "failed"):
            raise StepFailed(f"after phones disable the phones' unit is {state}")
        return (
            f"phones enable: the phones' own unit on port {port} (CPUWeight 20) linked to the "
            "game, the game's unit AF_UNIX only in its own network; disable: the phones' unit "
            "stopped"
        )

    # 7

    def step_owner(self) -> str:
        """The owner's `cards` commands on the installed box (issue 45 point 1): while it runs
        they ask the box over its socket (sudo: done, logged, shown; no sudo, or a user outside
        the service's group: refused, 77, nothing written); stopped, root's command writes as
        the service's user; the registry keeps trap-companion:trap-companion 0640 throughout,
        and a start reads it whole (nothing set aside)."""
        show = self.ensure_running()
        pid = show["MainPID"]
        cards = f"{STATE}/cards.toml"
        socket_path = f"/run/{NAME}/owner.sock"
        enrol = f"{NAME} cards enrol 04A1B2C4 trapwords curse-echo"

        def whose(path: str) -> str:
            return self.box.sh(f"stat -c '%U:%G %a' {path}").stdout.strip()

        said = self.box.sh(f"stat -c '%U:%G %a' {socket_path} /run/{NAME}").stdout.split("\n")
        if said[:2] != [f"{NAME}:{NAME} 660", f"{NAME}:{NAME} 750"]:
            raise StepFailed(f"the owner's socket and its folder are {said[:2]}")
        before = self.sha(cards)
        proc = self.box.sh(enrol, user=OWNER)  # no sudo, not in the group
        if proc.returncode != 77 or f"only root and the group {NAME}" not in proc.stderr:
            raise StepFailed(f"enrol without sudo: exit {proc.returncode}: {proc.stderr.strip()}")
        proc = self.box.sh(f"{NAME} cards list", user="nobody")
        if proc.returncode != 77:
            raise StepFailed(f"cards list as nobody: exit {proc.returncode}: {proc.stderr.strip()}")
        if self.sha(cards) != before:
            raise StepFailed("a refused enrolment changed the registry")
        since = self.now()
        proc = self.box.sh(f"sudo {enrol}", user=OWNER)
        if proc.returncode != 0 or "04A1B2C4: Echo" not in proc.stdout:
            raise StepFailed(f"sudo enrol: exit {proc.returncode}: {failure_tail(proc)}")
        logged = [line for line in self.daemon_lines(since) if "enrolled from a shell" in line]
        if not logged:
            raise StepFailed("the box did not log the enrolment from a shell")
        if whose(cards) != f"{NAME}:{NAME} 640":
            raise StepFailed(f"after sudo enrol the registry is {whose(cards)}")
        if self.running("after sudo enrol, ")["MainPID"] != pid:
            raise StepFailed("the box restarted over an enrolment")
        listed = self.box.sh(f"sudo {NAME} cards list", user=OWNER).stdout
        if "04A1B2C4" not in listed:
            raise StepFailed(f"sudo cards list does not show the card: {listed!r}")
        # Stopped: root's command writes as the service's user; the owner's alone cannot.
        self.box.sh(f"systemctl stop {UNIT}", timeout=90)
        proc = self.box.sh(f"{NAME} cards forget 04A1B2C4", user=OWNER)
        if proc.returncode == 0:
            raise StepFailed("the owner without sudo forgot a card of a stopped box")
        proc = self.box.sh(f"sudo {NAME} cards forget 04A1B2C4 && sudo {enrol}", user=OWNER)
        if proc.returncode != 0:
            raise StepFailed(f"with the box stopped, sudo forget and enrol: {failure_tail(proc)}")
        if whose(cards) != f"{NAME}:{NAME} 640":
            raise StepFailed(f"with the box stopped, sudo enrol left the registry {whose(cards)}")
        since = self.now()
        show = self.ensure_running()
        lines = self.daemon_lines(since)
        aside = [line for line in lines if "unreadable" in line or "set aside" in line]
        if aside or self.box.sh(f"ls {STATE} | grep -c unreadable").stdout.strip() != "0":
            raise StepFailed(f"the start set the registry aside: {aside}")
        state_dir = whose(STATE)
        if state_dir != f"{NAME}:{NAME} 750":
            raise StepFailed(f"{STATE} is {state_dir} while the service runs")
        # A registry made root's by hand: named with the fix at the start, left where it is.
        restarted = self.now()
        self.box.sh(f"chown root:root {cards}; systemctl restart {UNIT}", timeout=90)
        self.running("with a registry of root's, ")
        lines = self.daemon_lines(restarted)
        fix = f"sudo chown {NAME}:{NAME} {cards}"
        if not any(fix in line and "root:root 0640" in line for line in lines):
            raise StepFailed(f"the start did not name root's registry and its fix: {lines[-3:]}")
        if whose(cards) != "root:root 640" or self.box.sh(f"ls {STATE}").stdout.count("cards") != 1:
            raise StepFailed("the start moved root's registry")
        self.box.sh(f"chown {NAME}:{NAME} {cards}")
        listed = self.box.sh(f"sudo {NAME} cards list", user=OWNER).stdout
        if "04A1B2C4" not in listed:
            raise StepFailed(f"after the fix the running box does not list the card: {listed!r}")
        return (
            "enrol while running: without sudo 77, as nobody 77, with sudo done by the box "
            f"(logged, no restart); stopped: root's enrol wrote as {NAME}; registry "
            f"{NAME}:{NAME} 0640 throughout, {STATE} 0750; a registry of root's named with "
            "its fix at the start, left where it is, read once given back"
        )

    # 8

    def step_upgrade(self) -> str:
        self.ensure_running()
        self.box.sh(f"printf '# the owner was here\\n' >> {CONFIG}")
        proc = self.box.sh(
            f"{NAME} cards enrol 04A1B2C3 trap-attack damage-2 --name Fireball", user=NAME
        )
        if proc.returncode != 0:
            raise StepFailed(f"cannot enrol a card as {NAME}: {proc.stderr.strip()}")
        kept = {path: self.sha(path) for path in (CONFIG, f"{STATE}/cards.toml")}
        journal = self.box.sh(f"cat {STATE}/journal.jsonl").stdout
        pid = self.box.show("MainPID")["MainPID"]
        before = self.box.sh(f"readlink /opt/{NAME}/current").stdout.strip()
        proc = self.install()
        if proc.returncode != 0:
            raise StepFailed(f"make install again exited {proc.returncode}: " + failure_tail(proc))
        after = self.box.sh(f"readlink /opt/{NAME}/current").stdout.strip()
        releases = self.box.sh(f"ls /opt/{NAME}/releases").stdout.split()
        if after == before or len(releases) != 2:
            raise StepFailed(
                f"make install of the checkout: current {before} -> {after}, releases {releases}"
            )
        if f"kept the existing {CONFIG}" not in proc.stdout:
            raise StepFailed("make install again did not say it kept the config")
        show = self.running("after make install again, ")
        if show["MainPID"] == pid:
            raise StepFailed("make install again did not restart the daemon")
        changed = [path for path, sha in kept.items() if self.sha(path) != sha]
        if changed:
            raise StepFailed(f"make install again changed {', '.join(changed)}")
        if not self.box.sh(f"cat {STATE}/journal.jsonl").stdout.startswith(journal) or not journal:
            raise StepFailed("make install again lost the journal")
        # Uninstall: stopped, disabled, gone; the owner's data kept.
        proc = self.box.sh(f"cd {CLONE} && sudo make uninstall", user=OWNER)
        if proc.returncode != 0:
            raise StepFailed(f"make uninstall exited {proc.returncode}: {proc.stderr.strip()}")
        if f"'sudo {NAME}-uninstall --purge' removes them" not in proc.stdout:
            raise StepFailed(f"make uninstall named no purge that works: {proc.stdout[-200:]}")
        show = self.box.show("LoadState", "ActiveState", "UnitFileState")
        if show.get("ActiveState") != "inactive":
            raise StepFailed(
                f"after make uninstall the service is still {show.get('ActiveState')} "
                f"(its unit: {show.get('LoadState')})"
            )
        if show.get("LoadState") != "not-found":
            raise StepFailed(f"after make uninstall the unit is still {show.get('LoadState')}")
        left = self.box.sh(
            f"for p in /opt/{NAME} /usr/local/bin/{NAME} /etc/systemd/system/{UNIT} "
            f"/etc/systemd/system/multi-user.target.wants/{UNIT}; "
            'do [ -e "$p" ] || [ -L "$p" ] && echo "$p"; done'
        ).stdout.split()
        if left:
            raise StepFailed(f"make uninstall left {', '.join(left)}")
        alive = self.box.sh(
            f'uid=$(id -u {NAME}) && grep -l "^Uid:[[:space:]]*$uid[[:space:]]" /proc/[0-9]*/status'
        ).stdout.strip()
        if alive:
            raise StepFailed(f"a process of {NAME} still runs after make uninstall")
        changed = [path for path, sha in kept.items() if self.sha(path) != sha]
        if changed or not self.box.sh(f"cat {STATE}/journal.jsonl").stdout.startswith(journal):
            raise StepFailed(f"make uninstall did not keep {', '.join(changed) or 'the journal'}")
        # Purge, with the uninstaller the box kept (a box from a bundle has no clone, no make).
        proc = self.box.sh(f"cd && sudo {NAME}-uninstall --purge", user=OWNER)
        if proc.returncode != 0:
            raise StepFailed(
                f"{NAME}-uninstall --purge exited {proc.returncode}: {proc.stderr.strip()}"
            )
        kept_by_box = f"/usr/local/sbin/{NAME}-uninstall /usr/local/lib/{NAME}"
        left = self.box.sh(
            f"for p in {ETC} {STATE} {kept_by_box}; do [ -e $p ] && echo $p; done"
        ).stdout.split()
        if self.box.sh(f"id {NAME}").returncode == 0:
            left.append(f"the user {NAME}")
        if left:
            raise StepFailed(f"{NAME}-uninstall --purge left {', '.join(left)}")
        if self.box.emulated:  # the purge took the box's drop-ins, the emulation's too
            emulation_dropins(self.box.root)
            self.box.sh("systemctl daemon-reload")
        return (
            f"make install of the checkout (a bundle built inside) beside the bundle's release: "
            f"current -> {after}; kept config, cards and journal; uninstall stopped and disabled "
            f"the service and kept them; the {NAME}-uninstall it kept (--purge) removed them and "
            "itself"
        )

    # 9, update (issue 34): tools/systest/update_cut.py

    def step_update(self) -> str:
        sys.path.insert(0, str(HERE))
        import update_cut

        out = Path(self.box.root).parent / "bundles"  # the run's dir: removed with it
        start = os.environ.get("SYSTEST_UPDATE_FROM")  # CI: the previous commit's bundle
        if start and not Path(start).is_file():
            raise StepFailed(f"SYSTEST_UPDATE_FROM={start}: no such file")
        bundles = update_cut.make_bundles(
            out, self.box.emulated or "native", Path(start) if start else None, BUNDLE_PYTHON
        )
        suite = update_cut.UpdateCut(self, bundles, StepFailed, wait_for, UNIT, CLONE)
        return suite.run()


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


def emulation_dropins(merged: Path) -> None:
    """Under QEMU only: what it cannot set up taken away, unit by unit (written again after
    step 7's purge, which removes the box's)."""
    units = merged / "etc" / "systemd" / "system"
    journald = merged / "usr" / "lib" / "systemd" / "system" / "systemd-journald.service"
    dropins = {UNIT: EMULATION_DROPIN_TEXT, PHONES_UNIT: PHONES_DROPIN_TEXT}
    if journald.is_file() and "ImportCredential=" in journald.read_text():  # Debian 13's
        dropins["systemd-journald.service"] = JOURNALD_DROPIN_TEXT
    for unit, text in dropins.items():
        (units / f"{unit}.d").mkdir(parents=True, exist_ok=True)
        (units / f"{unit}.d" / EMULATION_DROPIN).write_text(text)


def furnish(merged: Path, pip_conf_text: str, pip_files: list[str], emulated: bool = False) -> None:
    """Before the first boot: a hostname of its own, and the host's pip configuration and CA
    bundle (pip inside must reach the same package index as pip here); under emulation, the
    drop-in that takes away what QEMU cannot set up."""
    if emulated:
        emulation_dropins(merged)
    (merged / "etc" / "hostname").write_text(f"{HOSTNAME}\n")
    hosts = merged / "etc" / "hosts"
    hosts.write_text(f"127.0.1.1\t{HOSTNAME}\n" + (hosts.read_text() if hosts.exists() else ""))
    (merged / "etc" / "pip.conf").write_text(pip_conf_text)
    for path in [*pip_files, CA_BUNDLE]:
        if Path(path).is_file():
            target = merged / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def prepare(box: Container, merged: Path) -> None:
    """Inside the booted root: the owner (with sudo) and the checkout in their home."""
    proc = box.sh(
        f"useradd --create-home --shell /bin/bash {OWNER} && "
        f"echo '{OWNER} ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/{OWNER} && "
        f"chmod 0440 /etc/sudoers.d/{OWNER}"
    )
    if proc.returncode != 0:
        raise StepFailed(f"cannot create the owner: {proc.stderr.strip()}")
    clone = merged / CLONE.lstrip("/")
    for name in checkout_files(REPO):
        target = clone / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    box.sh(f"chown -R {OWNER}:{OWNER} {CLONE}")


def services_start(box: Container) -> None:
    """Skip (exit 77) where the emulated root's systemd starts no service at all: Debian 13's
    (257, which starts each through systemd-executor) fails even `/bin/true` under the QEMU
    of a Debian 12 host (7.2) with "Result: resources", as it does dbus.service. (newer_qemu_for
    gives it a newer QEMU first where the probe says so: this is the proof under systemd.)"""
    unit = "/run/systemd/system/systest-probe.service"
    proc = box.sh(
        f"printf '[Service]\\nType=oneshot\\nExecStart=/bin/true\\n' > {unit} && "
        "systemctl daemon-reload && systemctl start systest-probe",
        timeout=60,
    )
    result = box.sh("systemctl show -p Result --value systest-probe").stdout.strip()
    box.sh(f"rm -f {unit}; systemctl daemon-reload")
    if proc.returncode != 0:
        raise Skip(
            f"the emulated root's systemd starts no service under this QEMU (`/bin/true` as a "
            f"unit: result {result!r}); a newer qemu-user-static may"
        )


def newer_qemu_for(
    stack: contextlib.ExitStack, merged: Path, arch: str, recipe: Recipe, log: Log
) -> str:
    """The QEMU the root's systemd can start services under, for the rest of STACK: the host's,
    or Debian 13's registered on top of it (tools/pitest/newer_qemu.py); Skip where none."""
    import newer_qemu  # beside piroot, on the path main gave it
    import piroot

    cpu = piroot.ARCHES[arch][0]
    base = piroot.cache_dir(dict(os.environ), arch).parent  # ~/.cache/trap-companion
    mirror = os.environ.get("SYSTEST_MIRROR") or recipe.mirror
    try:
        return newer_qemu.for_systemd(stack, merged, cpu, base, mirror, log.write)
    except newer_qemu.Unavailable as err:
        raise Skip(f"the root's systemd needs a newer QEMU than the host's: {err}") from err


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
    global BUNDLE_PYTHON
    BUNDLE_PYTHON = SUITES[recipe.suite][1]
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
