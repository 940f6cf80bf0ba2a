"""A stand-in for the app around the pure Cover Your Asps rules: dice given by the test, a
journal of accepted actions, refusals kept with their reasons."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Action, Log, Rejected
from companion.games.cover_your_asps import GAME

# The replay contract's state keys (../shared/notes/replay.md, cover-your-asps).
TABLE_KEYS = {
    "players",
    "turn",
    "round",
    "vault",
    "treasure_left",
    "last_roll",
    "doubles",
    "acted",
    "over",
    "winner",
    "seats",
}
SEAT_KEYS = {"phase", "inside", "cards", "treasures", "escapes", "points", "planks"}
SOLO_KEYS = {"players", "last_roll", "doubles", "over", "rolls", "placed", "result"}


@dataclass
class Table:
    options: dict[str, Any]
    state: Any = None
    journal: list[Action] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        checked = GAME.check_options({k: str(v) for k, v in self.options.items()})
        self.options = checked
        outcome = GAME.initial(checked, ())
        self.state = outcome.state
        self.logs += [e.text for e in outcome.effects if isinstance(e, Log)]

    @classmethod
    def new(cls, **options: Any) -> Table:
        return cls(options)

    @property
    def public(self) -> dict[str, Any]:
        return GAME.public(self.state)

    def seat(self, n: int) -> dict[str, Any]:
        return self.public["seats"][str(n)]

    def do(self, name: str, /, *rolls: int, **args: Any) -> bool:
        """Apply an action as the app would: ask which dice it needs, roll ``rolls``."""
        action = Action(name, {k: str(v) for k, v in args.items()})
        try:
            faces = GAME.dice_for(self.state, action)
            assert len(faces) == len(rolls), f"{name} rolls {faces}, the test gave {rolls}"
            action = Action(name, action.args, tuple(rolls))
            outcome = GAME.apply(self.state, action)
        except Rejected as err:
            self.rejected.append(err.reason)
            return False
        self.state = outcome.state
        self.journal.append(action)
        self.logs += [e.text for e in outcome.effects if isinstance(e, Log)]
        return True

    def must(self, name: str, /, *rolls: int, **args: Any) -> None:
        assert self.do(name, *rolls, **args), self.rejected[-1]

    def refused(self, name: str, /, *rolls: int, **args: Any) -> str:
        before = self.state
        assert not self.do(name, *rolls, **args), f"{name} was accepted"
        assert self.state == before
        return self.rejected[-1]

    # --- whole steps of play ----------------------------------------------------------------

    def end_turn(self) -> None:
        self.must("next")

    def around(self) -> None:
        """End the turn and let every other seat pass: the same seat's next turn."""
        for _ in range(self.options["players"]):
            self.end_turn()

    def built(self) -> None:
        """The seat on turn lays a plank that finishes its build; its turn goes on."""
        self.must("plank", 2, 5)
        self.must("built")

    def build(self) -> None:
        """The seat on turn lays a plank and reports its platform built; ends the turn."""
        self.must("plank", 2, 5)
        self.must("built")
        self.end_turn()

    def enter(self) -> None:
        self.must("enter", 1, 3)
        self.must("entered")
        self.end_turn()

    def reach_vault(self) -> None:
        self.must("move", 4)
        self.must("vault")
        if not self.state.over:
            self.end_turn()

    def escape(self) -> None:
        self.must("move", 3)
        self.must("escaped")
        self.end_turn()

    def to_the_vault(self) -> None:
        """The seat on turn alone goes from its build to the vault, one turn a step (the other
        seats pass); its turn goes on at the vault."""
        self.built()
        self.around()
        self.must("enter", 1, 2)
        self.must("entered")
        self.around()
        self.must("move", 4)
        self.must("vault")

    def raid(self) -> None:
        """Every seat in turn: build, enter, reach the vault, escape (one full round)."""
        players = self.options["players"]
        for step in (self.build, self.enter, self.reach_vault, self.escape):
            for _ in range(players):
                step()
