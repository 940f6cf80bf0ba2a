"""The day, for dating results, only once the wall clock is known to be right.

A Pi has no real-time clock: it boots at 1970, or at its last shutdown (fake-hwclock), and
steps to the real time when NTP answers. systemd-timesyncd marks that moment with a file; until
it exists, a result is undated (and dated once the clock is right, see ``Records.sync``), never
1970. A machine without timesyncd (a laptop running the simulator) is trusted from the day the
box was first released on."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from pathlib import Path

SYNCHRONIZED = Path("/run/systemd/timesync/synchronized")  # timesyncd touches it when synced
EARLIEST = datetime.date(2025, 1, 1)  # a clock before this was never set
_synchronized: set[Path] = set()  # flags seen: /run's files live till the reboot


def today(flag: Path = SYNCHRONIZED, now: Callable[[], float] = time.time) -> str:
    """The day as YYYY-MM-DD, or "" while the clock is not known to be right: timesyncd runs
    here (its folder is there) and has not synchronized yet, or the clock is before EARLIEST."""
    day = datetime.date.fromtimestamp(now())
    if flag in _synchronized or flag.exists():
        _synchronized.add(flag)  # timesyncd's flag stays till the reboot: no stat on each step
        return day.isoformat()
    if flag.parent.exists() or day < EARLIEST:
        return ""
    return day.isoformat()
