"""The simulator's hand: lays the cards typed or chosen on the fake reader, one after the other.

One thread owns the fake device, so a card is never lifted by the timer of the card before it,
and a card typed 0.1 s after another is not lost: each card stays on the reader until the
driver has read it, then until it has lain its tap time or the next card is waiting to go down.
A person cannot put two cards in one place at once either.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)

TAP_SECONDS = 0.35  # a card lies on the reader this long when no other card follows it
READ_TIMEOUT = 2.0  # real seconds to wait for the driver's read; only a lost reader comes near it


class Device(Protocol):
    """What the hand needs of a fake reader: put a card down, take it away."""

    def put(self, uid: str) -> None: ...

    def lift(self) -> None: ...


class DeviceHand:
    """Adapts either fake (RDM6300: ``hold``/``release``; PN532: ``present``/``remove``)."""

    def __init__(self, device: Any) -> None:
        self.device = device

    def put(self, uid: str) -> None:
        if hasattr(self.device, "hold"):
            self.device.hold(uid)
        else:
            self.device.present(uid)

    def lift(self) -> None:
        if hasattr(self.device, "release"):
            self.device.release()
        else:
            self.device.remove()


class CardHand:
    """Taps cards in the order given, each one read before the next goes down.

    ``runner`` gives the reader runner once it exists (the app starts it); without one a card
    is simply laid for its tap time. ``on_missed`` hears of a card the driver never read.
    """

    def __init__(
        self,
        device: Device,
        runner: Callable[[], Any],
        tap_seconds: float = TAP_SECONDS,
        read_timeout: float = READ_TIMEOUT,
        on_missed: Callable[[str], None] | None = None,
    ) -> None:
        self.device = device
        self.runner = runner
        self.tap_seconds = tap_seconds
        self.read_timeout = read_timeout
        self.on_missed = on_missed or (lambda uid: None)
        self._cards: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._idle = threading.Condition()
        self._waiting = 0
        self._thread = threading.Thread(target=self._run, name="sim-hand", daemon=True)
        self._thread.start()

    def tap(self, uid: str) -> None:
        """Queue a tap of ``uid`` (any thread); it happens after the taps before it."""
        with self._idle:
            self._waiting += 1
        self._cards.put(uid)

    def wait_idle(self, timeout: float) -> bool:
        """Blocks until every queued card has been laid and lifted (tests)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._waiting == 0, timeout)

    def close(self) -> None:
        self._cards.put(None)
        self._thread.join(timeout=self.read_timeout + self.tap_seconds + 1.0)

    def _run(self) -> None:
        uid = self._cards.get()
        while uid is not None:
            try:
                uid = self._lay(uid)
            except Exception:
                log.exception("the simulator's hand failed to tap a card")
                self._done()
                uid = self._cards.get()

    def _lay(self, uid: str) -> str | None:
        """Puts ``uid`` down until it is read and its time is up or another card waits; returns
        the next card (None: stop)."""
        runner = self.runner()
        before = runner.seen_of(uid) if runner is not None else 0
        laid = time.monotonic()
        self.device.put(uid)
        if runner is not None and not runner.wait_seen_of(uid, before + 1, self.read_timeout):
            log.warning("simulated card %s was not read (%s)", uid, runner.status)
            self.on_missed(uid)
        left = self.tap_seconds - (time.monotonic() - laid)
        try:
            following = self._cards.get(timeout=max(0.0, left))
        except queue.Empty:  # no card waits: this one lies its time, then the hand waits
            self.device.lift()
            self._done()
            return self._cards.get()
        self.device.lift()
        self._done()
        return following

    def _done(self) -> None:
        with self._idle:
            self._waiting -= 1
            self._idle.notify_all()
