"""Clocks the loop can run on: the real monotonic clock, or a virtual one that moves only when
told (tests, replay, bench), so a 60-second timer costs no real time."""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...


class RealClock:
    def now(self) -> float:
        return time.monotonic()


class VirtualClock:
    """Starts at ``start`` and moves only by ``set``; readable from any thread."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def set(self, t: float) -> None:
        with self._lock:
            if t < self._now:
                raise ValueError(f"a clock never goes back ({t} < {self._now})")
            self._now = t
