"""`trap-companion run`: the daemon systemd starts at boot."""

from __future__ import annotations

import argparse

from companion.commands._common import add_config_arg, load_config, with_state_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the box (the daemon systemd starts)",
        description="Run the companion on the configured hardware until SIGTERM or Ctrl-C. "
        "Exit status 78 on a configuration error, 69 when a required part is missing.",
    )
    add_config_arg(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from companion.daemon import Daemon

    return Daemon(with_state_dir(load_config(args), args, refusal_ok=True)).run()
