"""`trap-companion replay SCRIPT`: the replay contract on standard output."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.commands._common import add_config_arg, load_config, with_state_dir
from companion.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="run a script of button presses, card taps and waits; print what the box shows",
        description="Run the daemon's own code on simulated parts and a virtual clock, fed by "
        "a script (one directive a line: game, press, hold, tap, wait, do, dice, names). Prints "
        "one JSON object per line. Exit status 2 on a line that cannot be understood.",
    )
    p.add_argument("script", help="script file, or - for standard input")
    p.add_argument("--game", metavar="NAME", help="start this game before the first line")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option for --game (repeatable)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the box's dice (default 0)")
    add_config_arg(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from companion import replay

    if args.sets and not args.game:
        raise UsageError("--set needs --game NAME")
    if args.script == "-":
        lines = replay.script_lines_stream(sys.stdin)
    else:
        path = Path(args.script)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UsageError(f"{path}: no such script file") from None
        except (OSError, UnicodeDecodeError) as err:
            raise UsageError(f"{path}: cannot read the script ({err})") from None
        lines = replay.script_lines(text)
    config = load_config(args) if args.config else None
    if config is not None and config.state.dir:
        config = with_state_dir(config, args, refusal_ok=True)  # named by replay itself

    def emit(obj: dict) -> None:
        sys.stdout.write(replay.dumps(obj) + "\n")
        sys.stdout.flush()

    replay.run(lines, emit, config=config, game=args.game, sets=args.sets, seed=args.seed)
    return 0
