"""Keys of the terminal to the box's buttons, at a pace a finger could keep.

A held key repeats 30 times a second or more; a real button is pressed at most about eight
times a second (its debounce plus the shortest human press). Presses that come faster are
dropped, not queued: holding `g` for a second must not go on rolling dice long after.
"""

from __future__ import annotations

from dataclasses import dataclass

KEYS: dict[str, tuple[str, bool]] = {
    "\x1b[A": ("up", False),
    "\x1b[B": ("down", False),
    "\x1bOA": ("up", False),
    "\x1bOB": ("down", False),
    "k": ("up", False),
    "j": ("down", False),
    "\r": ("ok", False),
    "\n": ("ok", False),
    "o": ("ok", False),
    "b": ("back", False),
    "\x7f": ("back", False),
    "g": ("green", False),
    "r": ("red", False),
    "K": ("up", True),
    "J": ("down", True),
    "O": ("ok", True),
    "B": ("back", True),
    "G": ("green", True),
    "R": ("red", True),
}

GAP = 0.02  # seconds between two simulated presses, longer than the debounce window
FINGER_INTERVAL = 1 / 8  # seconds: the fastest a person presses a real button again
MAX_AHEAD = 0.3  # seconds of presses allowed to wait: a press or two typed ahead, no more


@dataclass
class Pacer:
    """When each press may start, or that it is dropped.

    Presses run one after the other (a short press is known at its release, so overlapping
    presses would swap places). A press may wait for the one before it, but never more than
    MAX_AHEAD: anything later arrived faster than a finger, and is dropped.
    """

    free_at: float = 0.0  # when the last accepted press is over
    dropped: int = 0

    def admit(self, now: float, seconds: float) -> float | None:
        """Start time for a press held ``seconds`` that arrives at ``now``; None: dropped."""
        if self.free_at > now + MAX_AHEAD:
            self.dropped += 1
            return None
        start = max(now, self.free_at)
        self.free_at = start + max(seconds + GAP, FINGER_INTERVAL)
        return start


def split_keys(data: str) -> list[str]:
    """Split raw input into keys, keeping arrow-key escape sequences whole."""
    keys, i = [], 0
    while i < len(data):
        if data.startswith(("\x1b[", "\x1bO"), i) and i + 2 < len(data):
            keys.append(data[i : i + 3])
            i += 3
        else:
            keys.append(data[i])
            i += 1
    return keys
