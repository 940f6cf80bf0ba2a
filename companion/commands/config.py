"""`trap-companion config check FILE`: validate a configuration before the daemon reads it."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.core import config as configuration
from companion.core import statedir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="check or show configuration files")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    check = verbs.add_parser(
        "check",
        help="validate a config file (exit 78 naming the bad key and value)",
        description="Read FILE as the daemon would and report the first problem.",
    )
    check.add_argument("file", type=Path)
    check.set_defaults(func=check_main)
    example = verbs.add_parser("example", help="print the commented example configuration")
    example.set_defaults(func=example_main)


def check_main(args: argparse.Namespace) -> int:
    config = configuration.load(args.file)
    origin = statedir.FROM_CONFIG if config.state.dir else statedir.FROM_DEFAULT
    statedir.check(config.state_dir(), origin, config.at("state.dir"), create=False)
    print(f"{args.file}: ok")
    print(f"  state directory: {config.state_dir()}")
    print(
        f"  pins: {config.hardware.pin_factory}; display: {config.display.driver}; "
        f"reader: {config.reader.type} on {config.reader.port}"
    )
    return 0


def example_main(args: argparse.Namespace) -> int:
    from importlib import resources

    print(
        resources.files("companion.data").joinpath("config.example.toml").read_text("utf-8"), end=""
    )
    return 0
