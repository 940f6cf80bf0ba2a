"""The stand-in app (tests/game_table.py) around the pure Hostage Trap! rules. The other Hostage
Trap! tests import ``Table``; the test here checks the stand-in itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game_table import GameTable

from companion.games.hostage_trap import GAME
from companion.games.hostage_trap.state import HostageState


@dataclass
class Table(GameTable):
    game = GAME
    state: HostageState = field(init=False)

    @classmethod
    def new(cls, **options: Any) -> Table:
        return cls(options)

    def end_turns(self, n: int) -> None:
        for _ in range(n):
            assert self.do("next"), self.rejected


def test_schedules_fire_in_order_and_the_journal_folds_to_the_same_state() -> None:
    table = Table.new(players=3, turn_seconds=5)
    assert set(table.timers) == {"begin"}
    table.wait(2.5)
    assert [name for _, name in table.fired] == ["begin", "tick", "tick"]
    assert [a.name for a in table.journal] == ["begin"]  # ticks are the screen's, not journaled
    assert table.fold() == table.state
    assert table.public["timer"]["remaining"] == 3.0
