"""A tiny stand-in for the app around a game's pure rules, for the games' own tests: a virtual
clock, the schedules as deadlines fired in order, a journal of accepted actions, and the sounds,
logs and refusals the app would show. Each game's support module subclasses it with its GAME."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.games.base import Action, Cancel, Log, Outcome, Press, Rejected, Schedule, Sound


@dataclass
class GameTable:
    """Drives ``game`` like the app does, on a clock that moves only when told."""

    game: ClassVar[Any]
    options: dict[str, Any]
    rolls: tuple[int, ...] = ()
    now: float = 0.0
    state: Any = field(init=False)
    timers: dict[str, tuple[float, Action]] = field(default_factory=dict)
    journal: list[Action] = field(default_factory=list)
    sounds: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    fired: list[tuple[float, str]] = field(default_factory=list)
    unjournaled: set[str] = field(default_factory=set)  # schedules applied but not journaled

    def __post_init__(self) -> None:
        self.options = self.game.check_options({k: str(v) for k, v in self.options.items()})
        self.state = self._effects(self.game.initial(self.options, self.rolls))

    def _effects(self, outcome: Outcome) -> Any:
        for effect in outcome.effects:
            if isinstance(effect, Sound):
                self.sounds.append(effect.cue)
            elif isinstance(effect, Log):
                self.logs.append(effect.text)
            elif isinstance(effect, Schedule):
                self.timers[effect.key] = (self.now + effect.seconds, effect.action)
                if effect.journal:
                    self.unjournaled.discard(effect.key)
                else:
                    self.unjournaled.add(effect.key)
            elif isinstance(effect, Cancel):
                self.timers.pop(effect.key, None)
        return outcome.state

    def do(self, name: str, /, at: float | None = None, journal: bool = True, **args: Any) -> bool:
        """Apply an action now (or at ``at``, moving the clock there first); ``journal`` false
        for a schedule that is never journaled (a timer's tick)."""
        if at is not None:
            self.now = at
        action = Action(name, {k: str(v) for k, v in args.items()}, at=self.now)
        try:
            outcome = self.game.apply(self.state, action)
        except Rejected as err:
            self.rejected.append(err.reason)
            return False
        if journal:
            self.journal.append(action)
        self.state = self._effects(outcome)
        return True

    def press(self, button: str, long: bool = False) -> bool:
        """A button as the control map reads it; only a direct action is applied."""
        action = self.game.control(self.state, Press(button, long))
        if not isinstance(action, Action):
            return False
        return self.do(action.name, **dict(action.args))

    def wait(self, seconds: float, late: float = 0.0) -> None:
        """Move the clock, firing due schedules in order (each ``late`` seconds after its
        deadline, as a busy real loop would)."""
        target = self.now + seconds
        while self.timers:
            key, (due, action) = min(self.timers.items(), key=lambda kv: kv[1][0])
            if due + late > target + 1e-9:
                break
            del self.timers[key]
            self.fired.append((due + late, action.name))
            kept = key not in self.unjournaled
            self.do(action.name, at=due + late, journal=kept, **dict(action.args))
        self.now = max(self.now, target)

    @property
    def public(self) -> dict[str, Any]:
        return self.game.public(self.state)

    def fold(self) -> Any:
        """The state rebuilt from the journal, as the app does after a power cut."""
        state = self.game.initial(self.options, self.rolls).state
        for action in self.journal:
            state = self.game.apply(state, action).state
        return state
