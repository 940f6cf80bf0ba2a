"""Options several commands share."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from companion.core import config as configuration
from companion.core import statedir


def add_config_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help=f"configuration file (default: {configuration.DEFAULT_PATH} if it exists)",
    )


def load_config(args: argparse.Namespace) -> configuration.Config:
    return configuration.load(getattr(args, "config", None))


def add_state_dir_args(
    parser: argparse.ArgumentParser, sim_choice: bool = False, sim: bool = False
) -> None:
    """``--state-dir DIR``; with ``sim_choice`` also ``--sim``, the simulator's own dir
    (``sim``: the command is the simulator, whose default is that dir)."""
    # Named as this environment has them (XDG_STATE_HOME), never a fixed ~/.local/state.
    default = (
        configuration.Config.sim_state_dir()
        if sim
        else f"the installed box's {configuration.INSTALLED_STATE_DIR} or "
        f"{configuration.Config.user_state_dir()}"
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        metavar="DIR",
        help=f"the directory of the journal and cards (default: the config's state.dir, else "
        f"{default})",
    )
    if sim_choice:
        parser.add_argument(
            "--sim",
            action="store_true",
            help="the simulator's state directory (where `trap-companion sim` keeps its "
            f"cards: {configuration.Config.sim_state_dir()} unless state.dir says otherwise)",
        )


def with_state_dir(
    config: configuration.Config,
    args: argparse.Namespace,
    sim: bool = False,
    write: bool = True,
    refusal_ok: bool = False,
) -> configuration.Config:
    """``config`` with its state dir resolved and checked before anything uses it.

    --state-dir wins, then the config's state.dir, then the default: the simulator's own dir
    when ``sim`` (it never touches an installed daemon's game), else the daemon's.
    A dir that cannot serve stops here with one line naming it (exit 78 from the config,
    73 otherwise). ``refusal_ok``: the box itself (`run`, `sim`) starts on a dir that is there
    but full or read-only, and plays with a notice.
    """
    given = getattr(args, "state_dir", None)
    if given is not None:
        path, origin = given.expanduser(), statedir.FROM_ARGUMENT
    elif config.state.dir:
        path, origin = config.state_dir(), statedir.FROM_CONFIG
    elif sim:
        path, origin = config.sim_state_dir(), statedir.FROM_DEFAULT
    else:
        path, origin = config.state_dir(), statedir.FROM_DEFAULT
    statedir.check(path, origin, config.at("state.dir"), write=write, refusal_ok=refusal_ok)
    return dataclasses.replace(config, state=dataclasses.replace(config.state, dir=str(path)))
