"""`trap-companion cards list|catalog|enrol|forget`: the card registry from a shell."""

from __future__ import annotations

import argparse

from companion.commands._common import (
    add_config_arg,
    add_state_dir_args,
    load_config,
    with_state_dir,
)
from companion.core.registry import Card, Registry
from companion.errors import UsageError
from companion.games import registry as games
from companion.games.base import BadAction


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cards", help="list, enrol and forget tagged cards")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    ls = verbs.add_parser("list", help="the cards this box knows")
    add_config_arg(ls)
    add_state_dir_args(ls, sim_choice=True)
    ls.set_defaults(func=list_main)
    cat = verbs.add_parser("catalog", help="what cards of a game can be enrolled as")
    cat.add_argument("game", nargs="?", help="a game name (default: all)")
    cat.set_defaults(func=catalog_main)
    enrol = verbs.add_parser(
        "enrol",
        help="register a tag: trap-companion cards enrol UID GAME CARD [--value K=V]",
        description="Register the tag UID as CARD of GAME (see `cards catalog GAME`).",
    )
    enrol.add_argument("uid", help="the tag's UID in hex, e.g. 04A1B2C3 or 14:00:8E:C7:93")
    enrol.add_argument("game", help=f"the game the card belongs to: {', '.join(games.available())}")
    enrol.add_argument("card", help="a catalog id, e.g. damage-2 (see `cards catalog GAME`)")
    enrol.add_argument("--name", help="the name to show (default: the catalog's)")
    enrol.add_argument(
        "--value",
        action="append",
        default=[],
        metavar="K=N",
        help="a card value, e.g. value=3, within the range `cards catalog GAME` shows",
    )
    enrol.add_argument(
        "--force",
        action="store_true",
        help="make a tag that is already enrolled as another card this one",
    )
    add_config_arg(enrol)
    add_state_dir_args(enrol, sim_choice=True)
    enrol.set_defaults(func=enrol_main)
    forget = verbs.add_parser(
        "forget",
        help="remove a tag from the registry",
        description="Remove the tag UID from the registry (`cards list` shows what is there).",
    )
    forget.add_argument(
        "uid", help="the tag's UID in hex as `cards list` shows it, e.g. 0004A1B2C3"
    )
    add_config_arg(forget)
    add_state_dir_args(forget, sim_choice=True)
    forget.set_defaults(func=forget_main)


def _registry(args: argparse.Namespace, write: bool = True) -> tuple[Registry, str]:
    config = with_state_dir(load_config(args), args, sim=args.sim, write=write)
    return Registry(config.state_dir() / "cards.toml"), config.reader.type


def _uid(text: str, kind: str) -> str:
    from companion.hal.readers.base import canonical_uid

    try:
        return canonical_uid(text, kind if kind != "none" else "pn532")
    except ValueError as err:
        raise UsageError(str(err)) from None


def list_main(args: argparse.Namespace) -> int:
    registry, _ = _registry(args, write=False)
    if not registry.cards:
        print(f"no cards enrolled yet ({registry.path})")
        if not args.sim and not args.state_dir:
            print("(the simulator keeps its own cards: trap-companion cards list --sim)")
        return 0
    for uid, card in sorted(registry.cards.items()):
        extra = " ".join(f"{k}={v}" for k, v in sorted(card.fields.items()))
        print(f"{uid:<20} {card.game:<12} {card.card:<24} {card.name} {extra}".rstrip())
    return 0


def _game(name: str):
    try:
        return games.get(name)
    except BadAction as err:
        raise UsageError(str(err)) from None


def catalog_main(args: argparse.Namespace) -> int:
    names = [args.game] if args.game else games.available()
    for name in names:
        rules = _game(name)
        for kind in rules.catalog():
            fields = f" (asks {_asks(kind)})" if kind.fields else ""
            print(f"{name:<12} {kind.id:<24} {kind.name}{fields}")
    return 0


def enrol_main(args: argparse.Namespace) -> int:
    registry, reader = _registry(args)
    uid = _uid(args.uid, reader)
    rules = _game(args.game)
    kinds = {k.id: k for k in rules.catalog()}
    if args.card not in kinds:
        known = ", ".join(kinds) or "none"
        raise UsageError(f"{args.game} has no card {args.card!r} (known: {known})")
    kind = kinds[args.card]
    values: dict[str, int] = {}
    for item in args.value:
        key, sep, raw = item.partition("=")
        if not sep or key not in kind.fields or not raw.lstrip("-").isdigit():
            asks = ", ".join(kind.fields) or "no values"
            raise UsageError(f"--value {item!r}: {kind.name} takes {asks}, as K=N")
        low, high = kind.field_range(kind.fields.index(key))
        if not low <= int(raw) <= high:  # the box's form offers only these
            raise UsageError(
                f"--value {item!r}: {kind.name}'s {key} is {low}..{high}; nothing written"
            )
        values[key] = int(raw)
    missing = [f for f in kind.fields if f not in values]
    if missing:
        raise UsageError(f"{kind.name} needs --value {missing[0]}=N")
    card = Card(uid, args.game, kind.id, args.name or kind.name, values)
    now = registry.cards.get(uid)
    if now is not None and _differs(now, card) and not args.force:
        raise UsageError(
            f"{uid} is already enrolled as {_describe(now)}; "
            "add --force to make it this card (nothing written)"
        )
    registry.enrol(card)
    was = f" (was {_describe(now)})" if now is not None and _differs(now, card) else ""
    print(f"{uid}: {_describe(card)}{was}")
    return 0


def _asks(kind) -> str:
    """The values a kind asks, each with its range: what the box's form offers."""
    return ", ".join(
        f"{name} {low}..{high}"
        for name, (low, high) in ((n, kind.field_range(i)) for i, n in enumerate(kind.fields))
    )


def _differs(a: Card, b: Card) -> bool:
    return (a.game, a.card, a.name, a.fields) != (b.game, b.card, b.name, b.fields)


def _describe(card: Card) -> str:
    extra = "".join(f" {k}={v}" for k, v in sorted(card.fields.items()))
    return f"{card.name} ({card.game} {card.card}{extra})"


def forget_main(args: argparse.Namespace) -> int:
    registry, reader = _registry(args)
    uid = _uid(args.uid, reader)
    card = registry.forget(uid)
    if card is None:
        raise UsageError(f"{uid} is not enrolled ({registry.path})")
    print(f"forgot {uid} ({card.name})")
    return 0
