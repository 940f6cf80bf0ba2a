"""`trap-companion records export|players|rename|merge|forget|import-names`: the plays kept and
the players' names from a shell (issue 48). Export only reads. The others change players.json and
plays.json: the box rewrites them whole on its next change, so make them while it is stopped
(`systemctl stop trap-companion`), or name seats on the box itself."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.commands._common import (
    add_config_arg,
    add_state_dir_args,
    load_config,
    with_state_dir,
)
from companion.core import player_changes, statefile
from companion.core.players import BadName, Players
from companion.core.plays import Plays
from companion.errors import DataError, UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("records", help="export the plays kept; list, rename, merge, forget players")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    ex = verbs.add_parser(
        "export",
        help="the plays kept, as CSV or BG Stats' JSON",
        description="Every finished game kept as a play, as CSV (a row per seat) or in the "
        "JSON BG Stats imports (games, players, the box as one location, plays). Undated plays "
        "(the box's clock not known) are left out of the BG Stats file, and counted.",
    )
    ex.add_argument("--format", choices=("csv", "bgstats"), default="csv")
    ex.add_argument("-o", "--output", type=Path, metavar="FILE", help="default: standard output")
    verbs.add_parser("players", help="the players the box knows, most recent first")
    ren = verbs.add_parser("rename", help="call a player by another name")
    merge = verbs.add_parser("merge", help="two spellings of one person: OLD becomes NEW")
    for q in (ren, merge):
        q.add_argument("old")
        q.add_argument("new")
    forget = verbs.add_parser("forget", help="forget a player: the seats stay, unnamed")
    forget.add_argument("name")
    imp = verbs.add_parser(
        "import-names",
        help="the players' names of a BG Stats export, to pick from",
        description="Reads the JSON of a BG Stats export (its backup file) and keeps the "
        "players' names the box does not know yet, to pick from; the plays stay in BG Stats.",
    )
    imp.add_argument("file", type=Path, metavar="FILE")
    for q in verbs.choices.values():
        add_config_arg(q)
        add_state_dir_args(q, sim_choice=True)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    write = args.verb in ("rename", "merge", "forget", "import-names")
    config = with_state_dir(load_config(args), args, sim=args.sim, write=write)
    state = config.state_dir()
    if args.verb == "export":
        from companion.plays_export import export

        done = export(Plays(state / statefile.PLAYS.name).plays, args.format)
        if args.output is None:
            sys.stdout.write(done.text)
        else:
            args.output.write_text(done.text, encoding="utf-8")
        if done.left_out:
            print(
                f"{done.left_out} undated play(s) left out: BG Stats needs a date",
                file=sys.stderr,
            )
        return 0
    players = Players(state / statefile.PLAYERS.name)
    if args.verb == "players":
        for name in players.names():
            print(name)
        return 0
    if args.verb == "import-names":
        return import_names(players, args.file)
    plays = Plays(state / statefile.PLAYS.name)
    try:
        change = player_changes.checked(
            players, plays, args.verb, args.name if args.verb == "forget" else args.old,
            None if args.verb == "forget" else args.new,
        )  # fmt: skip
    except BadName as err:
        raise UsageError(str(err)) from None
    changed = player_changes.make(players, plays, change)
    print(player_changes.done(change, changed))
    return 0


def import_names(players: Players, path: Path) -> int:
    from companion.plays_import import read_bgstats_names

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"{path}: cannot be read ({err})") from None
    try:
        found = read_bgstats_names(text, str(path))
    except ValueError as err:
        raise DataError(str(err)) from None
    added = players.add_all(found.names)
    for why in found.refused:
        print(f"left out: {why}", file=sys.stderr)
    print(
        f"{len(added)} name(s) added to pick from, {len(found.names) - len(added)} known already"
        + (f", {len(found.refused)} left out" if found.refused else "")
    )
    return 0
