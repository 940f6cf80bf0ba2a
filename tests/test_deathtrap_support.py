"""Helpers for the Deathtrap Dungeon tests: a game driven by actions written as replay's
``do`` lines."""

from __future__ import annotations

from companion.games.base import Action
from companion.games.deathtrap_dungeon import GAME
from companion.games.deathtrap_dungeon.state import DeathtrapState


def new(**options: str) -> DeathtrapState:
    return GAME.initial(GAME.check_options(options), ()).state


def act(line: str) -> Action:
    """``"play n=2 value=3"`` -> the action replay's ``do`` would give."""
    name, *pairs = line.split()
    return Action(name, dict(pair.split("=", 1) for pair in pairs))


def run(state: DeathtrapState, *lines: str) -> DeathtrapState:
    for line in lines:
        state = GAME.apply(state, act(line)).state
    return state
