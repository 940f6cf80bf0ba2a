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
from companion.sim.web import DEFAULT_PORT


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
        choices=(*DISPLAYS, "none"),
        default="auto",
        help="how to draw the OLED: blocks (every pixel, needs 163x34), braille (66x18), "
        "text (the words only) or auto, the largest that fits the terminal (default); "
        "none draws nothing in the terminal (with --web: the browser only, no terminal needed)",
    )
    p.add_argument("--compact", action="store_true", help="the same as --display braille")
    p.add_argument(
        "--web",
        action="store_true",
        help="also serve the box as a web page on 127.0.0.1 (see --port); prints its URL",
    )
    p.add_argument(
        "--port",
        type=_port,
        default=None,
        metavar="N",
        help=f"the web page's port (default {DEFAULT_PORT}; 0: any free one, the URL says which); "
        "exit status 69 if it is taken",
    )
    p.add_argument(
        "--phones",
        type=_phones_port,
        metavar="PORT",
        help="also serve the phones' page on http://127.0.0.1:PORT/, as a box with "
        "[phones] enabled does on its network (pair with the code under 'Pair a phone' in "
        "the game menu); a taken port is tried again every 30 s",
    )
    p.set_defaults(func=main)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535, or 0 for any free one)")
    return int(text)


def _phones_port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535)")
    return int(text)


def main(args: argparse.Namespace) -> int:
    if args.port is not None and not args.web:
        raise UsageError("--port is the web page's port: add --web")
    if args.display == "none" and not args.web:
        raise UsageError("--display none shows nothing: add --web to see the box in a browser")
    port = args.port if args.port is not None else DEFAULT_PORT
    web_only = args.web and args.display == "none"
    if not web_only and (not sys.stdin.isatty() or not sys.stdout.isatty()):
        raise UsageError(
            "sim needs a terminal (for scripts use `trap-companion replay`; for a browser "
            "only, `sim --web --display none`)"
        )
    config = load_config(args)
    if args.reader:
        config = dataclasses.replace(
            config, reader=dataclasses.replace(config.reader, type=args.reader)
        )
    config = with_state_dir(config, args, sim=True, refusal_ok=True)
    if web_only:
        from companion.sim.web import WebOnlySim

        sim = WebOnlySim(config, port)
        phones: list = []

        def ready(url: str) -> None:
            """The box runs and Ctrl-C or SIGTERM stops it cleanly: only now is the URL said,
            and the phones start on the loop's thread."""
            print(f"Trap Companion simulator: open {url} (Ctrl-C stops)", flush=True)
            _say_phones(args.phones)
            if args.phones is not None:
                from companion.core.events import Call
                from companion.web.phones import PhoneService

                phones.append(PhoneService(sim.box.app, args.phones, "127.0.0.1"))
                sim.box.loop.post(Call(phones[0].start))

        try:
            return sim.run(ready)
        finally:
            for phone in phones:
                phone.stop()
    from companion.sim.terminal import TerminalSim

    display = "braille" if args.compact and args.display == "auto" else args.display
    terminal = TerminalSim(
        config, display=display, web_port=port if args.web else None, phones=args.phones
    )
    if terminal.web is not None:
        print(f"Trap Companion simulator: open {terminal.web.url}", flush=True)
    _say_phones(args.phones)
    return terminal.run()


def _say_phones(port: int | None) -> None:
    if port is not None:
        print(f"Phones: open http://127.0.0.1:{port}/ (pair: 'Pair a phone' in the game menu)")
