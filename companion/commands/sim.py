"""`trap-companion sim`: the box in a terminal, on simulated parts."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from companion.commands._common import add_config_arg, load_config
from companion.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sim",
        help="run the box in this terminal on simulated buttons, reader and display",
        description="The same daemon on gpiozero's mock pins, a fake card reader over a pty and "
        "the OLED drawn in the terminal. The keys are listed beside the screen; q quits.",
    )
    add_config_arg(p)
    p.add_argument(
        "--reader", choices=("rdm6300", "pn532", "none"), help="the simulated card reader"
    )
    p.add_argument("--state-dir", type=Path, help="keep the journal and cards here")
    p.add_argument(
        "--compact", action="store_true", help="draw the OLED in braille (for small terminals)"
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise UsageError("sim needs a terminal (for scripts use `trap-companion replay`)")
    from companion.sim.terminal import TerminalSim

    config = load_config(args)
    if args.reader:
        config = dataclasses.replace(
            config, reader=dataclasses.replace(config.reader, type=args.reader)
        )
    # The simulator keeps its own journal and cards, never an installed daemon's.
    state_dir = args.state_dir or config.state.dir or config.user_state_dir() / "sim"
    config = dataclasses.replace(
        config, state=dataclasses.replace(config.state, dir=str(state_dir))
    )
    return TerminalSim(config, compact=args.compact or None).run()
