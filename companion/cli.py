"""The face of the box: ``trap-companion COMMAND``. Each command lives in companion/commands/."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from companion import __version__
from companion.errors import CompanionError

# Each module has ``register(subparsers)`` that adds its parser with ``func`` set.
COMMANDS = (
    "companion.commands.run",
    "companion.commands.sim",
    "companion.commands.replay",
    "companion.commands.cards",
    "companion.commands.config",
    "companion.commands.bench",
    "companion.commands.check",
    "companion.commands.firmware",
    "companion.commands.phones",
    "companion.commands.records",
    "companion.commands.update",
    "companion.commands.version",
    "companion.commands.explore",
)


class _Version(argparse.Action):
    """--version: the installed release's version (its wheel's metadata, "0.4.0+gda8f72aa"),
    looked up only when asked: every start need not read the metadata."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from companion.release.about import program_version

        print(f"{parser.prog} {program_version(__version__)}")
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Every command's parser; with ``argv`` naming a command, that command's alone: each
    command's module imports what its defaults and choices need (the simulator's displays,
    the firmware's tables), and the daemon's start on a Pi Zero should not pay for them."""
    parser = argparse.ArgumentParser(
        prog="trap-companion",
        description="Trap Companion: dice, timers and bookkeeping for trap board games.",
    )
    parser.add_argument(
        "--version", action=_Version, nargs=0, help="show the program's version and exit"
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log debug messages to standard error"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _named(argv):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
            continue  # a command still being written
        module.register(sub)
    _own_errors(parser)
    return parser


def _named(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The command modules to register: the one ``argv``'s first word names, else all (so an
    unknown word is told with the whole list). The top-level options take no value, so the
    first word that is not an option is the command."""
    word = next((a for a in argv or () if not a.startswith("-")), None)
    for name in COMMANDS:
        if word is not None and name.rsplit(".", 1)[1] == word:
            return (name,)
    return COMMANDS


def _own_errors(parser: argparse.ArgumentParser) -> None:
    """Each (sub)command notes its own parser, so that an argument it does not know is
    reported with its usage (``sim --bogus`` shows sim's), not the top-level one."""
    parser.set_defaults(_parser=parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in set(action.choices.values()):
                _own_errors(child)


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args, extras = parser.parse_known_args(argv)
    if extras:
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extras)}")
    quiet = args.command not in ("run",)  # the daemon tells journald what it does
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING if quiet else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CompanionError as err:
        print(f"trap-companion: {err}", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `trap-companion replay x | head`: the reader has had enough
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception:  # a bug: say so plainly, with the traceback for the report
        logging.getLogger("companion").exception("internal error")
        print(
            "trap-companion: internal error (a bug); please report it with the text above",
            file=sys.stderr,
        )
        return 70
