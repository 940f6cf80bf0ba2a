"""The reader worker thread and the presence state machine that turns reads into taps.

The worker owns reconnects, and no exception ends the thread while the process lives (a silently
dead reader thread under an "active" service is the classic failure of Pi RFID daemons). A port
that is gone (a USB reader pulled out) is looked for with a stat a few times a second and opened
the moment it is back, however long it was away; a port that is there but fails is retried with
a growing backoff. Presence is pure and clock-free, so a card resting on the reader is one tap,
never a stream of them.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence

from companion.hal.readers.base import ReaderDriver

logger = logging.getLogger(__name__)

DEFAULT_BACKOFF = (0.5, 1, 2, 5, 10)
PROBE_INTERVAL = 0.25  # between looks for a missing port: one stat, no open


class ReaderRunner:
    """Opens the driver, hands every read UID to ``on_seen`` and reconnects after failures.

    ``on_seen`` and ``on_status`` run in the worker thread: they must only enqueue. A status
    is reported when it changes, and only logged at debug level: the consumer says what the
    owner needs to read (once per outage). ``wait(seconds)`` sleeps between reconnects and
    returns True when the runner should stop; by default it waits on the runner's stop event.
    """

    def __init__(
        self,
        driver_factory: Callable[[], ReaderDriver],
        on_seen: Callable[[str], None],
        on_status: Callable[[str], None],
        backoff: Sequence[float] = DEFAULT_BACKOFF,
        wait: Callable[[float], bool] | None = None,
        probe_interval: float = PROBE_INTERVAL,
    ) -> None:
        if not backoff or any(delay < 0 for delay in backoff):
            raise ValueError(f"reader backoff must be non-negative delays, not {backoff!r}")
        if probe_interval <= 0:
            raise ValueError(f"reader probe interval must be positive, not {probe_interval!r}")
        self._probe_interval = probe_interval
        self._driver_factory = driver_factory
        self._on_seen = on_seen
        self._on_status = on_status
        self._backoff = tuple(backoff)
        self._stop = threading.Event()
        self._wait = wait or self._stop.wait
        self._thread: threading.Thread | None = None
        self._driver: ReaderDriver | None = None  # the open one, so stop() can cancel its read
        self._ready = threading.Event()  # the port is open and the chip answered
        self._seen = threading.Condition()
        self._seen_count = 0
        self._seen_by_uid: dict[str, int] = {}
        self._status = "reader starting"

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def status(self) -> str:
        return self._status

    @property
    def seen_count(self) -> int:
        with self._seen:
            return self._seen_count

    def start(self) -> None:
        if self.alive:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="card-reader", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Asks the worker to finish; True once it has."""
        self._stop.set()
        cancel = getattr(self._driver, "cancel", None)
        if cancel is not None:
            try:
                cancel()
            except Exception:
                logger.debug("cancelling the card reader's read failed", exc_info=True)
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def wait_seen(self, count: int, timeout: float) -> bool:
        """Blocks until ``count`` UIDs in total have been handed to ``on_seen``."""
        with self._seen:
            return self._seen.wait_for(lambda: self._seen_count >= count, timeout)

    def seen_of(self, uid: str) -> int:
        """How many reads of this one card have been handed to ``on_seen`` so far."""
        with self._seen:
            return self._seen_by_uid.get(uid, 0)

    def wait_seen_of(self, uid: str, count: int, timeout: float) -> bool:
        """Blocks until ``count`` reads of this card have been handed on. A total count is not
        enough for whoever presents cards one after the other: a read of the card before,
        still on its way, would pass for the new card's."""
        with self._seen:
            return self._seen.wait_for(lambda: self._seen_by_uid.get(uid, 0) >= count, timeout)

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                driver = self._driver_factory()
                came_back = self._await_port(driver)
                if came_back is None:
                    break
                if came_back:
                    failures = 0  # a port that was away is opened at once, not after a backoff
                if self._serve(driver):
                    failures = 0
            except Exception as exc:
                logger.exception("card reader worker failed; it carries on")
                self._report(f"reader error: {exc}")
            if self._stop.is_set():
                break
            delay = self._backoff[min(failures, len(self._backoff) - 1)]
            failures += 1
            if self._wait(delay):
                break

    def _await_port(self, driver: ReaderDriver) -> bool | None:
        """Waits, with a cheap look every probe interval, until the driver's device path exists.

        False if it was there at once, True if it came back, None if the runner stops first.
        """
        path = getattr(driver, "port", None)
        if path is None or os.path.exists(path):
            return False
        self._report(_missing(path))
        while not os.path.exists(path):
            if self._stop.is_set() or self._wait(self._probe_interval):
                return None
        return True

    def _serve(self, driver: ReaderDriver) -> bool:
        """One connection: open, read until it fails or stop. True if the port opened."""
        opened = False
        try:
            self._driver = driver
            driver.open()
            opened = True
            self._report(f"reader ready: {driver.describe()}")
            while not self._stop.is_set():
                for uid in driver.read_uids():
                    self._deliver(uid)
        except OSError as exc:  # serial.SerialException is an OSError
            path = getattr(driver, "port", None)
            gone = path is not None and not os.path.exists(path)
            self._report(_missing(path) if gone else f"reader lost: {exc}")
        finally:
            self._driver = None
            try:
                driver.close()
            except Exception:
                logger.exception("closing the card reader failed")
        return opened

    def _deliver(self, uid: str) -> None:
        try:
            self._on_seen(uid)
        except Exception:
            logger.exception("card reader consumer failed on %s", uid)
        with self._seen:
            self._seen_count += 1
            self._seen_by_uid[uid] = self._seen_by_uid.get(uid, 0) + 1
            self._seen.notify_all()

    def wait_ready(self, timeout: float) -> bool:
        """Block until the reader is open (tests and replay: no tap may be lost to start-up)."""
        return self._ready.wait(timeout)

    def _report(self, text: str) -> None:
        if text.startswith("reader ready"):
            self._ready.set()
        else:
            self._ready.clear()
        if text == self._status:  # a reader that keeps failing the same way says it once
            return
        self._status = text
        logger.debug("%s", text)
        try:
            self._on_status(text)
        except Exception:
            logger.exception("card reader status consumer failed")


def _missing(path: str) -> str:
    return f"reader lost: {path} does not exist"


class Presence:
    """Which card is on the reader, from timestamped reads; the app owns the clock.

    A card counts as taken away after ``silence`` seconds without a read. A read of the same
    card after that is a new tap; a different card replaces the present one at once.
    """

    def __init__(self, silence: float = 0.5) -> None:
        if silence <= 0:
            raise ValueError(f"card removal silence must be positive, not {silence!r}")
        self.silence = silence
        self._uid: str | None = None
        self._last_seen = 0.0

    @property
    def current(self) -> str | None:
        return self._uid

    def seen(self, uid: str, now: float) -> list[tuple[str, str]]:
        events = self.expire(now)
        if uid == self._uid:
            self._last_seen = max(self._last_seen, now)
            return events
        if self._uid is not None:
            events.append(("removed", self._uid))
        self._uid = uid
        self._last_seen = now
        events.append(("tap", uid))
        return events

    def deadline(self) -> float | None:
        if self._uid is None:
            return None
        return self._last_seen + self.silence

    def expire(self, now: float) -> list[tuple[str, str]]:
        deadline = self.deadline()
        if self._uid is None or deadline is None or now < deadline:
            return []
        uid, self._uid = self._uid, None
        return [("removed", uid)]
