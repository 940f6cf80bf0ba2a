"""A person's pace for each paired phone's presses: a token bucket per phone.

A finger presses a few times a second at most; a phone (or a script holding its cookie) that
presses faster is refused (HTTP 429) before anything reaches the box's queue, so no phone can
fill the box's loop or its journal with presses nobody made. A burst (a quick double press,
presses queued while the phone's page reconnected) passes whole.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

PRESSES_PER_SECOND = 5.0  # sustained: quicker than any hand on six buttons
BURST = 10  # presses at once after a pause
KEEP = 256  # phones remembered at most; the idle ones are let go first


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class Pace:
    rate: float = PRESSES_PER_SECOND
    burst: int = BURST
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def allow(self, phone: str) -> bool:
        """One press of ``phone`` (any stable key: its token's hash); False beyond its pace."""
        now = self.clock()
        with self._lock:
            bucket = self._buckets.get(phone)
            if bucket is None:
                if len(self._buckets) >= KEEP:
                    self._let_go(now)
                bucket = self._buckets[phone] = _Bucket(float(self.burst), now)
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.rate)
            bucket.at = now
            if bucket.tokens < 1.0:
                return False
            bucket.tokens -= 1.0
            return True

    def wait(self, phone: str) -> float:
        """Seconds until ``phone`` may press again (for Retry-After)."""
        with self._lock:
            bucket = self._buckets.get(phone)
            if bucket is None or bucket.tokens >= 1.0:
                return 0.0
            return (1.0 - bucket.tokens) / self.rate

    def _let_go(self, now: float) -> None:
        """Forget the phones whose bucket is full again (they lose nothing), else the oldest."""
        full = [
            k for k, b in self._buckets.items() if b.tokens + (now - b.at) * self.rate >= self.burst
        ]
        for key in full or [min(self._buckets, key=lambda k: self._buckets[k].at)]:
            del self._buckets[key]
