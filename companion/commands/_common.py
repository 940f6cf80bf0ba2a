"""Options several commands share."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.core import config as configuration


def add_config_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help=f"configuration file (default: {configuration.DEFAULT_PATH} if it exists)",
    )


def load_config(args: argparse.Namespace) -> configuration.Config:
    return configuration.load(getattr(args, "config", None))
