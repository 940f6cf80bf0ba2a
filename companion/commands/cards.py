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
    enrol.add_argument("game")
    enrol.add_argument("card", help="a catalog id, e.g. damage-2")
    enrol.add_argument("--name", help="the name to show (default: the catalog's)")
    enrol.add_argument(
        "--value", action="append", default=[], metavar="K=N", help="a card value, e.g. value=3"
    )
    add_config_arg(enrol)
    add_state_dir_args(enrol, sim_choice=True)
    enrol.set_defaults(func=enrol_main)
    forget = verbs.add_parser("forget", help="remove a tag from the registry")
    forget.add_argument("uid")
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
            fields = f" (asks {', '.join(kind.fields)})" if kind.fields else ""
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
        values[key] = int(raw)
    missing = [f for f in kind.fields if f not in values]
    if missing:
        raise UsageError(f"{kind.name} needs --value {missing[0]}=N")
    card = Card(uid, args.game, kind.id, args.name or kind.name, values)
    registry.enrol(card)
    print(f"{uid}: {card.name} ({args.game} {kind.id})")
    return 0


def forget_main(args: argparse.Namespace) -> int:
    registry, reader = _registry(args)
    uid = _uid(args.uid, reader)
    card = registry.forget(uid)
    if card is None:
        raise UsageError(f"{uid} is not enrolled ({registry.path})")
    print(f"forgot {uid} ({card.name})")
    return 0
