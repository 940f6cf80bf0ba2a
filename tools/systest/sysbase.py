"""What the systest's parts share: the box's names and paths, the budgets, the errors, the log,
commands on the host, and the parsers its steps rely on."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
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
