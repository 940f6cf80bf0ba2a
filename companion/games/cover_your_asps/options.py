"""Cover Your Asps options, as the replay contract names them: players (1 is the solo mode),
the starting vault, how planks are chosen, how a tie is broken, and whether a seat collects
once a round or races for the treasure (the last four only for the table game)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Option
from companion.games.options import numbers, parse

GAME = "cover-your-asps"
# Rulings 8: solo has no vault, its own planking and no tiebreak; the form shows them only for
# the table game.
TABLE_GAME = (("players", numbers(2, 4)),)
PER_ROUND, RACE = "per-round", "race"
COLLECT = (PER_ROUND, RACE)
OPTIONS: tuple[Option, ...] = (
    Option("players", "Players", "2", choices=numbers(1, 4)),
    Option("vault", "First vault", "1", choices=numbers(1, 3), only_if=TABLE_GAME),
    Option("planking", "Planking", "dice", choices=("dice", "draw"), only_if=TABLE_GAME),
    Option("tiebreak", "Tiebreak", "planks", choices=("planks", "youngest"), only_if=TABLE_GAME),
    # Rulings 4: one treasure a seat a round (the default), or a race: a seat that has escaped
    # may collect again in the same round while treasure is left.
    Option("collect", "Collect", "per-round", choices=COLLECT, only_if=TABLE_GAME),
)


def check_options(raw: Mapping[str, Any]) -> dict[str, Any]:
    return parse(GAME, OPTIONS, raw)
