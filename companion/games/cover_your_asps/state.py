"""Cover Your Asps state: immutable, so a fold of the journal's actions always gives the same
game. The table game (2-4 seats) and the solo mode are two small states; the box keeps what
players forget (whose turn, each raider's phase, the vault, cards in hand, treasure left), the
board itself stays on the table."""

from __future__ import annotations

from dataclasses import dataclass

BUILD = "build"
COLLECT = "collect"
ESCAPE = "escape"
PHASES = (BUILD, COLLECT, ESCAPE)

# The turn's one action (rulings 1): what ``acted`` remembers.
TURN_ACTIONS = ("plank", "enter", "move", "card")
REPORTS = ("entered", "built", "vault", "escaped")
SCORING = ("treasure", "planks", "youngest")
SOLO_ACTIONS = ("placed", "won", "lost")


@dataclass(frozen=True)
class Settings:
    players: int
    vault: int  # the vault the game starts with
    planking: str  # "dice" or "draw"
    tiebreak: str  # "planks" or "youngest"
    collect: str = "per-round"  # one treasure a seat a round, or "race" (rulings 4)


@dataclass(frozen=True)
class Seat:
    cards: int
    phase: str = BUILD
    inside: bool = False
    treasures: int = 0
    escapes: int = 0
    points: int | None = None
    planks: int | None = None
    counted: tuple[str, ...] = ()  # cards added one by one to ``points`` (UID, or "" if none)
    summed: bool = False  # ``points`` is a sum entered for all the seat's cards at once


@dataclass(frozen=True)
class TableState:
    settings: Settings
    seats: tuple[Seat, ...]  # seat 1 first
    turn: int
    round: int
    vault: int
    treasure_left: int
    last_roll: tuple[int, ...] = ()
    doubles: tuple[str, ...] | None = None
    acted: str | None = None  # the turn's action, once used
    checklist: str | None = None  # "vault" or "escape": the steps the table works through now
    card_name: str | None = None  # the action card just played, if it named itself
    reports: tuple[str, ...] = ()  # the reports of this turn
    last_counted: int | None = None  # the seat the last tapped treasure card went to
    over: bool = False
    youngest: int | None = None
    begun: bool = False  # a turn has been played: the setup is done
    swap_due: bool = False  # this turn's escape ended the round and a taller vault stands
    swap: bool = False  # the new round's first turn: the table swaps the vault in

    def seat(self, number: int) -> Seat:
        return self.seats[number - 1]

    def with_seat(self, number: int, seat: Seat) -> tuple[Seat, ...]:
        return tuple(seat if i == number else s for i, s in enumerate(self.seats, start=1))


@dataclass(frozen=True)
class SoloState:
    settings: Settings
    rolls: int = 0
    placed: int = 0
    last_roll: tuple[int, ...] = ()
    unused_roll: bool = False  # a roll not yet answered by a plank: one plank per roll
    result: str | None = None  # "won" or "lost"

    @property
    def over(self) -> bool:
        return self.result is not None


State = TableState | SoloState
