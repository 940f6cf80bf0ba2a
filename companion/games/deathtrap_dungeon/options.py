"""Deathtrap Dungeon's options (the replay contract's names): players, rounds, the pig."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games import options
from companion.games.base import Option

GAME = "deathtrap-dungeon"
MIN_PLAYERS, MAX_PLAYERS = 4, 8  # the rulebook's table

OPTIONS = (
    Option(
        "players",
        "Players",
        "4",
        options.numbers(MIN_PLAYERS, MAX_PLAYERS),
    ),
    Option("rounds", "Rounds", "4", presets=options.numbers(1, 8), bounds=(1, 20)),
    Option("pig", "Pig: who leads", "left", ("left", "choose")),
)


def check_options(raw: Mapping[str, Any]) -> dict[str, Any]:
    return options.parse(GAME, OPTIONS, raw)
