"""Helpers for the Deathtrap Dungeon tests: a game driven by actions written as replay's
``do`` lines, and a check that every text of a screen is shown whole."""

from __future__ import annotations

from companion.games.base import Action
from companion.games.deathtrap_dungeon import GAME
from companion.games.deathtrap_dungeon.state import DeathtrapState
from companion.ui.fonts import ELLIPSIS
from companion.ui.render import layout
from companion.ui.screen import Screen


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


def uncut(screen: Screen) -> list[str]:
    """The texts as drawn; fails when one was cut or left out."""
    placed = layout(screen).texts
    drawn = [p.text for p in placed]
    for text in drawn:
        assert ELLIPSIS not in text, (screen, text)
    wanted = [
        t for t in (screen.title, screen.footer, screen.big, *screen.lines) if t and t.strip()
    ]
    assert sorted(drawn) == sorted(wanted), (screen, drawn)
    return drawn
