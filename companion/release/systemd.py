"""The box's unit under systemd, for the update: restart it and watch it prove itself.

Proof is systemd's own view: Type=notify makes the unit "active (running)" only after READY=1,
within TimeoutStartSec, so a blocking ``systemctl restart`` succeeds exactly when the new
release said READY in time. Then the same process must stay up ``stay_seconds``: a crash, the
watchdog or an exit gives it a new MainPID (Restart=on-failure) or leaves it failed. systemd is
outside us and tells nothing unasked, so the watch asks ``systemctl show`` twice a second.
"""

from __future__ import annotations

import logging
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

UNIT = "trap-companion.service"
UNIT_DIR = Path("/etc/systemd/system")
PROPS = ("ActiveState", "SubState", "MainPID", "Result", "ExecMainStatus", "TimeoutStartUSec")
_SPAN = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}

Run = Callable[..., subprocess.CompletedProcess[str]]


def _run(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    log.debug("$ %s", " ".join(cmd))
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def seconds(span: str) -> float:
    """systemd's "1min 30s", "90s", "500ms"; 0 for "infinity" or ""."""
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)\s*(us|ms|min|s|h)", span):
        total += float(number) * _SPAN[unit]
    return total


def why_down(show: dict[str, str]) -> str:
    """What ``systemctl show`` says about a unit that is not running, in a few words."""
    result = show.get("Result", "")
    status = show.get("ExecMainStatus", "")
    if result == "watchdog":
        return "stopped answering: killed by the watchdog"
    if result == "timeout":
        return "no READY within its start timeout"
    if result == "start-limit-hit":
        return "restarted too often (start limit)"
    if result == "exit-code" or (status not in ("", "0") and result in ("", "success")):
        return f"exited with status {status}"
    if result == "signal":
        return f"killed by signal {status}"
    active, sub = show.get("ActiveState"), show.get("SubState")
    if not active:  # systemctl answered nothing (systemd busy, or the unit gone)
        return "systemd did not say what became of it"
    state = f"{active}/{sub}" if sub else active
    return f"it is {state}" + (f", result {result}" if result and result != "success" else "")


@dataclass
class Systemd:
    unit: str = UNIT
    run: Run = _run
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    interval: float = 0.5
    _restart_failed: bool = field(default=False, init=False)

    def show(self) -> dict[str, str]:
        args = [f"-p{p}" for p in PROPS]
        out = self.run(["systemctl", "show", self.unit, *args]).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def restart(self) -> None:
        """A blocking restart: with Type=notify it returns once READY=1 came, or the start
        failed (exit, timeout). The start limit's count starts afresh for the new release."""
        self.run(["systemctl", "reset-failed", self.unit])
        timeout = seconds(self.show().get("TimeoutStartUSec", "")) or 90.0
        try:
            proc = self.run(["systemctl", "restart", self.unit], timeout=timeout + 30)
        except subprocess.TimeoutExpired:
            self._restart_failed = True
            return
        self._restart_failed = proc.returncode != 0
        if self._restart_failed:
            log.info("systemctl restart %s: %s", self.unit, proc.stderr.strip())

    def prove(self, stay_seconds: float) -> str | None:
        show = self.show()
        if self._restart_failed or (show.get("ActiveState"), show.get("SubState")) != (
            "active",
            "running",
        ):
            return f"no READY: {why_down(show)}"
        return watch(self.show, show.get("MainPID", ""), stay_seconds, self.clock, self.sleep,
                     self.interval)  # fmt: skip


def watch(
    show: Callable[[], dict[str, str]],
    pid: str,
    stay_seconds: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    interval: float = 0.5,
) -> str | None:
    """None when the unit stays active (running) with process ``pid`` for ``stay_seconds``."""
    until = clock() + stay_seconds
    while clock() < until:
        sleep(min(interval, max(0.0, until - clock())))
        now = show()
        if (now.get("ActiveState"), now.get("SubState")) != ("active", "running"):
            return f"down {stay_seconds - (until - clock()):.0f} s after READY: {why_down(now)}"
        if now.get("MainPID") != pid:
            why = f": {why_down(now)}" if now.get("Result") not in ("", "success") else ""
            return f"restarted {stay_seconds - (until - clock()):.0f} s after READY{why}"
    return None
