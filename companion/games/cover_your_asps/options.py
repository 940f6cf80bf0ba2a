"""Cover Your Asps options, as the replay contract names them: players (1 is the solo mode),
the starting vault, how planks are chosen, and how a tie is broken (the last three only for
the table game)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Option
from companion.games.options import numbers, parse

GAME = "cover-your-asps"
# Rulings 8: solo has no vault, its own planking and no tiebreak; the form shows them only for
# the table game.
TABLE_GAME = (("players", numbers(2, 4)),)
OPTIONS: tuple[Option, ...] = (
    Option("players", "Players", "2", choices=numbers(1, 4)),
    Option("vault", "First vault", "1", choices=numbers(1, 3), only_if=TABLE_GAME),
    Option("planking", "Planking", "dice", choices=("dice", "draw"), only_if=TABLE_GAME),
    Option("tiebreak", "Tiebreak", "planks", choices=("planks", "youngest"), only_if=TABLE_GAME),
)


def check_options(raw: Mapping[str, Any]) -> dict[str, Any]:
    return parse(GAME, OPTIONS, raw)
