"""What the box is doing, as one value: the game in play, the menu on screen over it, the
question of play waiting under the box's own menu, the cards held for an open question, the
notice, where dice come from, and what the reader said. Nothing else about play lives anywhere:
the App keeps only the devices and this value.

Everything in it is frozen, the menus too (companion/ui/menus.py): a press makes a new menu, so
a value, once made, is never changed."""

from __future__ import annotations

from typing import Any

from companion.app.session import Session
from companion.core.registry import Card
from companion.core.values import frozen
from companion.ui.screen import Lights, Screen


@frozen
class BoxState:
    session: Session | None = None  # the game being played
    menu: Any = None  # the menu on screen (companion.ui.menus.Menu, or the phones' PairCode)
    menu_of_play: bool = False  # that menu is a question or pages the game opened
    # A question of play waiting under the box's own menu, with the state it was opened on:
    # it comes back when the box's menu closes on that very state.
    under_menu: tuple[Any, Any] | None = None
    held_taps: tuple[Card, ...] = ()  # this game's cards tapped while its question was open
    # That question was opened by a card: left with back, the cards held for it go with it (the
    # table gave up what the first card began); one a button opened keeps them for the turn.
    form_by_tap: bool = False
    toast: tuple[Screen, Lights] | None = None  # a notice over the screen for a moment
    toast_pages: tuple[Screen, ...] = ()  # the notice's pages still to come
    table_dice: bool = False  # dice from the table (entered by hand), else the box rolls
    reader_status: str = "no reader"
    storage: str = "ok"  # the state dir's condition (companion.core.storage): "ok" or why not
