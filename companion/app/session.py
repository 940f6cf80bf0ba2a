"""The game being played (rules, options, state and the standing steps), as a value: a change
is a new Session. Rebuilt from the journal's steps exactly as its fold gives them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion.core.journal import Entry, Step
from companion.games import registry as games
from companion.games.base import Action, Effect, Game, Log


def from_journal(steps: list[Step[Entry]]) -> list[Step[Action]]:
    """The journal's steps (each action the JSON object the app wrote) as the app's own."""
    return [
        Step(None if s.action is None else Action.from_json(s.action), s.auto, s.at) for s in steps
    ]


def restored(rules: Game, state: Any, at: float | None) -> Any:
    """The game's state once play stopped (a power cut: ``at`` None; an undo or a clean stop:
    the moment play stopped)."""
    return rules.restore(state) if at is None else rules.restore_at(state, at)


@dataclass(frozen=True)
class Session:
    """The game being played: its rules object, parsed options and current state."""

    name: str
    rules: Game
    raw_options: Mapping[str, str]
    options: Mapping[str, Any]
    setup_rolls: tuple[int, ...]
    state: Any
    steps: tuple[Step[Action], ...] = ()
    labels: tuple[str, ...] = ()  # per step: its first log line, for undo
    opening: tuple[Effect, ...] = ()  # effects of ``initial``, played once at a new game
    started_at: float = 0.0  # the game's start on the game clock
    game_id: str = ""  # the journal's id of this game: names its records

    @property
    def record_key(self) -> str:
        """Unique to the game; journals from before ids name it by its start."""
        if self.game_id:
            return f"{self.name}#{self.game_id}"
        return f"{self.name}@{self.started_at:.6f}"

    def added(self, step: Step[Action], effects: Iterable[Effect] = ()) -> Session:
        """This session with one more standing step (its label for undo from its log)."""
        label = next((e.text for e in effects if isinstance(e, Log)), "")
        label = label or (step.action.name if step.action else "")
        return replace(self, steps=(*self.steps, step), labels=(*self.labels, label))

    def with_state(self, state: Any) -> Session:
        return replace(self, state=state)

    def with_id(self, game_id: str) -> Session:
        return replace(self, game_id=game_id)

    def last_by_person(self) -> int | None:
        return next(
            (i for i in range(len(self.steps) - 1, -1, -1) if self.steps[i].by_person), None
        )

    def folded(self, step: Step[Action]) -> Session:
        """One standing step more, as the journal's fold takes it. Raises what the rules
        raise, for a journal the rules no longer accept."""
        if step.action is None:
            return self.with_state(restored(self.rules, self.state, step.at)).added(step)
        outcome = self.rules.apply(self.state, step.action)
        return self.with_state(outcome.state).added(step, outcome.effects)

    def rebuilt(self, steps: Iterable[Step[Action]]) -> Session:
        """State and labels from standing steps, exactly as the journal's fold gives them."""
        session = replace(self, steps=(), labels=())
        session = session.with_state(self.rules.initial(self.options, self.setup_rolls).state)
        for step in steps:
            session = session.folded(step)
        return session


def checked(name: str, raw: Mapping[str, Any]) -> tuple[Game, dict[str, Any]]:
    """The game's rules and its parsed options; BadAction (unknown game or option)."""
    rules = games.get(name)
    return rules, rules.check_options({k: str(v) for k, v in raw.items()})


def set_up(
    name: str, rules: Game, raw: Mapping[str, Any], options: Mapping[str, Any], rolls: Iterable[int]
) -> Session:
    """A new game of ``rules`` with these options and setup dice."""
    outcome = rules.initial(options, tuple(rolls))
    return Session(
        name, rules, dict(raw), options, tuple(rolls), outcome.state, opening=outcome.effects
    )


def resumed(name: str, raw: Mapping[str, Any], rolls: tuple[int, ...]) -> Session:
    """A saved game set up again as it was (its setup dice from the journal)."""
    rules, options = checked(name, raw)
    return set_up(name, rules, raw, options, rolls)
