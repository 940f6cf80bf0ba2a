"""The game being played (rules, options, state and the standing steps), rebuilt from the
journal's steps exactly as its fold gives them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from companion.core.journal import Entry, Step
from companion.games.base import Action, Effect, Log


def from_journal(steps: list[Step[Entry]]) -> list[Step[Action]]:
    """The journal's steps (each action the JSON object the app wrote) as the app's own."""
    return [
        Step(None if s.action is None else Action.from_json(s.action), s.auto, s.at) for s in steps
    ]


def restored(rules: Any, state: Any, at: float | None) -> Any:
    """The game's state once play stopped (a power cut: ``at`` None; an undo or a clean stop:
    the moment play stopped), by the game's ``restore_at`` where it has one."""
    exact = getattr(rules, "restore_at", None)
    if at is None or exact is None:
        return rules.restore(state)
    return exact(state, at)


@dataclass
class Session:
    """The game being played: its rules object, parsed options and current state."""

    name: str
    rules: Any
    raw_options: dict[str, str]
    options: dict[str, Any]
    setup_rolls: tuple[int, ...]
    state: Any
    steps: list[Step[Action]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # per step: its first log line, for undo
    opening: tuple[Effect, ...] = ()  # effects of ``initial``, played once at a new game
    started_at: float = 0.0  # the game's start on the game clock
    game_id: str = ""  # the journal's id of this game: names its records

    @property
    def record_key(self) -> str:
        """Unique to the game; journals from before ids name it by its start."""
        if self.game_id:
            return f"{self.name}#{self.game_id}"
        return f"{self.name}@{self.started_at:.6f}"

    def add(self, step: Step[Action], effects: Iterable[Effect] = ()) -> None:
        self.steps.append(step)
        label = next((e.text for e in effects if isinstance(e, Log)), "")
        self.labels.append(label or (step.action.name if step.action else ""))

    def last_by_person(self) -> int | None:
        return next(
            (i for i in range(len(self.steps) - 1, -1, -1) if self.steps[i].by_person), None
        )

    def rebuild(self, steps: list[Step[Action]]) -> None:
        """State and labels from standing steps, exactly as the journal's fold gives them.
        Raises what the rules raise, for a journal the rules no longer accept."""
        self.state = self.rules.initial(self.options, self.setup_rolls).state
        self.steps, self.labels = [], []
        for step in steps:
            if step.action is None:
                self.state = restored(self.rules, self.state, step.at)
                self.add(step)
            else:
                outcome = self.rules.apply(self.state, step.action)
                self.state = outcome.state
                self.add(step, outcome.effects)
