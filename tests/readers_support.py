"""Helpers for the card reader tests: collecting reads and statuses across threads."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from companion.hal.readers.base import ReaderDriver


def read_until(driver: ReaderDriver, count: int, timeout: float = 1.0) -> list[str]:
    """Calls ``read_uids`` until ``count`` UIDs arrived or ``timeout`` passed."""
    uids: list[str] = []
    deadline = time.monotonic() + timeout
    while len(uids) < count and time.monotonic() < deadline:
        uids.extend(driver.read_uids())
    return uids


def read_for(driver: ReaderDriver, seconds: float) -> list[str]:
    """Every UID ``read_uids`` returns during ``seconds``."""
    uids: list[str] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        uids.extend(driver.read_uids())
    return uids


class Recorder:
    """A thread-safe list a worker thread appends to while the test waits on it."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._changed = threading.Condition()

    def __call__(self, item: str) -> None:
        with self._changed:
            self.items.append(item)
            self._changed.notify_all()

    def wait_for(self, predicate: Callable[[list[str]], bool], timeout: float = 1.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: predicate(list(self.items)), timeout)
