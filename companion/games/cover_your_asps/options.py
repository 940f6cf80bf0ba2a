"""Cover Your Asps options, as the replay contract names them: players (1 is the solo mode),
the starting vault, how planks are chosen, and how a tie is broken."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Option
from companion.games.options import numbers, parse

GAME = "cover-your-asps"
OPTIONS: tuple[Option, ...] = (
    Option("players", "Players", "2", choices=numbers(1, 4)),
    Option("vault", "First vault", "1", choices=numbers(1, 3)),
    Option("planking", "Planking", "dice", choices=("dice", "draw")),
    Option("tiebreak", "Tiebreak", "planks", choices=("planks", "youngest")),
)


def check_options(raw: Mapping[str, Any]) -> dict[str, Any]:
    return parse(GAME, OPTIONS, raw)
