"""Trapwords: the box keeps the turn timer and the dungeon (rooms, monster, curses, rounds), so
the table argues about clues, not bookkeeping. ``GAME`` is what companion.games.registry loads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Action, CardKind, Input, Outcome
from companion.games.trapwords import control as control_map
from companion.games.trapwords import options as opts
from companion.games.trapwords import rules, view
from companion.games.trapwords.data import TABLES
from companion.games.trapwords.state import TrapwordsState
from companion.ui.screen import Lights, Screen


class TrapwordsGame:
    name = "trapwords"
    title = "Trapwords"
    options = opts.OPTIONS

    def check_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        return opts.check_options(options)

    def setup_dice(self, options: Mapping[str, Any]) -> tuple[int, ...]:
        return opts.setup_dice(options)

    def initial(self, options: Mapping[str, Any], rolls: tuple[int, ...]) -> Outcome:
        return rules.initial(options, rolls)

    def dice_for(self, state: TrapwordsState, action: Action) -> tuple[int, ...]:
        rules.check_name(action)
        return ()

    def apply(self, state: TrapwordsState, action: Action) -> Outcome:
        return rules.apply(state, action)

    def public(self, state: TrapwordsState) -> dict[str, Any]:
        return view.public(state)

    def view(self, state: TrapwordsState) -> tuple[Screen, Lights]:
        return view.view(state)

    def control(self, state: TrapwordsState, event: Input) -> Action | None:
        return control_map.control(state, event)

    def restore(self, state: TrapwordsState) -> TrapwordsState:
        return rules.restore(state)

    def catalog(self) -> tuple[CardKind, ...]:
        return tuple(CardKind(c.id, c.name, "curse", c.fields) for c in TABLES.curses)


GAME = TrapwordsGame()
