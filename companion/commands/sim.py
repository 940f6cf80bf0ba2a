"""`trap-companion sim`: the box in a terminal, on simulated parts."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from companion.commands._common import (
    add_config_arg,
    add_state_dir_args,
    load_config,
    with_state_dir,
)
from companion.errors import UsageError
from companion.sim.layout import DISPLAYS


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
    add_state_dir_args(p, sim=True)
    p.add_argument(
        "--display",
        choices=DISPLAYS,
        default="auto",
        help="how to draw the OLED: blocks (every pixel, needs 163x34), braille (66x18), "
        "text (the words only) or auto, the largest that fits the terminal (default)",
    )
    p.add_argument("--compact", action="store_true", help="the same as --display braille")
    p.add_argument(
        "--phones",
        type=int,
        metavar="PORT",
        help="also serve the phones' page on http://127.0.0.1:PORT/ (pair with the code the "
        "box shows under 'Pair a phone' in the game menu)",
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
    config = with_state_dir(config, args, sim=True)
    display = "braille" if args.compact and args.display == "auto" else args.display
    if args.phones is not None and not 1024 <= args.phones <= 65535:
        raise UsageError(f"--phones {args.phones}: a TCP port 1024..65535")
    return TerminalSim(config, display=display, phones=args.phones).run()
