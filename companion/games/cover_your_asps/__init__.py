"""Cover Your Asps: the box rolls the dice and keeps the bookkeeping players forget (whose turn,
each raider's phase, the round and the vault, action cards in hand, treasure left, what a double
allows) and the count at the end; or, for one player, the solo mode's rolls and planks.
``GAME`` is what companion.games.registry loads."""

from __future__ import annotations

from typing import Any

from companion.games.base import Action, CardKind, DieLabel
from companion.games.cover_your_asps import control as control_map
from companion.games.cover_your_asps import options as opts
from companion.games.cover_your_asps import public as contract
from companion.games.cover_your_asps import rules, view
from companion.games.cover_your_asps.state import State
from companion.games.cover_your_asps.tables import tables
from companion.games.modular import ModularGame

TWO_DICE = (DieLabel("Die 1"), DieLabel("Die 2"))
MOVE_DIE = (DieLabel("Move die"),)


class CoverYourAsps(ModularGame):
    name = rules.GAME
    title = "Cover Your Asps"
    options = opts.OPTIONS
    rules = rules
    contract = contract
    screens = view
    controls = control_map

    def ended(self, state: State) -> bool:
        """The solo game won or lost, or the table's game over (its final standings)."""
        return state.over

    def dice_for(self, state: State, action: Action) -> tuple[int, ...]:
        return rules.dice_for(state, action)

    def dice_labels(self, state: State, action: Action) -> tuple[DieLabel, ...]:
        return MOVE_DIE if action.name == "move" else TWO_DICE

    def restore(self, state: State) -> State:
        return state  # no timer: the game stands still between presses

    def result(self, state: State) -> dict[str, Any] | None:
        return rules.result(state)

    def demo_copies(self, kind: CardKind) -> int:
        """The simulators' demo deck holds a treasure card for every treasure of the fullest
        table, so each seat's cards can be tapped one by one (companion/games/demo.py)."""
        return max(tables().treasure.values()) if kind.id == "treasure" else 1

    def catalog(self) -> tuple[CardKind, ...]:
        return (
            CardKind("action", "Action card", "action"),
            CardKind("treasure", "Treasure card", "treasure", ("points",), (tables().points,)),
        )


GAME = CoverYourAsps()
