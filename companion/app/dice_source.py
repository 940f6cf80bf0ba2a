"""Where die faces come from: values entered from physical dice first, else the RNG."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable

from companion.games.base import Rejected


class DiceSource:
    """Where die faces come from: values entered from physical dice first, else the RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.forced: deque[int] = deque()

    def force(self, values: Iterable[int]) -> None:
        self.forced.extend(values)

    def roll(self, faces: tuple[int, ...]) -> tuple[tuple[int, ...], list[int]]:
        """The rolls, and which forced values they used (to give back if the action fails)."""
        rolls, used = [], []
        for n in faces:
            if self.forced:
                value = self.forced.popleft()
                used.append(value)
                if not 1 <= value <= n:
                    self.forced.extendleft(reversed(used))
                    raise Rejected(f"a d{n} has no face {value}")
                rolls.append(value)
            else:
                rolls.append(self.rng.randint(1, n))
        return tuple(rolls), used

    def give_back(self, used: list[int]) -> None:
        self.forced.extendleft(reversed(used))
