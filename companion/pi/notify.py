"""Telling systemd how the box is doing (Type=notify), through sdnotify.

The watchdog is the point: systemd restarts the service when WATCHDOG=1 stops arriving, so the
main loop only sends it while every worker thread (buttons, reader) is alive and the box answers
its inputs (companion/app/interpreter.py: ``answering``). A daemon whose reader thread died, or
whose every input fails, then gets restarted instead of looking "active" forever.
Outside systemd (no NOTIFY_SOCKET) every call does nothing.
"""

from __future__ import annotations

import logging
import os

import sdnotify

log = logging.getLogger(__name__)


class Notifier:
    """One connection to systemd's notification socket, or none when not run by systemd."""

    def __init__(self) -> None:
        self._sdnotify: sdnotify.SystemdNotifier | None = None
        self._warned_dead = False
        address = os.environ.get("NOTIFY_SOCKET", "")
        if not address:
            return
        # debug=True makes sdnotify raise instead of silently dropping every message when the
        # socket is unreachable, so the journal can say why systemd hears nothing.
        try:
            self._sdnotify = sdnotify.SystemdNotifier(debug=True)
        except OSError as err:
            log.warning("cannot reach systemd at NOTIFY_SOCKET=%s: %s", address, err)

    @property
    def enabled(self) -> bool:
        return self._sdnotify is not None

    def ready(self, status: str | None = None) -> None:
        """The main loop runs: systemd may consider the service started."""
        self._send("READY=1" + (f"\nSTATUS={_one_line(status)}" if status else ""))

    def status(self, text: str) -> None:
        """What `systemctl status` shows, e.g. which parts are connected."""
        self._send(f"STATUS={_one_line(text)}")

    def stopping(self) -> None:
        self._send("STOPPING=1")

    def watchdog(self, workers_alive: bool, answering: bool = True) -> bool:
        """Pet the watchdog if every worker is alive and the loop answers its inputs (the app
        says why when it does not); return whether it was petted."""
        if not answering:
            return False
        if not workers_alive:
            if not self._warned_dead and self.enabled:
                log.error("a worker thread has stopped: no watchdog ping, systemd will restart")
                self._warned_dead = True
            return False
        self._warned_dead = False
        return self._send("WATCHDOG=1")

    def watchdog_interval(self) -> float | None:
        """Seconds between pings: half of systemd's WatchdogSec, or None without a watchdog."""
        usec = os.environ.get("WATCHDOG_USEC", "")
        if not usec:
            return None
        pid = os.environ.get("WATCHDOG_PID", "")
        if pid and pid != str(os.getpid()):
            return None  # the watchdog is meant for another process
        try:
            value = int(usec)
        except ValueError:
            log.warning("ignoring WATCHDOG_USEC=%r: not a whole number of microseconds", usec)
            return None
        if value <= 0:
            log.warning("ignoring WATCHDOG_USEC=%r: not positive", usec)
            return None
        return value / 2 / 1_000_000

    def close(self) -> None:
        if self._sdnotify is not None and self._sdnotify.socket is not None:
            self._sdnotify.socket.close()
        self._sdnotify = None

    def _send(self, message: str) -> bool:
        if self._sdnotify is None:
            return False
        try:
            self._sdnotify.notify(message)
        except OSError as err:
            # Losing a notification must never take the box down; the watchdog will notice.
            log.warning("systemd notification %r failed: %s", message.split("\n")[0], err)
            return False
        return True


def _one_line(text: str) -> str:
    """A notification is newline-separated assignments, so a status must be one line."""
    return " / ".join(part.strip() for part in text.splitlines() if part.strip())
