"""A tiny stand-in for the app around the pure Trapwords rules: a virtual clock, the schedules
as deadlines fired in order, a journal of accepted actions. Other Trapwords tests import
``Table``; the tests here check that the stand-in itself behaves like the app's loop."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from game_table import GameTable

from companion.games.trapwords import GAME
from companion.games.trapwords.state import TrapwordsState


@dataclass
class Table(GameTable):
    """Drives the Trapwords GAME like the app does, on a clock that moves only when told."""

    game = GAME
    state: TrapwordsState = field(init=False)

    @classmethod
    def new(cls, rolls: tuple[int, ...] = (), **options: Any) -> Table:
        options.setdefault("monster", "dragon")
        return cls(options, rolls)

    @property
    def remaining(self) -> float:
        return self.public["timer"]["remaining"]

    def play_turn(self, result: str, seconds: float = 5.0) -> None:
        """Start the current turn (pickup or not) and end it after ``seconds`` of clue time."""
        assert self.do("start"), self.rejected
        if self.state.phase == "waiting":
            assert self.do("go")
        self.wait(self.options["read_seconds"] if self.state.phase == "reading" else 0)
        self.wait(seconds)
        if result == "wrong":
            for _ in range(self.state.guesses_left):
                assert self.do("wrong")
        elif result == "timeout":
            self.wait(self.state.timer.limit + 1)
        else:
            assert self.do(result), self.rejected

    def play_round(self, first: str, second: str) -> None:
        self.play_turn(first)
        self.play_turn(second)


def test_schedules_fire_in_deadline_order_and_cancel_drops_them() -> None:
    table = Table.new(start_mode="official", read_seconds=3, seconds=5)
    table.do("start")
    assert set(table.timers) == {"read"}
    table.wait(4.5)
    assert table.fired == [(3.0, "run"), (4.0, "tick")]
    table.do("pause")
    assert table.timers == {}
    table.wait(100)
    assert table.state.phase == "paused"


def test_a_late_loop_stamps_actions_late() -> None:
    table = Table.new(start_mode="pickup", seconds=3)
    table.do("start")
    table.wait(1.5, late=0.02)
    assert table.fired == [(pytest.approx(1.02), "tick")]


def test_fold_rebuilds_the_same_state() -> None:
    table = Table.new(start_mode="pickup")
    table.play_round("correct", "trap")
    table.do("start")
    table.wait(3.3)
    assert table.fold() == table.state
    assert replace(table.fold(), last_at=0.0) != table.state
