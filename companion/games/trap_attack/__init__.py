"""Trap Attack: the box plays the solo mode's AI pawn (its moves, its action die, the cards it
casts), keeps the pawns' books (life, paralysis, battle loot, the per-turn limits on cards) and
counts the final scores. ``GAME`` is what companion.games.registry loads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.games.base import Action, Ask, CardKind, DieLabel, Showing
from companion.games.modular import ModularGame
from companion.games.trap_attack import ai, forms, rules, turns, view
from companion.games.trap_attack import control as control_map
from companion.games.trap_attack import options as opts
from companion.games.trap_attack import public as contract
from companion.games.trap_attack.state import State, short
from companion.games.trap_attack.tables import catalog
from companion.games.trap_attack.tables import rules as rule_table
from companion.ui.screen import Lights, Screen


class TrapAttack(ModularGame):
    name = "trap-attack"
    title = "Trap Attack"
    options = opts.OPTIONS
    rules = rules
    contract = contract
    screens = view
    controls = control_map

    def ended(self, state: State) -> bool:
        """The race is over: the scores are on screen."""
        return state.race_over

    def check_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        return opts.check_options(options)

    def dice_for(self, state: State, action: Action) -> tuple[int, ...]:
        return rules.dice_for(state, action)

    def dice_labels(self, state: State, action: Action) -> tuple[DieLabel, ...]:
        """Names for the dice a table rolls itself: the AI's action die reads as actions."""
        table = state.rules
        readings = {f: table.reading(f).capitalize() for f in range(1, table.action_faces + 1)}
        action_die = DieLabel("AI action die", readings)
        if action.name == "ai_turn":
            if len(ai.move_faces(state)) == 1:
                return (action_die,)
            return (DieLabel("AI move die"), action_die)
        if action.name in ("attack", "play"):
            return (DieLabel("AI block die", readings),)
        if action.name == "first_player":
            return tuple(DieLabel(f"{short(s)} die") for s in turns.first_player_seats(state))
        return ()

    def before_older_step(self, state: State, action: Action) -> State:
        """A game journaled before the box asked who starts began with player 1: a step of
        it folded onto the unanswered roll finds player 1 started, as then."""
        if state.awaits_first_roll and action.name != "first_player":
            return replace(state, first_rolled=True)
        return state

    # The players' menu, its questions and score pages are the shared kit's; these hooks let
    # the app walk them as the table knows them (companion/games/base.py names each hook).
    def opens(self, state: State, action: Action) -> Ask | None:
        return forms.opens(state, action)

    def next_question(self, state: State) -> Ask | None:
        return forms.next_question(state)

    def menu_view(self, state: State, showing: Showing) -> tuple[Screen, Lights]:
        return view.menu_view(state, showing)

    def menu_public(self, showing: Showing | None) -> dict[str, Any]:
        return view.menu_public(showing)

    def catalog(self) -> tuple[CardKind, ...]:
        cards = catalog()
        kinds = [CardKind(e.id, e.name, e.group, short=e.short) for e in cards.effects]
        table = rule_table()
        kinds += [
            CardKind(s.id, s.name, s.id, s.fields, tuple(table.range(r) for r in s.ranges))
            for s in cards.scoring
        ]
        return tuple(kinds)


GAME = TrapAttack()
