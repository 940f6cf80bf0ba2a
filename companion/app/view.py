"""What the box shows, drawn from its value alone: the notice, the menu, the game's screen or
the idle screen on top; the game's public state for replay and the faces."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from companion.app.boxstate import BoxState
from companion.core import storage
from companion.ui import menus
from companion.ui.screen import OFF, RGB, Lights, Screen

MENU_LIGHT: RGB = (0.25, 0.25, 0.25)  # a dim white: no game colour means "menu"
READER_DOWN = ("reader lost", "reader error")  # how the runner's status says it cannot read


def current(box: BoxState) -> tuple[Screen, Lights]:
    """What is on top, titled with the storage's condition while it refuses moves."""
    screen, lights = _on_top(box)
    if box.storage != storage.OK:
        screen = replace(screen, title=storage.TITLES[box.storage])
    return screen, lights


def _on_top(box: BoxState) -> tuple[Screen, Lights]:
    if box.toast is not None:
        return box.toast
    if box.menu is not None:
        drawn = _game_drawn(box)
        return drawn or (box.menu.screen(), Lights(MENU_LIGHT, "solid"))
    if box.session is not None:
        return box.session.rules.view(box.session.state)
    return Screen("Trap Companion", ("Press back",)), Lights(OFF)


def _showing(menu: Any) -> Any:
    """What a menu of play shows, for a game that draws or names it (None: not such a menu)."""
    if isinstance(menu, menus.FormMenu | menus.PageMenu):
        return menu.showing()
    return None


def _game_drawn(box: BoxState) -> tuple[Screen, Lights] | None:
    """A menu of play drawn by the game in its own way (its ``menu_view``), else None."""
    session = box.session
    showing = _showing(box.menu) if box.menu_of_play else None
    if session is None or showing is None:
        return None
    return session.rules.menu_view(session.state, showing)


def public_state(box: BoxState) -> dict | None:
    """The game's public state, with what its own menu shows where the game names that (its
    ``menu_public``, given the menu of play open or waiting, or None)."""
    session = box.session
    if session is None:
        return None
    out = session.rules.public(session.state)
    menu = box.menu if box.menu_of_play else None
    if menu is None and box.under_menu is not None:
        menu = box.under_menu[0]
    out.update(session.rules.menu_public(_showing(menu)))
    return out
