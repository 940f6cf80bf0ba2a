"""The demo deck the simulators (terminal, page) and replay tap from: every game's demo cards
(companion/games/demo.py) with a stable made-up tag each, as the simulated reader reads it."""

from __future__ import annotations

from companion.core.registry import Card, demo_uid
from companion.games import registry as games
from companion.games.demo import demo_deck
from companion.hal.readers.base import canonical_uid


def demo_cards(reader_kind: str) -> list[Card]:
    """The deck for a simulated reader of ``reader_kind`` (no reader: tags as the PN532 reads
    them)."""
    kind = reader_kind if reader_kind != "none" else "pn532"
    return [
        Card(canonical_uid(demo_uid(name, card.key), kind), name, card.card, card.name)
        for name in games.available()
        for card in demo_deck(games.get(name))
    ]
