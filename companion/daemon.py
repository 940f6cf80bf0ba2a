"""The daemon around the App: real parts from config, signals, systemd notification, the
watchdog and display retries, all as deadlines on the one loop."""

from __future__ import annotations

import logging
import os
import random
import signal
from pathlib import Path
from typing import Any

from companion.app import App, Parts
from companion.core.clock import Clock, RealClock
from companion.core.config import Config
from companion.core.events import Stop
from companion.core.signals import SignalRelay
from companion.hal.display import Display, open_device
from companion.hal.pins import make_factory
from companion.pi.notify import Notifier

log = logging.getLogger(__name__)

DISPLAY_RETRY_SECONDS = 5.0
STATUS_SECONDS = 30.0
LINK_VARIABLE = "TRAP_COMPANION_PHONES_LINK"  # set by the phones' drop-in (systemd-phones.conf)


def build_parts(config: Config) -> Parts:
    factory = make_factory(config.hardware.pin_factory)
    d = config.display
    device_factory = None
    if d.driver != "none":
        device_factory = lambda: open_device(d.driver, d.i2c_port, d.i2c_address, d.rotate)  # noqa: E731
    reader = None
    if config.reader.type != "none":
        from companion.hal.readers.base import make_driver

        kind, port = config.reader.type, config.reader.port
        reader = lambda: make_driver(kind, port)  # noqa: E731
    return Parts(factory, Display(device_factory), reader, config.reader.type)


class Daemon:
    def __init__(
        self,
        config: Config,
        parts: Parts | None = None,
        clock: Clock | None = None,
        notifier: Any = None,
    ) -> None:
        self.config = config
        self.clock = clock or RealClock()
        self.notifier = notifier if notifier is not None else Notifier()
        self.app = App(
            config,
            self.clock,
            parts or build_parts(config),
            rng=random.SystemRandom(),
        )
        if parts is None:  # the real box: its frames written off the loop's thread
            self.app.display.write_in_background(self.app.loop.post)
        self._status = ""
        self.phones: Any = None  # companion.web.phones.PhoneService, only when enabled
        self.owner: Any = None  # companion.owner.server.OwnerSocket, where there is a place

    def start_phones(self) -> None:
        """The phones at the table, only when the config turns them on: otherwise nothing
        listens and nothing of the web is even imported. On the loop's thread (or before it
        runs): a taken port is retried on the loop's clock."""
        if not self.config.phones.enabled:
            return
        from companion.web.phones import PhoneService

        phones = self.config.phones
        # Under systemd the phones' server is a unit of its own (trap-companion-phones), which
        # connects to this path; this process keeps its private network (docs/architecture.md).
        link = os.environ.get(LINK_VARIABLE)
        self.phones = PhoneService(
            self.app,
            phones.port,
            apart=phones.server == "process",
            link_path=Path(link) if link else None,
        )
        self.phones.start()

    def start_owner(self) -> None:
        """The owner's commands (`trap-companion cards ...`) ask the box over a socket in its
        runtime directory (the unit's RuntimeDirectory=, or the path the environment names):
        the box stays the only writer of its state. No such directory (a laptop), no socket."""
        from companion.owner import protocol
        from companion.owner.server import OwnerSocket

        path = protocol.socket_path()
        if not path.parent.is_dir():
            return
        owner = OwnerSocket(self.app, path)
        try:
            owner.start()
        except OSError as err:
            log.warning("owner's commands: cannot listen on %s (%s)", path, err.strerror or err)
            return
        self.owner = owner

    def _watchdog(self, interval: float) -> None:
        # Tied to a loop that answers its inputs: one whose every input fails is not well.
        self.notifier.watchdog(self.app.workers_alive(), self.app.answering())
        self.app.loop.call_later(interval, lambda: self._watchdog(interval), "watchdog")

    def _display_retry(self) -> None:
        if self.app.display.retry():
            self.app.shown = None  # the display logs its own return
            self.app.refresh()  # (which re-arms the retry if it failed again)
        else:
            self._arm_display_retry()

    def _arm_display_retry(self) -> None:
        """Retry a missing display every few seconds, only while it is missing."""
        loop = self.app.loop
        if self.app.display.missing and loop.pending("display-retry") is None:
            loop.call_later(DISPLAY_RETRY_SECONDS, self._display_retry, "display-retry")

    def _report(self) -> None:
        self._arm_display_retry()
        status = self.app.status_line()
        if status != self._status:
            self._status = status
            self.notifier.status(status)
            # systemctl status shows it; the journal has the part's own line for each change.
            log.debug("status: %s", status)

    def stop(self, reason: str = "stop") -> None:
        self.app.loop.post(Stop(reason))

    def ready(self) -> None:
        """After ``app.start()``: the daemon's deadlines, then READY=1. Tests call it and drive
        the loop themselves on a virtual clock."""
        app = self.app
        interval = self.notifier.watchdog_interval()
        if interval:
            self._watchdog(interval)
        app.on_refresh.append(self._report)
        app.display.on_lost.append(self._report)  # a write in the background failed
        self._arm_display_retry()
        self._status = app.status_line()
        self.notifier.ready(self._status)
        log.info("ready: %s", self._status)

    def run(self) -> int:
        app = self.app
        app.start()
        loop = app.loop
        relay = SignalRelay((signal.SIGTERM, signal.SIGINT), self.stop)
        try:
            with relay:
                self.ready()
                self.start_phones()  # after READY: the games first, the phones a moment later
                self.start_owner()
                stop = loop.run()
                log.info("stopping (%s)", stop.reason)
                self.notifier.stopping()
        finally:
            if self.owner is not None:
                self.owner.stop()
            if self.phones is not None:
                self.phones.stop()
            app.shutdown()
        return 0
