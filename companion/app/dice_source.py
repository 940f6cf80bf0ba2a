"""Where die faces come from: values entered from physical dice first, else the RNG.

``DiceSource`` is the box's (replay forces values into it); ``Dice`` is what it holds at one
moment, as a value: the box's step rolls from it without touching the source, and the box
takes the dice that are left afterwards (the same faces, in the same order, as rolling from
the source itself)."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from companion.games.base import Rejected


@dataclass(frozen=True)
class Dice:
    """Forced values still to come, and the random source's state after the last roll."""

    forced: tuple[int, ...]
    # random.Random.getstate(); or the system's entropy itself, which has no state to copy
    # (the daemon's: its faces cannot be foreseen anyway)
    luck: Any

    def roll(self, faces: tuple[int, ...]) -> tuple[tuple[int, ...], Dice]:
        """The rolls and the dice left; Rejected for a forced value no die has (none used)."""
        if not faces:
            return (), self
        forced, rolls = list(self.forced), []
        rng: random.Random | None = None
        for n in faces:
            if forced:
                value = forced.pop(0)
                if not 1 <= value <= n:
                    raise Rejected(f"a d{n} has no face {value}")
                rolls.append(value)
            else:
                if rng is None:
                    rng = _source(self.luck)
                rolls.append(rng.randint(1, n))
        luck = self.luck if rng is None or rng is self.luck else rng.getstate()
        return tuple(rolls), Dice(tuple(forced), luck)


def _source(luck: Any) -> random.Random:
    if isinstance(luck, random.SystemRandom):
        return luck
    rng = random.Random()
    rng.setstate(luck)
    return rng


class DiceSource:
    """Where die faces come from: values entered from physical dice first, else the RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.forced: deque[int] = deque()

    def force(self, values: Iterable[int]) -> None:
        self.forced.extend(values)

    def now(self) -> Dice:
        """The dice as they stand, for one step of the box."""
        stateless = isinstance(self.rng, random.SystemRandom)
        return Dice(tuple(self.forced), self.rng if stateless else self.rng.getstate())

    def take(self, dice: Dice) -> None:
        """The dice left after a step rolled from ``now()``."""
        self.forced = deque(dice.forced)
        if dice.luck is not self.rng:
            self.rng.setstate(dice.luck)
