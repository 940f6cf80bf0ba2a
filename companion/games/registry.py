"""Which games the box knows: replay name -> module exposing ``GAME``."""

from __future__ import annotations

import importlib
from typing import Any

from companion.games.base import BadAction

MODULES: dict[str, str] = {
    "dice": "companion.games.dice",
    "trap-attack": "companion.games.trap_attack",
    "trapwords": "companion.games.trapwords",
    "hostage-trap": "companion.games.hostage_trap",
    "cover-your-asps": "companion.games.cover_your_asps",
    "deathtrap-dungeon": "companion.games.deathtrap_dungeon",
}

# Named in the replay contract, not built yet: asking for them says so instead of "unknown".
PLANNED: tuple[str, ...] = ()


def available() -> list[str]:
    """Games whose module can be imported, in menu order."""
    names = []
    for name, module in MODULES.items():
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise
            continue
        if hasattr(loaded, "GAME"):
            names.append(name)
    return names


def get(name: str) -> Any:
    if name in PLANNED:
        raise BadAction(f"game {name!r} is planned but not built yet")
    if name not in MODULES or name not in available():
        raise BadAction(f"unknown game {name!r} (known: {', '.join(available())})")
    return importlib.import_module(MODULES[name]).GAME
