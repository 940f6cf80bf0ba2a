"""A tiny stand-in for the app around the pure Trapwords rules: a virtual clock, the schedules
as deadlines fired in order, a journal of accepted actions. Other Trapwords tests import
``Table``; the tests here check that the stand-in itself behaves like the app's loop."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from companion.games.base import Action, Cancel, Log, Outcome, Press, Rejected, Schedule, Sound
from companion.games.trapwords import GAME
from companion.games.trapwords.state import TrapwordsState


@dataclass
class Table:
    """Drives GAME like the app does, on a clock that moves only when told."""

    options: dict[str, Any]
    rolls: tuple[int, ...] = ()
    now: float = 0.0
    state: TrapwordsState = field(init=False)
    timers: dict[str, tuple[float, Action]] = field(default_factory=dict)
    journal: list[Action] = field(default_factory=list)
    sounds: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    fired: list[tuple[float, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.options = GAME.check_options({k: str(v) for k, v in self.options.items()})
        self.state = self._effects(GAME.initial(self.options, self.rolls))

    @classmethod
    def new(cls, rolls: tuple[int, ...] = (), **options: Any) -> Table:
        options.setdefault("monster", "dragon")
        return cls(options, rolls)

    def _effects(self, outcome: Outcome) -> Any:
        for effect in outcome.effects:
            if isinstance(effect, Sound):
                self.sounds.append(effect.cue)
            elif isinstance(effect, Log):
                self.logs.append(effect.text)
            elif isinstance(effect, Schedule):
                self.timers[effect.key] = (self.now + effect.seconds, effect.action)
            elif isinstance(effect, Cancel):
                self.timers.pop(effect.key, None)
        return outcome.state

    def do(self, name: str, /, at: float | None = None, **args: Any) -> bool:
        """Apply an action now (or at ``at``, moving the clock there first)."""
        if at is not None:
            self.now = at
        action = Action(name, {k: str(v) for k, v in args.items()}, at=self.now)
        try:
            outcome = GAME.apply(self.state, action)
        except Rejected as err:
            self.rejected.append(err.reason)
            return False
        self.journal.append(action)
        self.state = self._effects(outcome)
        return True

    def press(self, button: str, long: bool = False) -> bool:
        action = GAME.control(self.state, Press(button, long))
        if action is None:
            return False
        return self.do(action.name, **dict(action.args))

    def wait(self, seconds: float, late: float = 0.0) -> None:
        """Move the clock, firing due schedules in order (each ``late`` seconds after its
        deadline, as a busy real loop would)."""
        target = self.now + seconds
        while self.timers:
            key, (due, action) = min(self.timers.items(), key=lambda kv: kv[1][0])
            if due + late > target + 1e-9:
                break
            del self.timers[key]
            self.fired.append((due + late, action.name))
            self.do(action.name, at=due + late, **dict(action.args))
        self.now = max(self.now, target)

    @property
    def public(self) -> dict[str, Any]:
        return GAME.public(self.state)

    @property
    def remaining(self) -> float:
        return self.public["timer"]["remaining"]

    def fold(self) -> TrapwordsState:
        """The state rebuilt from the journal, as the app does after a power cut."""
        state = GAME.initial(self.options, self.rolls).state
        for action in self.journal:
            state = GAME.apply(state, action).state
        return state

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
