"""The App's side of players and plays (issue 48): the seats' names of the game in play
(core/players.py), and each finished game kept as a play with them (core/plays.py). Names are
the box's data, not the game's: naming a seat is no move of the game, never journaled and never
undone; it is written to players.json at once, and a play already kept takes the new names.

A play that cannot be written (a full or read-only card) is said as the records are ("not
saved"); the step keeps the play again after every move and once the storage takes writes."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from companion.app import events
from companion.app.boxstate import BoxState
from companion.app.effects import KeepPlay, NameSeats
from companion.app.session import Session
from companion.core import player_changes
from companion.core import plays as playfile
from companion.core.players import BadName, Players, clean
from companion.core.plays import Plays
from companion.games import played
from companion.ui import names as names_on_screen
from companion.ui.screen import Lights, Screen

log = logging.getLogger("companion.app")


class Seating:
    """Mixed into the App (box.py), which makes ``players`` and ``plays``."""

    box: BoxState
    players: Players
    plays: Plays
    recording: bool
    plays_added: list[dict[str, Any]]
    today: Callable[[], str]
    session: Session | None
    feed: Callable[..., None]
    refresh: Callable[[], None]
    note: Callable[[str], None]

    def seat_names(self) -> list[str | None] | None:
        """The names of the game in play's seats in seat order (None: unnamed); None with
        no game."""
        session = self.session
        if session is None:
            return None
        seats = played.named_seats(session.name, session.options)
        return self.players.seated(session.record_key, len(seats))

    def name_seats(self, names: Sequence[str | None]) -> None:
        """Name the seats of the game in play, seat 1 first (None: unnamed; seats past the
        names given are unnamed). BadName for a name the box does not take or too many names;
        a file that cannot be written is said, and nothing changes."""
        session = self.session
        if session is None:
            raise BadName("no game is being played")
        seats = len(played.named_seats(session.name, session.options))
        if len(names) > seats:
            raise BadName(f"{session.name} has {seats} seat(s) to name, got {len(names)} names")
        full = [*names, *([None] * (seats - len(names)))]
        for name in full:
            if name is not None:
                clean(name)  # BadName before anything is written
        if self._set_names(session.record_key, seats, full):
            self.refresh()

    def change_player(self, change: player_changes.Change) -> str:
        """A player renamed, merged or forgotten from a face (web/players_api.py), on the
        loop: both files written whole (core/player_changes.py), the screen drawn again with
        the names as they are now. What was done, in words; OSError when the card refuses it
        (said on the box too, and nothing changed)."""
        try:
            changed = player_changes.make(self.players, self.plays, change)
        except OSError as err:
            log.error("players not saved: %s", err)
            self.feed(events.ShowNotice(("Names not saved", "see log")))
            raise
        said = player_changes.done(change, changed)
        self.note(f"players: {said}")
        self.refresh()
        return said

    def add_player_names(self, names: list[str]) -> list[str]:
        """Names to pick from (imported from a BG Stats file on a face): the ones the box did
        not know, written to players.json at once; BadName for a name it does not take, OSError
        when the card refuses it (said on the box too), nothing changed either way."""
        try:
            added = self.players.add_all(names)
        except OSError as err:
            log.error("players not saved: %s", err)
            self.feed(events.ShowNotice(("Names not saved", "see log")))
            raise
        self.note(f"players: {len(added)} name(s) added to pick from")
        return added

    def _name_seats(self, effect: NameSeats) -> None:
        """Seats named on the box (app/seat_menus.py)."""
        session = self.session
        if session is None or session.record_key != effect.key:
            return
        seats = len(played.named_seats(session.name, session.options))
        self._set_names(effect.key, seats, list(effect.names))

    def _set_names(self, key: str, seats: int, full: list[str | None]) -> bool:
        """players.json written, and the game's play if it is kept; False (and a notice) when
        the card refuses it."""
        try:
            self.players.seat(key, full)
            kept = self.plays.get(key)
            if kept is not None:
                named = self.players.seated(key, seats)
                renamed = [
                    {**s, "player": named[i] if i < seats else None}
                    for i, s in enumerate(kept["seats"])
                ]
                self.plays.sync(key, {**kept, "seats": renamed}, self.today())
        except OSError as err:
            log.error("players not saved: %s", err)
            self.feed(events.ShowNotice(("Names not saved", "see log")))
            return False
        return True

    def _with_names(self, shown: tuple[Screen, Lights]) -> tuple[Screen, Lights]:
        """A game's own screen (not the box's menus, not a notice) with its named seats'
        names where it names the seat (ui/names.py); as it is with none named."""
        box = self.box
        session = box.session
        if session is None or box.toast is not None:
            return shown
        if box.menu is not None and not box.menu_of_play:
            return shown
        seats = played.named_seats(session.name, session.options)
        named = self.players.seating.get(session.record_key)
        if not named:
            return shown
        names = {s: n for s, n in zip(seats, named, strict=False) if n is not None}
        return names_on_screen.with_names(shown[0], names), shown[1]

    def _keep_play(self, effect: KeepPlay) -> None:
        play = None
        if effect.report is not None:
            names = self.players.seated(effect.key, effect.seats)
            play = playfile.make(
                effect.key,
                effect.game,
                effect.options,
                effect.report,
                names,
                effect.date,
                effect.seconds,
            )
        try:
            added = self.plays.sync(effect.key, play, effect.date)
        except OSError as err:
            log.error("play not saved: %s", err)
            self.feed(events.RecordsFailed(), draw=False)
            return
        if added is not None and self.recording:
            self.plays_added.append(added)
