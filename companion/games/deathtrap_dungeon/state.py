"""Deathtrap Dungeon state: immutable, so folding the journal always rebuilds the same game."""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.seats import Ring

DEAL = "deal"  # cards dealt (and swapped from round 2); the pig starts the round
PLAY = "play"
OVER = "over"

BIG_HERO = "big-hero"
HERO = "hero"
WIMP = "wimp"
TOTAL_WIMP = "total-wimp"

# Why the table is empty at the start of a hand (shown until the leader plays).
BY_PIG = "pig"
HAND_WON = "won"
KILLED = "killing-machine"


@dataclass(frozen=True)
class Settings:
    players: int
    rounds: int
    pig: str  # "left" or "choose"


@dataclass(frozen=True)
class Table:
    """The set lying on the table: ``n`` cards worth ``value`` each, put down by ``by``."""

    n: int
    value: int
    by: int
    wild: int = 0
    set: str | None = None


@dataclass(frozen=True)
class Building:
    """Cards tapped by the seat on turn, not yet submitted: one set and any wilds."""

    seat: int
    set: str | None = None
    value: int = 0
    cards: int = 0  # cards of the set (not wild)
    wild: int = 0
    uids: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return self.cards + self.wild


@dataclass(frozen=True)
class Exchange:
    giver: int
    to: int
    cards: int
    highest: bool  # the giver must give their highest cards (no special cards)


@dataclass(frozen=True)
class HandStart:
    """Why the table is empty and who caused it: the pig, a won hand, The Killing Machine."""

    why: str
    by: int


@dataclass(frozen=True)
class DeathtrapState:
    settings: Settings
    round: int = 1
    phase: str = DEAL
    turn: int | None = None
    leader: int | None = None
    table: Table | None = None
    passed: tuple[int, ...] = ()
    finished: tuple[int, ...] = ()
    titles: tuple[tuple[int, str], ...] = ()
    points: tuple[int, ...] = ()  # per seat, index 0 = seat 1
    history: tuple[tuple[int, ...], ...] = ()  # per scored round, points per seat
    exchanges: tuple[Exchange, ...] = ()
    winner: tuple[int, ...] | None = None
    building: Building | None = None
    played: frozenset[str] = frozenset()  # card tags put down this round
    wilds_down: int = 0  # wild cards put down this round: out of every hand until the next
    start: HandStart | None = None

    @property
    def ring(self) -> Ring:
        return Ring(self.settings.players)

    @property
    def holding(self) -> tuple[int, ...]:
        """Seats still holding cards this round, in seat order."""
        return tuple(s for s in self.ring.seats if s not in self.finished)
