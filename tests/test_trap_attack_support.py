"""A tiny stand-in for the app around the pure Trap Attack rules: dice rolled the way the app
rolls them (``rng.randint(1, faces)``, or values forced like replay's ``dice``), a journal of
accepted actions, undo by folding all but the last. Other Trap Attack tests import ``Table``;
the tests here check the stand-in itself."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from companion.games.base import Action, Log, Outcome, Press, Rejected, Sound, Tap
from companion.games.trap_attack import GAME
from companion.games.trap_attack.state import State


def card(card_id: str, **fields: Any) -> dict[str, Any]:
    """A registry entry as the app hands it to ``control`` on a tap."""
    return {"game": "trap-attack", "card": card_id, "name": card_id, **fields}


@dataclass
class Table:
    options: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    state: State = field(init=False)
    journal: list[Action] = field(default_factory=list)
    forced: list[int] = field(default_factory=list)
    sounds: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.parsed = GAME.check_options(self.options)
        self.state = GAME.initial(self.parsed, ()).state
        self.rng = random.Random(self.seed)

    def dice(self, *values: int) -> None:
        self.forced.extend(values)

    def submit(self, action: Action) -> Outcome:
        faces = GAME.dice_for(self.state, action)
        rolls = action.rolls
        if faces and not rolls:
            rolls = tuple(
                self.forced.pop(0) if self.forced else self.rng.randint(1, n) for n in faces
            )
        action = replace(action, rolls=tuple(rolls))
        out = GAME.apply(self.state, action)
        self.state = out.state
        self.journal.append(action)
        for effect in out.effects:
            if isinstance(effect, Sound):
                self.sounds.append(effect.cue)
            elif isinstance(effect, Log):
                self.logs.append(effect.text)
        return out

    def do(self, name: str, *rolls: int, **args: Any) -> Outcome:
        return self.submit(Action(name, args, tuple(rolls)))

    def press(self, button: str) -> Action | None:
        action = GAME.control(self.state, Press(button))
        if action is not None:
            self.submit(action)
        return action

    def tap(self, card_id: str, **fields: Any) -> Action | None:
        action = GAME.control(self.state, Tap("0A1B2C3D", card(card_id, **fields)))
        if action is not None:
            self.submit(action)
        return action

    def fold(self, actions: list[Action]) -> State:
        state = GAME.initial(self.parsed, ()).state
        for action in actions:
            state = GAME.apply(state, action).state
        return state

    def undo(self) -> State:
        self.journal.pop()
        self.state = GAME.restore(self.fold(self.journal))
        return self.state

    @property
    def pub(self) -> dict[str, Any]:
        return GAME.public(self.state)

    def screen(self) -> list[str]:
        return GAME.view(self.state)[0].text_lines()


def test_forced_dice_come_first_then_the_seeded_rng():
    table = Table(seed=3)
    table.dice(2, 4)
    table.do("ai_turn")
    assert table.journal[-1].rolls == (2, 4)
    table.do("card", id="shield")
    table.do("card", id="heal-1")
    expected = random.Random(3)
    table.do("ai_turn")
    assert table.journal[-1].rolls == (expected.randint(1, 4), expected.randint(1, 6))


def test_refused_actions_leave_the_journal_alone():
    table = Table()
    with pytest.raises(Rejected):
        table.do("blocked")
    assert table.journal == []


def test_undo_folds_all_but_the_last_action():
    table = Table()
    table.dice(1, 1)
    table.do("ai_turn")
    before = table.state
    table.dice(2, 3)
    table.do("ai_turn")
    assert table.undo() == GAME.restore(before)
