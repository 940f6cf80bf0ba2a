"""The steps' common ground: the box they run in, the service's state, its log, the installs."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import sysbase
from container import Container, failure_tail
from rootfs import host_arch
from sysbase import CLONE, INSTALL, NAME, OWNER, REPO, UNIT, Log, StepFailed


class Steps:
    """What every step stands on: the box, the log, the unit's state and its log lines, the
    install from the checkout or from a bundle."""

    def __init__(self, box: Container, log: Log) -> None:
        self.box = box
        self.log = log
        self.good_config = ""
        self.played: dict[str, Any] = {}
        self.plain_debian = False  # the bundles have no lgpio: bundle_install

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
             "--python", sysbase.BUNDLE_PYTHON, "--out", str(out), "--plain-debian"],
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
            where += (
                f"; no lgpio (none for Python {sysbase.BUNDLE_PYTHON} in plain Debian: mock pins)"
            )
        return proc, f"{bundle.name}, {bundle.stat().st_size / 2**20:.1f} MiB, {where}"

    def sha(self, path: str) -> str:
        proc = self.box.sh(f"sha256sum {shlex.quote(path)}")
        return (
            proc.stdout.split()[0] if proc.returncode == 0 else f"missing ({proc.stderr.strip()})"
        )
