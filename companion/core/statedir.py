"""The state directory (journal, cards) must be a directory the box can write. Checked before
anything starts, so a bad path is one line naming it and its problem, never a traceback from
deep inside the journal, and never after the terminal or the hardware has been taken over.

A directory that is there but refuses writes for now (a full or read-only card) is no reason
for the box itself not to start (``refusal_ok``): it plays in memory with a notice (see
``companion/core/storage.py``); only a state dir that cannot exist at all stops it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from companion.core import storage
from companion.errors import ConfigError, StateDirError

# Where a state dir came from: the config (exit 78), the command line, or a default (exit 73).
FROM_CONFIG = "config"
FROM_ARGUMENT = "argument"
FROM_DEFAULT = "default"


def _nearest_existing(path: Path) -> Path:
    existing = path
    while not existing.exists() and existing != existing.parent:
        if existing.is_symlink():
            break  # a dangling link: let the checks below name it
        existing = existing.parent
    return existing


def problem(
    path: Path, write: bool = True, create: bool = True, refusal_ok: bool = False
) -> str | None:
    """Why ``path`` cannot be the state dir, or None when it can.

    ``write`` also asks for something to be made there (a read-only disk, /proc). A missing
    dir is made when ``create`` (and ``write``: a command that only reads makes nothing),
    else only probed: a dir made and removed in its nearest existing parent, so that
    `config check` and `cards list` leave nothing behind.
    """
    existing = _nearest_existing(path)
    if existing != path:
        if not existing.is_dir():
            return f"lies inside {existing}, which is not a directory"
        if not (create and write):
            return _probe(existing, "cannot be created")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            return f"cannot be created ({err.strerror or err})"
    elif not path.is_dir():
        return "is a file, not a directory"
    if not write:
        return None if os.access(path, os.R_OK | os.X_OK) else "cannot be read"
    return _probe(path, "is not writable", refusal_ok)


def _probe(directory: Path, failure: str, refusal_ok: bool = False) -> str | None:
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".trap-companion-probe-", dir=directory))
    except OSError as err:
        if refusal_ok and storage.is_condition(err):
            return None  # full or read-only: the box plays on with a notice
        return f"{failure} ({err.strerror or err})"
    return None


def check(
    path: Path,
    origin: str,
    source: str = "",
    write: bool = True,
    create: bool = True,
    refusal_ok: bool = False,
) -> Path:
    """``path`` if it can serve; else an error naming the path, its problem, and where the
    path came from (``source``: the config file for FROM_CONFIG)."""
    why = problem(path, write=write, create=create, refusal_ok=refusal_ok)
    if why is None:
        return path
    if origin == FROM_CONFIG:
        raise ConfigError(f"{source}: state.dir = {str(path)!r}: the state directory {why}")
    if origin == FROM_ARGUMENT:
        raise StateDirError(f"--state-dir {path}: the state directory {why}")
    raise StateDirError(
        f"{path}: the state directory {why} (choose one with --state-dir or state.dir)"
    )
