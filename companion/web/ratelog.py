"""A log line per kind of trouble and minute, with how many came: never a line per event.

What a LAN neighbour can make happen as often as it likes (a refused connection, a malformed
request, the process out of file handles) must not fill the journal: the first of a kind is
logged at once, later ones are counted, and the next line of that kind, a minute on at the
earliest, says how many there were.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

EVERY_SECONDS = 60.0


@dataclass
class _Kind:
    logged_at: float
    count: int = 0


@dataclass
class RateLog:
    logger: logging.Logger
    every: float = EVERY_SECONDS
    clock: Callable[[], float] = time.monotonic
    kinds: dict[str, _Kind] = field(default_factory=dict)

    def note(self, kind: str, text: str, level: int = logging.WARNING) -> None:
        """One more of ``kind``; logged (``text`` and the count) at most once per ``every``."""
        now = self.clock()
        entry = self.kinds.get(kind)
        if entry is None:
            entry = self.kinds[kind] = _Kind(now - self.every)
        entry.count += 1
        if now - entry.logged_at < self.every:
            return
        many = "the first" if entry.count == 1 else f"{entry.count} since the last such line"
        self.logger.log(level, "%s (%s)", text, many)
        entry.logged_at, entry.count = now, 0
