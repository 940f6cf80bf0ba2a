"""A turn timer as pure data, shared by Trapwords and Hostage Trap!: remaining time is worked
out from ``Action.at`` values, never from a clock, and the app is asked (Schedule/Cancel) to
fire the timeout and the ticks.

Ticks land on whole seconds of remaining time, each computed from the tick's own ``at``, so a late
tick makes the next one shorter instead of pushing every later tick back (no drift). The timeout
is scheduled once per start or resume, for the whole remaining time.

Ticks are the screen's business: they refresh the digits and sound the last seconds, and are
never journaled (``Schedule.journal`` is false), so a timed game writes lines per turn (start,
pause, resume, timeout, the turn's end), not per second. What the time was when play stopped
(an undo, a power cut) is worked out instead from those lines and the moment play stopped
(``frozen``): exactly what the screen showed then.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from companion.games.base import Action, Cancel, Effect, Schedule

# Float slack when finding the next whole second: 35.0000001 left is "35", not "just above 35".
EPSILON = 1e-6

TIMER_KEYS = ("timeout", "tick", "read")


@dataclass(frozen=True)
class Timer:
    """``limit``: this turn's length. While running, remaining = remaining_at_start minus the
    time since ``started_at``; while stopped, remaining_at_start is what is left."""

    limit: float
    remaining_at_start: float
    started_at: float | None = None
    running: bool = False

    def remaining(self, at: float) -> float:
        if not self.running or self.started_at is None:
            return max(0.0, self.remaining_at_start)
        return max(0.0, self.remaining_at_start - (at - self.started_at))

    def used(self, at: float) -> float:
        return max(0.0, self.limit - self.remaining(at))

    def fraction_left(self, at: float) -> float:
        return self.remaining(at) / self.limit if self.limit > 0 else 0.0


def fresh(limit: float) -> Timer:
    return Timer(limit=limit, remaining_at_start=limit)


def next_tick(left: float) -> tuple[Effect, ...]:
    """Schedule the tick at the next lower whole second of remaining time (none below 1 s:
    the timeout covers 0)."""
    mark = math.ceil(left - EPSILON) - 1
    if mark < 1:
        return ()
    return (Schedule("tick", left - mark, Action("tick"), journal=False),)


def start(timer: Timer, at: float) -> tuple[Timer, tuple[Effect, ...]]:
    """Run from ``at`` with what is left (a fresh turn or a resume)."""
    left = timer.remaining_at_start
    running = replace(timer, started_at=at, running=True)
    return running, (Schedule("timeout", left, Action("timeout")), *next_tick(left))


def stop(timer: Timer, at: float) -> Timer:
    """Freeze the remaining time as of ``at``."""
    return replace(timer, remaining_at_start=timer.remaining(at), started_at=None, running=False)


def frozen(timer: Timer, last_at: float, at: float | None = None) -> Timer:
    """The timer stopped as play stopped at ``at`` (None: at ``last_at``, the last journaled
    change): a running timer keeps what the screen showed at that moment, the whole second of the
    last tick since ``last_at`` (ticks stop at 1 s), or the time left at ``last_at`` itself if
    no tick came between. A stopped timer stays as it is."""
    if not timer.running:
        return timer
    left = timer.remaining(last_at)
    if at is not None and at > last_at:
        shown = max(1, math.ceil(timer.remaining(at) - EPSILON))
        left = min(left, float(shown))
    return replace(timer, remaining_at_start=left, started_at=None, running=False)


def cancel_all() -> tuple[Effect, ...]:
    return tuple(Cancel(key) for key in TIMER_KEYS)


def show(seconds: float) -> str:
    """Big digits as a sand timer reads: whole seconds rounded up; m:ss from 100 s."""
    whole = max(0, math.ceil(seconds - EPSILON))
    if whole >= 100:
        return f"{whole // 60}:{whole % 60:02d}"
    return str(whole)
