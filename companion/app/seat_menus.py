"""The game menu's "Players" (issue 48): a seat picked, then its player picked from the names
the box knows, the most recent first, "guest" always there, or no name. Names are typed on the
page or a paired phone (or taken from a BG Stats file: `trap-companion records import-names`);
the box only picks. The entry is offered once the box knows a name, so a box that knows none
shows the game menu as before.

Picking a name asks the App to write it (``NameSeats``); the seats' menu comes back on the seat
just named. Back leaves to play, as the game menu does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.app.effects import NameSeats
from companion.core.players import GUEST
from companion.games import played
from companion.games import registry as games
from companion.ui import menus
from companion.ui.screen import Screen

if TYPE_CHECKING:
    from companion.app.draft import Draft

SEATS = "seats_pick"  # the seats' menu: which seat to name
NAMES = "seats_name"  # a seat's names: which player sits there
KINDS = (SEATS, NAMES)
UNNAMED = "(no name)"


def _seats(d: Draft) -> list:
    session = d.session
    return played.named_seats(session.name, session.options) if session else []


def _seated(d: Draft) -> list[str | None]:
    players = d.world.players
    if players is None or d.session is None:
        return []
    return players.seated(d.session.record_key, len(_seats(d)))


def offered(d: Draft) -> bool:
    """The game menu offers "Players": the game has seats and the box knows a name."""
    players = d.world.players
    return players is not None and bool(players.used) and bool(_seats(d))


def at_start(d: Draft) -> None:
    """A game started from its options on the box: when the box knows names, the seats' menu
    opens first, over the game's first question (which comes back once it is left); play is
    paused meanwhile, as under the game menu. A box that knows no name starts as before."""
    if d.session is None or not offered(d):
        return
    from companion.app import play  # the step's handlers call down into play

    play.cover_play_menu(d)
    play.pause_play(d)
    open_seats(d)


def label(seat: object) -> str:
    return f"Team {seat}" if isinstance(seat, str) else f"Seat {seat}"


def open_seats(d: Draft, cursor: int = 0) -> None:
    names = _seated(d)
    items = tuple(f"{label(s)}: {n or '-'}" for s, n in zip(_seats(d), names, strict=True))
    keys = tuple(str(i) for i in range(len(items)))
    d.menu = menus.ListMenu("Players", items, keys, SEATS, cursor=cursor)


def step(d: Draft, kind: str, data: dict) -> None:
    """A pick in one of the two menus."""
    if kind == SEATS:
        index = int(data["key"])
        choices = [*d.world.players.choices(), UNNAMED]
        keys = tuple(f"{index}:{'' if c == UNNAMED else c}" for c in choices)
        title = label(_seats(d)[index])
        d.menu = menus.ListMenu(title, tuple(choices), keys, NAMES)
        return
    index_text, _, name = data["key"].partition(":")
    index = int(index_text)
    names = _seated(d)
    names[index] = name or None
    if name and name != GUEST:
        others = [i for i, n in enumerate(names) if n == name and i != index]
        for i in others:  # one person sits in one seat: the old seat is unnamed
            names[i] = None
    d.out.append(NameSeats(d.session.record_key, tuple(names)))
    seat = label(_seats(d)[index])
    d.note(f"{seat}: {name or 'no name'}")
    # The menu shows the names as they will be once written.
    shown = tuple(f"{label(s)}: {n or '-'}" for s, n in zip(_seats(d), names, strict=True))
    keys = tuple(str(i) for i in range(len(shown)))
    d.menu = menus.ListMenu("Players", shown, keys, SEATS, cursor=index)


def has_player_records(d: Draft) -> bool:
    """Some play of this game names a player: its menu offers "Records" (top three)."""
    plays = d.world.plays
    session = d.session
    if plays is None or session is None:
        return False
    return any(
        p["game"] == session.name and any(s["player"] for s in p["seats"])
        for p in plays.by_key.values()
    )


def player_page(d: Draft) -> Screen | None:
    from companion.ui.player_records import top_page  # only when asked for

    session = d.session
    return top_page(games.short_title(session.name), d.world.plays.plays, session.name)
