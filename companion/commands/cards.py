"""`trap-companion cards list|catalog|enrol|forget`: the card registry from a shell."""

from __future__ import annotations

import argparse
import os

from companion.commands._common import (
    add_config_arg,
    add_state_dir_args,
    load_config,
    with_state_dir,
)
from companion.core.registry import Card, Registry
from companion.errors import (
    CompanionError,
    ConfigError,
    PermissionDenied,
    StateDirError,
    UsageError,
)
from companion.games import registry as games
from companion.owner import client, verbs
from companion.owner.privilege import become_owner_of


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
    """The registry the command works on itself (the box is not running, or it is not the
    box's): as root, the state directory's owner's (privilege.py)."""
    try:
        config = with_state_dir(load_config(args), args, sim=args.sim, write=write)
    except (StateDirError, ConfigError) as err:  # (a config's state.dir: the same)
        if _the_box(args) and os.geteuid() != 0 and "Permission denied" in str(err):
            raise PermissionDenied(
                f"{err}: the box's cards are its service's; run the command with sudo"
            ) from None
        raise
    state_dir = config.state_dir()
    if write:
        become_owner_of(state_dir)
    return Registry(state_dir / "cards.toml"), config.reader.type


def _the_box(args: argparse.Namespace) -> bool:
    """Whether the command is about the running box's own cards (no --sim, no --state-dir)."""
    return not args.sim and args.state_dir is None


def _ask_box(args: argparse.Namespace, request: dict) -> dict | None:
    """The running box's answer's body, or None when no box runs (the command does it itself).
    The box's refusals are the command's: 2 for what is asked, 73 for its storage, 77 for who
    asks."""
    if not _the_box(args):
        return None
    request = {**request, "state_dir": str(load_config(args).state_dir())}
    try:
        answer = client.ask(request)
    except client.NotRunning:
        return None
    except client.Unanswered as err:
        raise CompanionError(f"{err}; see journalctl -u trap-companion") from None
    if answer.get("ok"):
        body = answer.get("body")
        return body if isinstance(body, dict) else {}
    text = str(answer.get("text", "the box refused"))
    error = answer.get("error")
    if error == "elsewhere":  # the running box keeps another directory: not its cards
        return None
    if error == "refused":
        raise PermissionDenied(f"the running box: {text}; run the command with sudo")
    if error == "storage":
        raise StateDirError(f"the running box could not write its cards: {text}")
    if error == "busy":
        raise CompanionError(f"the running box: {text}")
    raise UsageError(text)


def _uid(text: str, kind: str) -> str:
    from companion.hal.readers.base import canonical_uid

    try:
        return canonical_uid(text, kind if kind != "none" else "pn532")
    except ValueError as err:
        raise UsageError(str(err)) from None


def list_main(args: argparse.Namespace) -> int:
    body = _ask_box(args, {"verb": "list"})
    if body is None:
        body = verbs.listing(_registry(args, write=False)[0])
    lines = [str(line) for line in body.get("lines", [])]
    if not lines:
        print(f"no cards enrolled yet ({body.get('path', '')})")
        if _the_box(args):
            print("(the simulator keeps its own cards: trap-companion cards list --sim)")
        return 0
    for line in lines:
        print(line)
    return 0


def catalog_main(args: argparse.Namespace) -> int:
    names = [args.game] if args.game else games.available()
    for name in names:
        rules = verbs.game(name)
        for kind in rules.catalog():
            fields = f" (asks {_asks(kind)})" if kind.fields else ""
            print(f"{name:<12} {kind.id:<24} {kind.name}{fields}")
    return 0


def enrol_main(args: argparse.Namespace) -> int:
    reader = load_config(args).reader.type
    uid = _uid(args.uid, reader)
    rules = verbs.game(args.game)
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
    verbs.check_card(card)
    request = {"verb": "enrol", "card": _card_json(card), "force": args.force}
    body = _ask_box(args, request)
    if body is None:
        body = verbs.enrol(_registry(args)[0], card, args.force)
    print(body.get("line", ""))
    return 0


def _card_json(card: Card) -> dict:
    return {
        "uid": card.uid,
        "game": card.game,
        "card": card.card,
        "name": card.name,
        "fields": dict(card.fields),
    }


def _asks(kind) -> str:
    """The values a kind asks, each with its range: what the box's form offers."""
    return ", ".join(
        f"{name} {low}..{high}"
        for name, (low, high) in ((n, kind.field_range(i)) for i, n in enumerate(kind.fields))
    )


def forget_main(args: argparse.Namespace) -> int:
    uid = _uid(args.uid, load_config(args).reader.type)
    try:
        body = _ask_box(args, {"verb": "forget", "uid": uid})
        if body is None:
            body = verbs.forget(_registry(args)[0], uid)
    except LookupError as err:
        raise UsageError(str(err).strip("'\"")) from None
    print(body.get("line", ""))
    return 0
