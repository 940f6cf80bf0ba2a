"""The game's state: frozen dataclasses, changed only with ``dataclasses.replace``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from companion.games.trap_attack.board import Board, Spot
from companion.games.trap_attack.tables import RuleTable

AI = "ai"
HUMANS = ("1", "2", "3")


@dataclass(frozen=True)
class Options:
    players: int = 1
    ai_route: str = "long"
    ai_move: str = "d4"
    ai: bool = True
    board: str = ""


@dataclass(frozen=True)
class Pawn:
    id: str
    life: int
    paralyzed_at: int | None = None  # the turn number when it was paralyzed
    loot: int = 0  # battle loot cards earned (their values are filed as scoring entries)

    @property
    def paralyzed(self) -> bool:
        return self.paralyzed_at is not None


@dataclass(frozen=True)
class Threat:
    """An offensive card waiting for its target to say blocked or taken."""

    kind: str  # damage, push, paralysis
    amount: int
    target: str
    by: str
    card: str
    name: str


@dataclass(frozen=True)
class Entries:
    """What a player filed for the final count; values stay off the screen during the race."""

    # (value, combo); (None, None) for a relic bought during the race with no tag: its value
    # and combo are asked once the race is over, and that entry then fills it in
    relics: tuple[tuple[int | None, int | None], ...] = ()
    loot: tuple[int, ...] = ()
    coins: int | None = None
    finish: tuple[int, bool] | None = None  # (space, holds the crystal)
    held: tuple[int, int] | None = None  # (relic cards, loot cards) a player says they hold

    @property
    def empty(self) -> bool:
        return self == Entries()

    @property
    def valued(self) -> tuple[tuple[int, int], ...]:
        """The relics whose value and combo are filed."""
        return tuple((v, c) for v, c in self.relics if v is not None and c is not None)


@dataclass(frozen=True)
class Played:
    """An action card a player tapped this turn, or a relic bought, for the per-turn limits."""

    by: str
    group: str  # attack, item or relic
    target: str | None


@dataclass(frozen=True)
class Roll:
    move: int | None = None  # the movement die's face, None when no movement die was rolled
    spaces: int | None = None  # spaces the AI moved
    action_face: int | None = None
    action: str | None = None  # block, relic or cast


@dataclass(frozen=True)
class State:
    options: Options
    board: Board
    rules: RuleTable
    pawns: tuple[Pawn, ...]  # the humans, then the AI (always kept, plays only if options.ai)
    ai_spot: Spot
    ai_relics: int = 0
    turn: str = "1"
    turn_no: int = 1
    played: tuple[Played, ...] = ()
    last_roll: Roll = field(default_factory=Roll)
    pending: str | None = None  # None, "card" or "block"
    threat: Threat | None = None
    discarded: int = 0  # no-effect items the AI drew for the current cast
    first_tie: tuple[str, ...] = ()  # who rolls again for the first player
    first_turn_passed: bool = False  # a turn has ended: who starts is settled
    first_rolled: bool = False  # the roll for who starts has named one (How to Play: Starting)
    winner: str | None = None
    scoring: bool = False  # scoring mode entered without a race winner
    entries: tuple[tuple[str, Entries], ...] = ()
    card_to: tuple[str, str] | None = None  # (relic|loot, who takes the next tapped one)
    message: tuple[str, ...] = ()  # the current instruction, at most three screen lines
    alert: bool = False
    leader: str = "1"  # who plays first in each round (the first player): a round ends before
    round_bought: bool = False  # a relic was bought in this round (else the row cycles)
    heading: str | None = None  # the top line instead of the title, until the next action

    @property
    def seats(self) -> tuple[str, ...]:
        """Turn order: the humans, then the AI when it plays."""
        humans = HUMANS[: self.options.players]
        return (*humans, AI) if self.options.ai else humans

    @property
    def humans(self) -> tuple[str, ...]:
        return HUMANS[: self.options.players]

    @property
    def race_over(self) -> bool:
        return self.winner is not None or self.scoring

    @property
    def awaits_first_roll(self) -> bool:
        """Nothing is played before the pawn dice say who starts (a game from before the roll
        was asked has its first turn behind it, and so needs none)."""
        return not (self.first_rolled or self.first_turn_passed or self.race_over)

    def pawn(self, pawn_id: str) -> Pawn:
        for pawn in self.pawns:
            if pawn.id == pawn_id:
                return pawn
        raise KeyError(pawn_id)

    def with_pawn(self, pawn: Pawn) -> State:
        return replace(self, pawns=tuple(pawn if p.id == pawn.id else p for p in self.pawns))

    def entry(self, pawn_id: str) -> Entries:
        return dict(self.entries).get(pawn_id, Entries())

    def with_entry(self, pawn_id: str, entry: Entries) -> State:
        table = dict(self.entries)
        table[pawn_id] = entry
        order = (*HUMANS, AI)
        return replace(
            self, entries=tuple(sorted(table.items(), key=lambda kv: order.index(kv[0])))
        )


def name(pawn_id: str) -> str:
    return "AI" if pawn_id == AI else f"Player {pawn_id}"


def short(pawn_id: str) -> str:
    return "AI" if pawn_id == AI else f"P{pawn_id}"
