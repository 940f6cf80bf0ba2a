"""The simulators' demo deck: every card of a game's catalog, in as many numbered copies as a
table can lay together ("Orc 1" ... "Orc 6"), so a new user with no tags can make every play
the game allows. A game says how many copies a card needs with ``demo_copies`` (read from its
own data: the Deathtrap pack, the Cover Your Asps treasure table); one otherwise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.games.base import Game


@dataclass(frozen=True)
class DemoCard:
    card: str  # the catalog id
    name: str  # as the deck shows it: "Orc 2", or the catalog name for a single copy
    key: str  # what its made-up tag is made from: the catalog id, then "orc#2", "orc#3", ...


def demo_deck(game: Game) -> tuple[DemoCard, ...]:
    """The demo cards of ``game``, each catalog card's copies together, the first copy keyed by
    the catalog id alone (so its tag is the one a single demo card always had)."""
    deck = []
    for kind in game.catalog():
        copies = max(1, int(game.demo_copies(kind)))
        for n in range(1, copies + 1):
            name = kind.name if copies == 1 else f"{kind.name} {n}"
            deck.append(DemoCard(kind.id, name, kind.id if n == 1 else f"{kind.id}#{n}"))
    return tuple(deck)
