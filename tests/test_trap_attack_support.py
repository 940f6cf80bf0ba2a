"""A tiny stand-in for the app around the pure Trap Attack rules: dice rolled the way the app
rolls them (``rng.randint(1, faces)``, or values forced like replay's ``dice``), a journal of
accepted actions, undo by folding all but the last, and the players' menu and its questions
walked with the kit's own walkers (ui/menus.py) and the game's hooks, as the app walks them.
Other Trap Attack tests import ``Table``; the tests here check the stand-in itself."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from companion.games.base import (
    Action,
    Ask,
    Log,
    Outcome,
    Pages,
    Press,
    Rejected,
    Reply,
    Sound,
    Tap,
)
from companion.games.trap_attack import GAME
from companion.games.trap_attack.state import State
from companion.ui import menus
from companion.ui.screen import Lights


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
    menu: menus.FormMenu | menus.PageMenu | None = None  # the players' menu, as the app keeps it
    # The race starts with the pawn dice (How to Play: Starting): unless None, the table rolls
    # them at once so that this seat starts, and forgets the roll's sounds and lines.
    first: str | None = "1"

    def __post_init__(self) -> None:
        self.parsed = GAME.check_options(self.options)
        self.state = GAME.initial(self.parsed, ()).state
        self.rng = random.Random(self.seed)
        if self.first is not None:
            seats = self.state.seats
            self.do("first_player", *(6 if s == self.first else 1 for s in seats))
            self.sounds.clear()
            self.logs.clear()

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
        self.menu = None  # play went on: the question that was a part of it closes
        for effect in out.effects:
            if isinstance(effect, Sound):
                self.sounds.append(effect.cue)
            elif isinstance(effect, Log):
                self.logs.append(effect.text)
        asked = GAME.next_question(self.state)
        if asked is not None:
            self.answer(asked)
        return out

    def do(self, name: str, *rolls: int, **args: Any) -> Outcome | None:
        """``do`` in replay: an action, or the question it opens (``do ask form=KIND``)."""
        action = Action(name, args, tuple(rolls))
        opened = GAME.opens(self.state, action)
        if opened is not None:
            self.answer(opened)
            return None
        return self.submit(action)

    def answer(self, reply: Reply) -> Action | None:
        """What the app does with a control map's reply; the action submitted, if any. A refusal
        raises Rejected and leaves everything as it was."""
        if isinstance(reply, Action):
            self.submit(reply)
            return reply
        if isinstance(reply, Ask):
            if len(reply.forms) == 1 and reply.forms[0].refused:
                raise Rejected(reply.forms[0].refused)
            before = self.menu
            try:
                return self._command(menus.FormMenu(reply).start())
            except Rejected:
                self.menu = before
                raise
        if isinstance(reply, Pages):
            self.menu = menus.PageMenu(reply)
        return None

    def _command(self, pressed: tuple[Any, menus.Command]) -> Action | None:
        """A press gives the menu it leads to and what to do (ui/menus.py: menus are values)."""
        walker, command = pressed
        self.menu = walker
        if command.kind == "stay":
            return None
        if command.kind == "close":
            self.menu = None
            return None
        if command.kind == "refused":
            raise Rejected(command.data["reason"])
        self.menu = None
        try:
            if command.kind == "play_press":
                press = Press(command.data["button"], command.data["long"])
                return self.answer(GAME.control(self.state, press))
            assert command.kind == "form_built", command
            return self.answer(command.data["reply"])
        except Rejected:
            self.menu = walker  # refused as an action is: the menu stays as it was
            raise

    def press(self, button: str, long: bool = False) -> Action | None:
        if self.menu is not None:
            return self._command(self.menu.press(button, long))
        return self.answer(GAME.control(self.state, Press(button, long)))

    def tap(self, card_id: str, **fields: Any) -> Action | None:
        """A card tap plays at once, a question open or not."""
        return self.answer(GAME.control(self.state, Tap("0A1B2C3D", card(card_id, **fields))))

    def view(self) -> tuple[Any, Lights]:
        """What the box shows: the game's screen, or its menu as the game draws it."""
        if self.menu is not None:
            return GAME.menu_view(self.state, self.menu.showing())
        return GAME.view(self.state)

    def fold(self, actions: list[Action]) -> State:
        state = GAME.initial(self.parsed, ()).state
        for action in actions:
            state = GAME.apply(state, action).state
        return state

    def undo(self) -> State:
        self.journal.pop()
        self.state = GAME.restore(self.fold(self.journal))
        self.menu = None
        asked = GAME.next_question(self.state)
        if asked is not None:
            self.answer(asked)
        return self.state

    @property
    def pub(self) -> dict[str, Any]:
        shown = self.menu.showing() if self.menu is not None else None
        return {**GAME.public(self.state), **GAME.menu_public(shown)}

    def screen(self) -> list[str]:
        return self.view()[0].text_lines()


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
    before = list(table.journal)  # the roll for who starts
    with pytest.raises(Rejected):
        table.do("blocked")
    assert table.journal == before


def test_undo_folds_all_but_the_last_action():
    table = Table()
    table.dice(1, 1)
    table.do("ai_turn")
    before = table.state
    table.dice(2, 3)
    table.do("ai_turn")
    assert table.undo() == GAME.restore(before)
