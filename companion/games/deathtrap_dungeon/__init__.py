"""Deathtrap Dungeon: the box referees the climbing card game for 4-8 players (whose turn,
what beats the table, who passed, who is out, who leads) and scores the rounds, with the cards
tapped as they are put down. ``GAME`` is what companion.games.registry loads."""

from __future__ import annotations

import re
from pathlib import Path

from companion.games.base import CardKind, Input, Reply
from companion.games.deathtrap_dungeon import control as control_map
from companion.games.deathtrap_dungeon import options as opts
from companion.games.deathtrap_dungeon import pack as packs
from companion.games.deathtrap_dungeon import public as contract
from companion.games.deathtrap_dungeon import rules, view
from companion.games.deathtrap_dungeon.state import OVER, DeathtrapState
from companion.games.modular import ModularGame
from companion.ui.screen import Lights, Screen

SPECIAL_GROUP = "special"


class DeathtrapGame(ModularGame):
    name = "deathtrap-dungeon"
    title = "Deathtrap Dungeon"
    uses_dice = False  # no die in the box: the menu offers no dice source
    options = opts.OPTIONS
    rules = rules
    contract = contract

    def ended(self, state: DeathtrapState) -> bool:
        """The fourth round scored: the final standings."""
        return state.phase == OVER

    def __init__(self) -> None:
        self.pack = packs.shipped()

    def attach(self, state_dir: Path) -> tuple[str, ...]:
        """Use the owner's pack in ``state_dir`` if there is one; a problem to show, if any."""
        self.pack, problem = packs.for_state_dir(state_dir)
        if problem is None:
            return ()
        if "; moved to " in problem:
            return ("Pack file unreadable", "set aside, see log", "kept the last good")
        line = re.search(r"line \d+", problem)
        # Say "the last good" only when there was one: else the box plays with its own pack.
        had_good = (state_dir / packs.LAST_GOOD_NAME).exists() and self.pack != packs.shipped()
        kept = "kept the last good" if had_good else "shipped pack in use"
        return ("Pack file bad", line.group(0) if line else "see log", kept)

    def demo_copies(self, kind: CardKind) -> int:
        """The simulators' demo deck holds as many of a card as the pack does: every play a
        real pack allows (companion/games/demo.py)."""
        found = self.pack.set(kind.id) or self.pack.special(kind.id)
        return found.cards if found is not None else 1

    def view(self, state: DeathtrapState) -> tuple[Screen, Lights]:
        return view.view(state, self.pack)

    def control(self, state: DeathtrapState, event: Input) -> Reply:
        return control_map.control(state, event, self.pack)

    def catalog(self) -> tuple[CardKind, ...]:
        """A kind per set (its value asked at enrolment where the rulebook gives none, starting
        from the pack's guess) and one per special card."""
        kinds = []
        for card_set in self.pack.sets:
            if card_set.known:
                kinds.append(CardKind(card_set.id, card_set.name, "set"))
            else:
                kinds.append(
                    CardKind(
                        card_set.id,
                        card_set.name,
                        "set",
                        ("value",),
                        ((1, packs.MAX_VALUE),),
                        (card_set.value,),
                    )
                )
        kinds.extend(CardKind(s.id, s.name, SPECIAL_GROUP) for s in self.pack.specials)
        return tuple(kinds)


GAME = DeathtrapGame()
