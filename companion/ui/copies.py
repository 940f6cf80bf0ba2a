"""What a tag tapped during an enrolment run is to that run (menus.EnrolRun): a new tag, a
copy already enrolled as this very card (counted, no question), a copy of this card that
carries none of the run's values yet (a demo card, an entry from an older card list: enrolled
with them, no question, since nothing it holds is lost), or something else, which changes
only after the owner says yes."""

from __future__ import annotations

from collections.abc import Mapping

from companion.core.registry import Card

NEW = "new"  # no card has this tag: enrol it
SAME = "same"  # already this card with these values: count it
FILL = "fill"  # this card, without the run's values: enrol it with them
OTHER = "other"  # another card, or this card with other values: ask first


def copy_verdict(card: Card | None, game: str, kind: str, values: Mapping[str, object]) -> str:
    """The verdict for a tapped tag whose card (enrolled or demo) is ``card``, in a run of
    copies of ``kind`` in ``game`` with ``values``."""
    if card is None:
        return NEW
    if (card.game, card.card) != (game, kind):
        return OTHER
    held = {key: card.fields[key] for key in values if key in card.fields}
    if any(held[key] != values[key] for key in held):
        return OTHER
    return SAME if len(held) == len(values) else FILL
