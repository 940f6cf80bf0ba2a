"""Which games the box knows: replay name -> module exposing ``GAME``.

The list, the menu's titles and the files of the owner's a game reads are data
(companion/games/data/games.toml), so the menu and the start import no game: a game's module is
imported when it is played (on a Pi Zero the games' modules are a fifth of the start)."""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from companion.games.base import BadAction

log = logging.getLogger(__name__)

DATA = Path(__file__).with_name("data") / "games.toml"


def _load(path: Path = DATA) -> dict[str, dict[str, Any]]:
    with path.open("rb") as f:
        return tomllib.load(f)


ENTRIES: dict[str, dict[str, Any]] = _load()
MODULES: dict[str, str] = {name: entry["module"] for name, entry in ENTRIES.items()}

# Named in the replay contract, not built yet: asking for them says so instead of "unknown".
PLANNED: tuple[str, ...] = ()

_state_dir: Path | None = None  # where the owner's files are, for a game attached when loaded
_attached: set[str] = set()


def available() -> list[str]:
    """Games whose module is there, in menu order (found, not imported)."""
    names = []
    for name, module in MODULES.items():
        try:
            found = module in sys.modules or importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            names.append(name)
    return names


def title(name: str) -> str:
    """The game's name as the menu shows it, without importing the game."""
    entry = ENTRIES.get(name)
    return entry["title"] if entry else name


def short_title(name: str) -> str:
    """The game's name where its title may not fit ("Deathtrap" for Deathtrap Dungeon)."""
    entry = ENTRIES.get(name)
    return entry.get("short_title", entry["title"]) if entry else name


def get(name: str) -> Any:
    if name in PLANNED:
        raise BadAction(f"game {name!r} is planned but not built yet")
    if name not in MODULES or name not in available():
        raise BadAction(f"unknown game {name!r} (known: {', '.join(available())})")
    game = importlib.import_module(MODULES[name]).GAME
    if name not in _attached and _state_dir is not None:
        _attached.add(name)
        for line in game.attach(_state_dir):
            log.warning("%s: %s", name, line)
    return game


def attach(state_dir: Path) -> list[tuple[str, ...]]:
    """Games read the owner's files (a card pack) from ``state_dir``: now if the game is loaded
    or one of its files is there (its problems, to show), else when it is first played."""
    global _state_dir
    _state_dir = state_dir
    _attached.clear()
    problems = []
    for name, entry in ENTRIES.items():
        owner = any(os.path.lexists(state_dir / f) for f in entry.get("owner_files", ()))
        if name in available() and (owner or MODULES[name] in sys.modules):
            _attached.add(name)
            problem = get(name).attach(state_dir)
            if problem:
                problems.append(tuple(problem))
    return problems
