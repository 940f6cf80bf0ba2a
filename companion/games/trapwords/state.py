"""Trapwords state: immutable, so a fold of the journal's actions always gives the same game."""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.timer import Timer
from companion.games.trapwords.data import TABLES, Monster
from companion.games.trapwords.dungeon import TEAMS, glowing_for

# Phases of the game, in the order a turn goes through them.
READY = "ready"  # between turns: the box says who gives clues; ok starts
READING = "reading"  # official mode: the clue-giver reads the word, the timer waits
WAITING = "waiting"  # clue mode: the timer waits for the first clue
RUNNING = "running"
PAUSED = "paused"
WHY = "why"  # a long press on red: the turn failed, the box asks why
OVER = "over"

IN_TURN = (READING, WAITING, RUNNING, PAUSED)

REASONS = ("trap", "illegal")  # the choices of a turn ended as a failure


@dataclass(frozen=True)
class Settings:
    """The options of this game, parsed, with the random monster resolved."""

    rooms: tuple[int, ...]
    seconds: float
    start_mode: str
    read_seconds: float
    tiebreak: bool
    monster: str
    nasty: bool
    tick: bool
    curses: tuple[int, ...]

    @property
    def monster_info(self) -> Monster:
        return TABLES.monster(self.monster)


@dataclass(frozen=True)
class Turn:
    """A finished turn of this round: who, how it ended, how much clock time it used."""

    team: str
    result: str
    used: float

    @property
    def guessed(self) -> bool:
        return self.result == "correct"


@dataclass(frozen=True)
class CurseNamed:
    """A curse revealed this round and tapped: the card and where it applies."""

    card: str
    name: str
    where: str  # "room 4" or "Mummy"
    void: bool = False  # it has no effect where it lies (Word of Terror in the first room)


@dataclass(frozen=True)
class RoundReport:
    """What the end of a round changed on the table, shown until the next round is under way:
    the players move the pieces by hand, so the box tells them which."""

    round: int
    last: Turn  # the round's second turn: how it ended
    advanced: tuple[tuple[str, int], ...]  # (team, new room)
    monster_to: int | None  # the monster's new room, if it moved
    pushes: tuple[tuple[int, int], ...]  # curses pushed (from room, to room), one per curse
    discarded: tuple[int, ...]  # rooms whose curse has applied and goes, one per curse
    monster_discards: int = 0  # curses the monster brought this round (the Mummy's): they go


@dataclass(frozen=True)
class TrapwordsState:
    settings: Settings
    round: int
    team_rooms: tuple[int, int]  # A, B
    monster_room: int
    curse_rooms: tuple[int, ...]
    battled: bool  # a team has fought the monster: it never moves again
    order: tuple[str, str]  # clue-givers of this round, first to last
    turns: tuple[Turn, ...]  # finished turns of this round
    phase: str
    guesses_left: int
    timer: Timer
    last_at: float  # the time of the last journaled action
    result: str | None = None
    winner: str | None = None
    why: str = "trap"  # cursor of the failure choice
    before_why: str = RUNNING  # the phase to go back to if the failure choice is dropped
    named: tuple[CurseNamed, ...] = ()
    report: RoundReport | None = None  # the round just ended, until ok moves on or a turn starts
    report_page: int = 0  # which page of the report is shown (ok turns the page)
    show_map: bool = False  # between turns: the dungeon picture instead of the text page
    menu_paused: bool = False  # the timer stands still because the box's menu is open
    # The time the screen's countdown was last brought up to: a tick's, which is never journaled
    # (so a fold of the journal, without ticks, still equals the state the box plays on).
    shown_at: float = field(default=0.0, compare=False)

    # --- derived facts: the same for the whole round --------------------------------------

    def room_of(self, team: str) -> int:
        return self.team_rooms[0] if team == "A" else self.team_rooms[1]

    @property
    def glowing(self) -> str:
        return glowing_for(self.round)

    @property
    def clue_team(self) -> str | None:
        if self.phase == OVER:
            return None
        return self.order[min(len(self.turns), 1)]

    @property
    def battling(self) -> tuple[str, ...]:
        """Teams that started this round in the monster's room."""
        return tuple(t for t in TEAMS if self.room_of(t) == self.monster_room)

    @property
    def cursed_rooms(self) -> tuple[int, ...]:
        """Rooms whose curse applies this round: a team plays in them (each curse once)."""
        occupied = set(self.team_rooms)
        return tuple(room for room in self.curse_rooms if room in occupied)

    @property
    def live_curses(self) -> tuple[int, ...]:
        """The rooms of this round's curses that do something: a void one (a Word of Terror in
        the first room) is discarded as it is revealed and curses no one."""
        named = self.named
        return tuple(
            room
            for at, room in enumerate(self.cursed_rooms)
            if not (at < len(named) and named[at].void)
        )

    @property
    def cursed_teams(self) -> tuple[str, ...]:
        """The teams a curse applies to this round: those in a room whose curse applies, and
        those fighting a monster that brings curses (the Mummy's lies where it is fought)."""
        live = self.live_curses
        fighting = self.battling if self.live_monster_curses > 0 else ()
        return tuple(t for t in TEAMS if self.room_of(t) in live or t in fighting)

    @property
    def live_monster_curses(self) -> int:
        """The monster's new curses this round less the void ones, already discarded."""
        void = sum(1 for n in self.named[len(self.cursed_rooms) :] if n.void)
        return self.monster_curses - void

    @property
    def monster_curses(self) -> int:
        """New curses the teams draw this round for fighting the monster (the Mummy's)."""
        if not self.battling:
            return 0
        return self.settings.monster_info.curses_per_battle(self.settings.nasty)

    @property
    def curses_to_name(self) -> int:
        return len(self.cursed_rooms) + self.monster_curses
