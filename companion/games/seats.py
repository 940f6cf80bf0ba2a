"""Seats for the table games (Cover Your Asps, Deathtrap Dungeon, Hostage Trap!): who sits
where, whose turn comes next, and the colour each seat shows on the LED.

Seats are numbered 1..players clockwise, and play goes clockwise: a seat's left is the next
seat, its right the previous one. Seat numbers are integers in rules and strings in the replay
contract's state maps.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from companion.errors import DataError
from companion.games.base import Action, BadAction
from companion.games.datafile import colour, need, read_toml, shipped
from companion.ui.screen import RGB, Lights, Screen

SEATS_FILE = "seats.toml"
T = TypeVar("T")


@dataclass(frozen=True)
class SeatLook:
    name: str
    colour: RGB


@cache
def looks() -> tuple[SeatLook, ...]:
    """Every seat's colour and colour name, from companion/games/data/seats.toml."""
    data = read_toml(shipped(SEATS_FILE))
    seats = need(data, "seat", list, SEATS_FILE)
    out = []
    for i, seat in enumerate(seats, start=1):
        where = f"{SEATS_FILE} seat {i}"
        if not isinstance(seat, dict):
            raise DataError(f"{where}: expected a table")
        out.append(SeatLook(need(seat, "name", str, where), colour(seat.get("colour"), where)))
    return tuple(out)


def max_seats() -> int:
    return len(looks())


@dataclass(frozen=True)
class Ring:
    """The table's seats in clockwise order."""

    players: int

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(range(1, self.players + 1))

    def left(self, seat: int) -> int:
        """The next seat clockwise: the player on ``seat``'s left, who plays after it."""
        return seat % self.players + 1

    def right(self, seat: int) -> int:
        """The previous seat: the player on ``seat``'s right."""
        return (seat - 2) % self.players + 1

    def clockwise_from(self, seat: int) -> tuple[int, ...]:
        """Every seat once, starting with ``seat``."""
        return tuple((seat - 1 + i) % self.players + 1 for i in range(self.players))

    def next_among(self, seat: int, among: Collection[int]) -> int | None:
        """The first seat on ``seat``'s left that is in ``among`` (``seat`` itself last), or
        None when ``among`` holds no seat: the lead passing left past players who are out."""
        for candidate in self.clockwise_from(self.left(seat)):
            if candidate in among:
                return candidate
        return None


def seat_arg(action: Action, key: str, players: int) -> int:
    """A seat named in an action (``player=3``): a whole number 1..players, ASCII digits only."""
    raw = str(action.arg(key)).strip()
    if not (raw.isascii() and raw.isdigit()):
        raise BadAction(f"{key}={raw!r} is not a seat number (1..{players})")
    seat = int(raw)
    if not 1 <= seat <= players:
        raise BadAction(f"{key}={seat} is not a seat at this table (1..{players})")
    return seat


def by_seat(values: Mapping[int, T]) -> dict[str, T]:
    """A seat map as the replay contract writes it: string keys in seat order."""
    return {str(seat): values[seat] for seat in sorted(values)}


def label(seat: int) -> str:
    return f"Seat {seat}"


def lights(seat: int, pattern: str = "solid") -> Lights:
    """The LED in the seat's own colour, so the table sees whose turn it is from afar."""
    table = looks()
    return Lights(table[(seat - 1) % len(table)].colour, pattern)


def turn_screen(
    title: str, seat: int, line: str, footer: str, pattern: str = "solid"
) -> tuple[Screen, Lights]:
    """The common turn screen: the seat number large, one line under it, the seat's colour."""
    return Screen(title, (line,), big=str(seat), footer=footer, big_seat=seat), lights(
        seat, pattern
    )
