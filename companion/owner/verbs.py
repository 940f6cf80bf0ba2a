"""What `trap-companion cards enrol|forget|list` do to a registry: the same code whether the
running daemon does it (on its loop, asked over the owner's socket) or the command itself (the
box stopped, as the service's user). Refusals are UsageError (2) or LookupError."""

from __future__ import annotations

from typing import Any

from companion.core.registry import UID_RE, Card, Registry
from companion.errors import UsageError
from companion.games import registry as games
from companion.games.base import BadAction

MAX_NAME = 200


def game(name: str):
    try:
        return games.get(name)
    except BadAction as err:
        raise UsageError(str(err)) from None


def check_card(card: Card) -> Card:
    """A card as the box's own form could make it, or UsageError naming what is not (what the
    daemon checks again of a card that came over its socket)."""
    if not UID_RE.match(card.uid):
        raise UsageError(f"UID {card.uid!r} is not 2..20 upper-case hex characters")
    kinds = {k.id: k for k in game(card.game).catalog()}
    kind = kinds.get(card.card)
    if kind is None:
        known = ", ".join(kinds) or "none"
        raise UsageError(f"{card.game} has no card {card.card!r} (known: {known})")
    if not isinstance(card.name, str) or not card.name.strip() or len(card.name) > MAX_NAME:
        raise UsageError(f"a card's name is 1..{MAX_NAME} characters")
    if set(card.fields) != set(kind.fields):
        asks = ", ".join(kind.fields) or "no values"
        raise UsageError(f"{kind.name} takes {asks}")
    for i, key in enumerate(kind.fields):
        low, high = kind.field_range(i)
        value = card.fields[key]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise UsageError(f"{kind.name}'s {key} is {low}..{high}; nothing written")
    return card


def describe(card: Card) -> str:
    extra = "".join(f" {k}={v}" for k, v in sorted(card.fields.items()))
    return f"{card.name} ({card.game} {card.card}{extra})"


def differs(a: Card, b: Card) -> bool:
    return (a.game, a.card, a.name, a.fields) != (b.game, b.card, b.name, b.fields)


def enrol(registry: Registry, card: Card, force: bool) -> dict[str, Any]:
    """Enrol ``card`` (OSError from the storage: nothing enrolled); the answer's lines."""
    check_card(card)
    now = registry.cards.get(card.uid)
    if now is not None and differs(now, card) and not force:
        raise UsageError(
            f"{card.uid} is already enrolled as {describe(now)}; "
            "add --force to make it this card (nothing written)"
        )
    registry.enrol(card)
    was = f" (was {describe(now)})" if now is not None and differs(now, card) else ""
    return {"line": f"{card.uid}: {describe(card)}{was}", "name": card.name}


def forget(registry: Registry, uid: str) -> dict[str, Any]:
    card = registry.cards.get(uid)
    if card is None:
        raise LookupError(f"{uid} is not enrolled ({registry.path})")
    registry.forget(uid)
    return {"line": f"forgot {uid} ({card.name})", "name": card.name}


def listing(registry: Registry) -> dict[str, Any]:
    lines = []
    for uid, card in sorted(registry.cards.items()):
        extra = " ".join(f"{k}={v}" for k, v in sorted(card.fields.items()))
        lines.append(f"{uid:<20} {card.game:<12} {card.card:<24} {card.name} {extra}".rstrip())
    return {"lines": lines, "path": str(registry.path)}


def card_of(data: Any) -> Card:
    """A card as the socket carries it (UsageError for anything else)."""
    if not isinstance(data, dict):
        raise UsageError("no card given")
    texts = [data.get(k) for k in ("uid", "game", "card", "name")]
    fields = data.get("fields", {})
    if not all(isinstance(t, str) for t in texts) or not isinstance(fields, dict):
        raise UsageError("a card is uid, game, card and name as text, and its values")
    uid, game_name, card_id, name = texts
    return Card(uid, game_name, card_id, name, dict(fields))
