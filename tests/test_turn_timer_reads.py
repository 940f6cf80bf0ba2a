"""Hostage Trap!'s turn timer cannot read as a clock (issue 30, point 12): the seat and the
seconds are named apart ("S1 56s", never "1 · 56", which reads 1:56), on the OLED and on the
phone."""

from __future__ import annotations

import re

from test_hostage_trap_support import Table

from companion.games.hostage_trap import GAME


def test_the_oled_names_the_seat_and_the_seconds_apart() -> None:
    table = Table.new(players=3, turn_seconds=120)
    table.wait(64)
    assert GAME.view(table.state)[0].big == "S1 56s"
    table = Table.new(players=3, turn_seconds=150)
    table.wait(10)
    assert GAME.view(table.state)[0].big == "S1 2:20"  # from 100 s on: minutes and seconds
    for big in ("S1 56s", "S1 2:20"):
        assert not re.fullmatch(r"\d+\D+\d+", big)  # no bare number, a sign, a number
