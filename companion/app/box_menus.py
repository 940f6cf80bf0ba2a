"""The box's own menus as they open: the game list (the games set aside first, then every
game, then the phones' entries) and the game menu over a game in play (its play paused while it
is open). menu_flow.py answers them; phones.py opens the game list again when a phones' screen
closes with no game in play."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.app import play, seat_menus
from companion.games import registry as games
from companion.ui import menus

if TYPE_CHECKING:
    from companion.app.draft import Draft

RESUME = "resume:"  # a game list entry that takes up the game of that kind set aside


def phone_entries(d: Draft) -> tuple[list[str], list[str]]:
    """The phones' entries, offered only when a phone face is on and its part is there."""
    phones = d.world.phones
    if phones is None or getattr(phones, "missing", ""):
        return [], []
    return ["Pair a phone", "Forget phones"], ["pair_phone", "forget_phones"]


def open_game_menu(d: Draft, also_waiting: tuple[str, ...] = ()) -> None:
    """The choice of game; the games set aside are offered first, the newest on top, each by
    a name that fits the line. ``also_waiting``: set aside in this very step (the world's list
    is the one before it)."""
    before = [n for n in d.world.waiting if n not in also_waiting]
    waiting = [n for n in reversed([*before, *also_waiting]) if n in games.available()]
    names = [*(f"{RESUME}{n}" for n in waiting), *games.available()]
    titles = [*(f"Resume {games.short_title(n)}" for n in waiting)]
    titles += [games.title(n) for n in games.available()]
    phone_items, phone_keys = phone_entries(d)  # phones may pair before any game
    titles, names = [*titles, *phone_items], [*names, *phone_keys]
    d.menu = menus.ListMenu("Choose a game", tuple(titles), tuple(names), "pick_game")


def open_session_menu(d: Draft) -> None:
    play.pause_play(d)
    rules = d.session.rules
    items = ["Resume", "Undo last", "New game", "Other game"]
    keys = ["resume", "undo", "new_game", "switch_game"]
    if rules.uses_dice:  # a game without dice: no choice
        items.append("Dice: table" if d.table_dice else "Dice: box")
        keys.append("dice")
    if rules.keeps_records or seat_menus.has_player_records(d):  # players' too (issue 48)
        items.append("Records")
        keys.append("records")
    if seat_menus.offered(d):  # names known to pick from (issue 48)
        items.append("Players")
        keys.append("players")
    if tuple(rules.catalog()):
        items.append("Enrol copies")
        keys.append("enrol_run")
    phone_items, phone_keys = phone_entries(d)
    items += phone_items
    keys += phone_keys
    d.menu = menus.ListMenu(rules.title, tuple(items), tuple(keys), "session")
