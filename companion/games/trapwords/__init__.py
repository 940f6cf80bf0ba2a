"""Trapwords: the box keeps the turn timer and the dungeon (rooms, monster, curses, rounds), so
the table argues about clues, not bookkeeping. ``GAME`` is what companion.games.registry loads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Action, CardKind, Outcome
from companion.games.modular import ModularGame
from companion.games.trapwords import control as control_map
from companion.games.trapwords import options as opts
from companion.games.trapwords import rules, view
from companion.games.trapwords.data import TABLES
from companion.games.trapwords.state import OVER, PAUSED, RUNNING, TrapwordsState


class TrapwordsGame(ModularGame):
    name = "trapwords"
    title = "Trapwords"
    options = opts.OPTIONS
    rules = rules
    contract = view
    screens = view
    controls = control_map

    def ended(self, state: TrapwordsState) -> bool:
        """A team (or the monster) has won."""
        return state.phase == OVER

    def check_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        return opts.check_options(options)

    def setup_dice(self, options: Mapping[str, Any]) -> tuple[int, ...]:
        return opts.setup_dice(options)

    def initial(self, options: Mapping[str, Any], rolls: tuple[int, ...]) -> Outcome:
        return rules.initial(options, rolls)

    def pause_action(self, state: TrapwordsState) -> Action | None:
        """The box's menu opens (the game menu, the undo question): a running turn timer stops
        while it is open (the few seconds of reading time before it are left to run)."""
        return Action("pause", {"by": "menu"}) if state.phase == RUNNING else None

    def resume_action(self, state: TrapwordsState) -> Action | None:
        """The box's menu is left to play on: only a timer the menu itself stopped runs again
        (one the table paused, or a power cut, waits for ok)."""
        return Action("resume") if state.menu_paused and state.phase == PAUSED else None

    def restore_at(self, state: TrapwordsState, at: float) -> TrapwordsState:
        """Its turn timer ticks without journaling: paused at the moment play stopped."""
        return rules.restore_at(state, at)

    def catalog(self) -> tuple[CardKind, ...]:
        return tuple(CardKind(c.id, c.name, "curse", c.fields) for c in TABLES.curses)


GAME = TrapwordsGame()
