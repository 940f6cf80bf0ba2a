"""The game being played (rules, options, state and the standing steps), as a value: a change
is a new Session. Rebuilt from the journal's steps exactly as its fold gives them.

The journal's bound: the standing steps are a window. Once they hold more than 2 * UNDO_STEPS
actions of a person (or 4 * UNDO_STEPS steps in all: a turn timer left running), the older
ones are folded into the ``base``, the state they lead to, and only the last UNDO_STEPS actions
of a person (with what came after the first of them) stay standing: undo reaches that far, the
journal is written as the base's checkpoint and those steps (core/journal.py ``compact``), and
a step costs the same at the 10th and the 100,000th.

The fold is kept as it goes: ``as_folded``, the state the journal's fold gives after the
standing steps (the shown ``state`` differs after a change only shown, such as the dice tool's
history page), and a mark of it every MARK_EVERY steps, so that the window's cut starts from
the mark before it and applies a few steps, not the hundreds standing (issue 31)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.core.codec import Codec, reachable
from companion.core.journal_lines import Checkpoint, Entry, Step
from companion.games import registry as games
from companion.games.base import Action, Effect, Game, Log

# Undo reaches back at least this many actions of a person (after that: "nothing to undo", as at
# a game's start). 500 is far past any table's undo, and keeps the journal of a game in play
# within about 2,000 lines (some 200 KB), a twentieth of what the box reads at start.
UNDO_STEPS = 500

# The fold's state is marked once every this many steps: the window's cut applies fewer steps
# again than this, and the marks of a full window (at most 4 * UNDO_STEPS steps) are a few dozen.
MARK_EVERY = 32


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
    base: Any = None  # the state the standing steps start from: the initial one, or a checkpoint's
    base_at: float | None = None  # the last moment folded into the base (None: none)
    folded_in: int = 0  # standing steps folded into the base over the game's life
    persons: int = 0  # the standing steps a person made (undo targets)
    # the journal's fold after the standing steps (None: ``base``, no step yet); ``state`` is it
    # unless a change only shown came after it
    as_folded: Any = field(default=None, compare=False, repr=False)
    # (steps folded over the game's life, the fold's state then), every MARK_EVERY steps
    marks: tuple[tuple[int, Any], ...] = field(default=(), compare=False, repr=False)
    # (the same count, the label the fold gives that step) where it is not the label shown
    relabels: tuple[tuple[int, str], ...] = field(default=(), compare=False, repr=False)

    @property
    def record_key(self) -> str:
        """Unique to the game; journals from before ids name it by its start."""
        if self.game_id:
            return f"{self.name}#{self.game_id}"
        return f"{self.name}@{self.started_at:.6f}"

    @property
    def fold_end(self) -> Any:
        """The state the journal's fold gives after the standing steps."""
        return self.base if self.as_folded is None else self.as_folded

    def took(self, step: Step[Action], effects: Iterable[Effect], state: Any) -> Session:
        """This session once ``step`` led from ``state``'s own state to ``state`` (effects: what
        the rules said, its label for undo from its log); the older steps folded into the base
        when the window is full. The fold's state is the one shown unless a change only shown
        came between (then the step is applied once more to the fold's own)."""
        before, label = self.fold_end, _label(step, effects)
        steps, relabels = (*self.steps, step), self.relabels
        count = self.folded_in + len(steps)
        if self.state is before:
            folded = state
        elif step.action is None:
            folded = restored(self.rules, before, step.at)
        else:
            outcome = self.rules.apply(
                self.rules.before_older_step(before, step.action), step.action
            )
            folded, fold_label = outcome.state, _label(step, outcome.effects)
            if fold_label != label:
                relabels = (*relabels, (count, fold_label))
        marks = self.marks
        if count % MARK_EVERY == 0:
            marks = (*marks, (count, folded))
        session = replace(
            self,
            state=state,
            steps=steps,
            labels=(*self.labels, label),
            persons=self.persons + step.by_person,
            as_folded=folded,
            marks=marks,
            relabels=relabels,
        )
        if session.persons > 2 * UNDO_STEPS or len(steps) > 4 * UNDO_STEPS:
            return session.rebased()
        return session

    def rebased(self) -> Session:
        """The steps before the last UNDO_STEPS actions of a person (at most 2 * UNDO_STEPS
        steps kept) folded into the base, exactly as the journal's fold would fold them."""
        steps, seen, cut = self.steps, 0, 0
        for i in range(len(steps) - 1, -1, -1):
            seen += steps[i].by_person
            if seen == UNDO_STEPS:
                cut = i
                break
        cut = max(cut, len(steps) - 2 * UNDO_STEPS)
        if cut <= 0:
            return self
        start, state = self._mark_before(cut)
        for step in steps[start:cut]:
            state = self._next_state(state, step)
        moments = (s.action.at if s.action is not None else s.at for s in steps[:cut])
        at = max((t for t in (self.base_at, *moments) if t is not None), default=None)
        kept, at_cut = steps[cut:], self.folded_in + cut
        return replace(
            self,
            base=state,
            base_at=at,
            folded_in=at_cut,
            steps=kept,
            labels=self.labels[cut:],
            persons=sum(s.by_person for s in kept),
            marks=tuple(mark for mark in self.marks if mark[0] > at_cut),
            relabels=tuple(relabel for relabel in self.relabels if relabel[0] > at_cut),
        )

    def _mark_before(self, end: int) -> tuple[int, Any]:
        """The last mark within the first ``end`` standing steps: how many it holds and the
        fold's state there (0 and the base when there is none)."""
        start, state = 0, self.base
        for marked, marked_state in self.marks:
            if marked - self.folded_in > end:
                break
            start, state = marked - self.folded_in, marked_state
        return start, state

    def fold_labels(self, count: int | None = None) -> tuple[str, ...]:
        """The labels the journal's fold gives the first ``count`` standing steps (all of them):
        the ones shown, but where the fold's own differs."""
        labels = list(self.labels[:count])
        for counted, label in self.relabels:
            if counted - self.folded_in <= len(labels):
                labels[counted - self.folded_in - 1] = label
        return tuple(labels)

    def _next_state(self, state: Any, step: Step[Action]) -> Any:
        if step.action is None:
            return restored(self.rules, state, step.at)
        return self.rules.apply(self.rules.before_older_step(state, step.action), step.action).state

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
            return self.took(step, (), restored(self.rules, self.state, step.at))
        state = self.rules.before_older_step(self.state, step.action)
        outcome = self.rules.apply(state, step.action)
        return self.took(step, outcome.effects, outcome.state)

    def cut_back(self, count: int) -> Session:
        """Only the first ``count`` standing steps (an undo), state and labels exactly as the
        journal's fold gives them: from the last mark within them, the steps after it applied
        again (fewer than MARK_EVERY, at step 100,000 as at step 10)."""
        start, state = self._mark_before(count)
        session = replace(
            self,
            steps=self.steps[:start],
            labels=self.fold_labels(start),
            persons=sum(s.by_person for s in self.steps[:start]),
            state=state,
            as_folded=state,
            marks=tuple(m for m in self.marks if m[0] - self.folded_in <= start),
            relabels=(),
        )
        for step in self.steps[start:count]:
            session = session.folded(step)
        return session

    def checkpoint(self) -> Checkpoint | None:
        """The base as the journal keeps it (None: the game's start, nothing folded in)."""
        if not self.folded_in:
            return None
        encoded = codec_for(type(self.base)).encode(self.base)
        return Checkpoint(encoded, self.base_at, self.folded_in)

    def from_checkpoint(self, checkpoint: Checkpoint) -> Session:
        """This new session (set up, no step yet) at a checkpoint the journal kept; CodecError
        when it is not a state of this game."""
        state = codec_for(type(self.base)).decode(checkpoint.state, type(self.base))
        return replace(
            self,
            state=state,
            base=state,
            base_at=checkpoint.at,
            folded_in=checkpoint.steps,
            opening=(),
            as_folded=None,
            marks=(),
            relabels=(),
        )


def _label(step: Step[Action], effects: Iterable[Effect]) -> str:
    """A step's label for undo: its first log line, else its action's name."""
    label = next((e.text for e in effects if isinstance(e, Log)), "")
    return label or (step.action.name if step.action else "")


@functools.cache
def codec_for(state_type: type) -> Codec:
    """The codec of a game's state: it builds only the classes that state's type names."""
    return Codec(reachable([state_type]))


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
        name,
        rules,
        dict(raw),
        options,
        tuple(rolls),
        outcome.state,
        opening=outcome.effects,
        base=outcome.state,
    )


def resumed(name: str, raw: Mapping[str, Any], rolls: tuple[int, ...]) -> Session:
    """A saved game set up again as it was (its setup dice from the journal)."""
    rules, options = checked(name, raw)
    return set_up(name, rules, raw, options, rolls)
