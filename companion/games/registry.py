"""Which games the box knows: replay name -> module exposing ``GAME``.

The list, the menu's titles, the files of the owner's a game reads (companion/games/data/
games.toml) and the options a game's menu shows before it starts (game_options.toml, read when a
game's options are first shown) are data, so the menu and the start import no game: a game's
module is imported when it is played (on a Pi Zero the games' modules are a fifth of the start)."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import logging
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from companion.games.base import BadAction, Option

log = logging.getLogger(__name__)

DATA = Path(__file__).with_name("data") / "games.toml"
OPTIONS_DATA = DATA.with_name("game_options.toml")


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
    """Games whose module is there, in menu order (found, not imported; looked for once: the
    start asks for each game, and a search of the path is dear on a Pi Zero)."""
    return list(_found(tuple(MODULES.items())))


@functools.cache
def _found(modules: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    names = []
    for name, module in modules:
        try:
            found = module in sys.modules or importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            names.append(name)
    return tuple(names)


def title(name: str) -> str:
    """The game's name as the menu shows it, without importing the game."""
    entry = ENTRIES.get(name)
    return entry["title"] if entry else name


def short_title(name: str) -> str:
    """The game's name where its title may not fit ("Deathtrap" for Deathtrap Dungeon)."""
    entry = ENTRIES.get(name)
    return entry.get("short_title", entry["title"]) if entry else name


def options(name: str) -> tuple[Option, ...]:
    """The options the game's menu shows before it starts, without importing the game."""
    return _options().get(name, ())


_read_options: dict[str, tuple[Option, ...]] = {}


def _options(path: Path = OPTIONS_DATA) -> dict[str, tuple[Option, ...]]:
    if not _read_options:
        for game, entries in _load(path).items():
            _read_options[game] = tuple(_option(entry) for entry in entries)
    return _read_options


def _option(entry: dict[str, Any]) -> Option:
    bounds = entry.get("bounds")
    return Option(
        entry["name"],
        entry["label"],
        entry["default"],
        choices=tuple(entry.get("choices", ())),
        presets=tuple(entry.get("presets", ())),
        bounds=(bounds[0], bounds[1]) if bounds else None,
        only_if=tuple((k, tuple(v)) for k, v in entry.get("only_if", {}).items()),
        also_if=tuple((k, tuple(v)) for k, v in entry.get("also_if", {}).items()),
    )


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
