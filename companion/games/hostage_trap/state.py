"""Hostage Trap! state: immutable, so folding the journal's actions always rebuilds the game.

The box cannot see the hands. What it keeps is what the table loses track of: whose turn it is,
what this turn has already done, which seats still sit out turns for a trap, the turn timer, and
a claim being shown by tapping hostage cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from companion.games.seats import Ring
from companion.games.timer import Timer


@dataclass(frozen=True)
class Settings:
    players: int
    hand: int  # the hand a player draws up to (hostages do not count)
    hostages: int  # different hostages needed to win
    turn_seconds: int  # 0: no turn timer
    spares: str = "aside"  # the hostages nobody picked: "aside" or "shuffled" into the deck


@dataclass(frozen=True)
class Showing:
    """A seat showing the box its hostages by tapping them, one after another: the different
    colours seen so far. Kept secret until they are enough to win."""

    seat: int
    colours: tuple[str, ...] = ()
    until: float = 0.0  # the claim ends at this moment unless another hostage is tapped
    stopped_timer: bool = False  # the claim stopped a running turn timer: its end restarts it


@dataclass(frozen=True)
class HostageState:
    settings: Settings
    turn: int | None  # the seat playing; None once the game is over
    turn_no: int  # turns played, lost ones included (1-based)
    owed: tuple[int, ...]  # turns each seat still sits out, seat 1 first
    timer: Timer | None  # None without a turn timer
    last_at: float = 0.0  # the time of the last journaled action
    # The time the screen's countdown was last brought up to: a tick's, which is never journaled
    # (so a fold of the journal, without ticks, still equals the state the box plays on).
    shown_at: float = field(default=0.0, compare=False)
    drew: bool = False
    attacked: bool = False  # an attack was made this turn
    attack: int | None = None  # the target of a hit, until the turn's draw
    ability_used: bool = False
    trapped: bool = False  # the turn's draw was filed as a trap
    take_back: tuple[int, ...] = ()  # seats told to take their trap card into their hand
    notice: tuple[str, ...] = ()  # what the box says about the last change, until the seat acts
    showing: Showing | None = None
    menu_paused: bool = False  # the timer stands still because the box's menu is open
    winner: int | None = None
    winning: tuple[str, ...] = ()  # the hostages the winner showed

    @property
    def ring(self) -> Ring:
        return Ring(self.settings.players)

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def fresh(self) -> bool:
        """Nothing done yet this turn: the seat still draws up to its hand first."""
        return not (self.drew or self.attacked or self.ability_used)

    def owes(self, seat: int) -> int:
        return self.owed[seat - 1]

    def with_owed(self, seat: int, turns: int) -> HostageState:
        owed = list(self.owed)
        owed[seat - 1] = turns
        return replace(self, owed=tuple(owed))

    def held(self) -> dict[int, int]:
        """Seats that still sit out turns, and how many."""
        return {seat: n for seat, n in enumerate(self.owed, start=1) if n > 0}

    def may_attack(self) -> str | None:
        """Why an attack is not allowed now (None: it is)."""
        if self.attacked:
            return "one attack a turn"
        if self.drew:
            return "an attack comes before the draw"
        return None

    def may_draw(self) -> str | None:
        if self.drew:
            return "one draw a turn"
        return None

    def may_peek(self) -> str | None:
        if self.attacked or self.drew:
            return "looking at a hand replaces the whole turn"
        return None

    def may_use_ability(self) -> str | None:
        if self.ability_used:
            return "one hostage ability a turn"
        return None

    def may_trap(self) -> str | None:
        if not self.drew:
            return "a trap counts only when drawn this turn"
        if self.trapped:
            return "this turn's draw is already filed as a trap"
        return None

    def allowed(self) -> tuple[str, ...]:
        """What this turn still allows, in the order a turn goes."""
        checks = (
            ("attack", self.may_attack()),
            ("draw", self.may_draw()),
            ("peek", self.may_peek()),
            ("ability", self.may_use_ability()),
        )
        return tuple(name for name, why in checks if why is None)
