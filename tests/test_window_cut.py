"""The window's cut starts from the fold kept as play went (app/session.py ``as_folded`` and
its marks), not from the base with every standing step applied again (issue 31 point 2: a
press at step 100,000 costs what one at step 10 does). What it starts from must be exactly
the journal's fold, whatever came between: a page only shown, a power cut's pause, an undo."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from companion.app import session as session_module
from companion.app.session import Session, checked, restored, set_up
from companion.core.journal_lines import Step, undo_steps
from companion.games.base import Action, Log, Outcome, Rejected
from companion.games.dice import DiceGame

OPTIONS = {"die": "d6"}

moves = st.one_of(
    st.tuples(st.just("roll"), st.sampled_from(("d4", "d6", "2d6")), st.integers(1, 4)),
    st.tuples(st.just("reroll"), st.none(), st.integers(1, 4)),
    st.tuples(st.just("choose"), st.sampled_from(("d4", "d6", "2d6")), st.none()),
    st.tuples(st.just("stats"), st.none(), st.none()),  # only shown: never a step
    st.tuples(st.just("restore"), st.none(), st.none()),  # a power cut's or a stop's pause
    st.tuples(st.just("undo"), st.none(), st.none()),
)


@contextlib.contextmanager
def _window(window: int, every: int) -> Iterator[None]:
    """A window of ``window`` actions of a person, a mark every ``every`` steps: a short game
    crosses both again and again."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(session_module, "UNDO_STEPS", window)
        mp.setattr(session_module, "MARK_EVERY", every)
        yield


def _new() -> Session:
    rules, options = checked("dice", OPTIONS)
    return set_up("dice", rules, OPTIONS, options, ())


def _fold(steps: list[Step[Action]]) -> Any:
    """The journal's fold of a whole game from its start: every step applied, one by one."""
    session = _new()
    state = session.state
    for step in steps:
        if step.action is None:
            state = restored(session.rules, state, step.at)
        else:
            state = session.rules.apply(state, step.action).state
    return state


def _played(session: Session, move: tuple, at: float, history: list[Step[Action]]) -> Session:
    """One move as the box plays it (app/play.py), ``history`` kept as the journal folds."""
    kind, die, face = move
    rules = session.rules
    if kind == "undo":
        if session.last_by_person() is None:
            return session
        steps = list(session.steps)
        undo_steps(steps)
        undo_steps(history)
        return session.cut_back(len(steps))
    if kind == "restore":
        state = restored(rules, session.state, at)
        if state == session.state:
            return session
        history.append(Step(None, at=at))
        return session.took(history[-1], (), state)
    arguments = {"die": die} if die else {}
    try:
        faces = rules.dice_for(session.state, Action(kind, arguments))
        action = Action(kind, arguments, rolls=tuple(min(face, n) for n in faces), at=at)
        outcome = rules.apply(session.state, action)
    except Rejected:
        return session
    if rules.navigation(action):
        return session.with_state(outcome.state)
    history.append(Step(action))
    return session.took(history[-1], outcome.effects, outcome.state)


@settings(max_examples=400, deadline=None)
@given(
    plays=st.lists(moves, min_size=4, max_size=80),
    window=st.integers(1, 4),
    every=st.integers(1, 5),
)
@example(  # the history page open when a pause comes: shown, and kept out of the fold
    plays=[
        ("roll", "d6", 3),
        ("choose", "d4", None),
        ("stats", None, None),
        ("restore", None, None),
    ],
    window=1,
    every=1,
)
def test_the_cut_starts_from_exactly_the_journal_s_fold(
    plays: list[tuple], window: int, every: int
) -> None:
    with _window(window, every):
        session, history = _new(), []
        for n, move in enumerate(plays):
            session = _played(session, move, 1.0 + n, history)
            cut = session.folded_in
            assert session.steps == tuple(history[cut:])
            assert session.base == _fold(history[:cut])
            assert session.fold_end == _fold(history)
            for marked, state in session.marks:
                assert cut < marked <= len(history)
                assert marked % every == 0
                assert state == _fold(history[:marked])


def test_a_press_that_crosses_the_window_applies_fewer_steps_than_a_mark_s_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A window of 500 a person, crossed: the press that folds hundreds of older steps into the
    base applies only its own roll and the steps since the last mark (before: all of them)."""
    applied = [0]
    apply = DiceGame.apply

    def counted(self: DiceGame, state: Any, action: Action) -> Any:
        applied[0] += 1
        return apply(self, state, action)

    monkeypatch.setattr(DiceGame, "apply", counted)
    session, history, most = _new(), [], 0
    for n in range(3 * session_module.UNDO_STEPS):
        before, applied[0] = session.folded_in, 0
        session = _played(session, ("roll", "d6", 1 + n % 6), 1.0 + n, history)
        if session.folded_in != before:
            most = max(most, applied[0])
    assert session.folded_in >= session_module.UNDO_STEPS  # crossed
    assert 1 < most <= session_module.MARK_EVERY
    assert session.base == _fold(history[: session.folded_in])


# --- an undo goes on from a mark, with the labels the fold gives -------------------------------


@dataclass(frozen=True)
class Tally:
    count: int = 0
    page: int = 0  # only shown: never journaled, gone at a pause


class PagedTally:
    """A game whose log line names the page shown: the label a person saw for a step and the
    one the journal's fold gives it differ when a page was turned before it."""

    def apply(self, state: Tally, action: Action) -> Outcome:
        if action.name == "page":
            return Outcome(replace(state, page=state.page + 1))
        count = state.count + action.rolls[0]
        return Outcome(replace(state, count=count), (Log(f"{count} on page {state.page}"),))

    def restore(self, state: Tally) -> Tally:
        return replace(state, page=0)

    def restore_at(self, state: Tally, at: float) -> Tally:
        return self.restore(state)

    def before_older_step(self, state: Tally, action: Action) -> Tally:
        return state


def _tally() -> Session:
    rules = PagedTally()
    return Session("tally", rules, {}, {}, (), Tally(), base=Tally())  # type: ignore[arg-type]


def _refolded(session: Session, steps: list[Step[Action]]) -> Session:
    """The session again from its base, every one of ``steps`` applied: what an undo gave
    before the marks."""
    whole = replace(
        session,
        steps=(),
        labels=(),
        persons=0,
        state=session.base,
        as_folded=None,
        marks=(),
        relabels=(),
    )
    for step in steps:
        whole = whole.folded(step)
    return whole


tally_moves = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(1, 3)),
        st.tuples(st.just("page"), st.none()),
        st.tuples(st.just("pause"), st.none()),
        st.tuples(st.just("undo"), st.none()),
    ),
    min_size=1,
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(plays=tally_moves, window=st.integers(1, 4), every=st.integers(1, 5))
@example(
    plays=[("add", 1), ("page", None), ("add", 2), ("add", 1), ("undo", None)], window=4, every=2
)
def test_an_undo_goes_on_from_a_mark_and_gives_what_applying_every_step_again_gives(
    plays: list[tuple], window: int, every: int
) -> None:
    with _window(window, every):
        session = _tally()
        for n, (kind, value) in enumerate(plays):
            if kind == "page":
                session = session.with_state(
                    session.rules.apply(session.state, Action("page")).state
                )
            elif kind == "pause":
                step = Step(None, at=float(n))
                session = session.took(step, (), session.rules.restore(session.state))
            elif kind == "add":
                action = Action("add", rolls=(value,), at=float(n))
                outcome = session.rules.apply(session.state, action)
                session = session.took(Step(action), outcome.effects, outcome.state)
            elif session.last_by_person() is not None:
                steps = list(session.steps)
                undo_steps(steps)
                quick, whole = session.cut_back(len(steps)), _refolded(session, steps)
                assert quick.steps == whole.steps and quick.persons == whole.persons
                assert quick.labels == whole.labels  # the fold's labels, as before
                assert quick.state == whole.state and quick.fold_end == whole.fold_end
                assert [m[0] for m in quick.marks] == [m[0] for m in whole.marks]
                assert [m[1] for m in quick.marks] == [m[1] for m in whole.marks]
                session = quick
            whole = _refolded(session, list(session.steps))
            assert session.fold_labels() == whole.labels
            assert session.fold_end == whole.state


def test_an_undo_far_into_a_game_applies_no_more_steps_than_a_mark_s_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    applied = [0]
    apply = DiceGame.apply

    def counted(self: DiceGame, state: Any, action: Action) -> Any:
        applied[0] += 1
        return apply(self, state, action)

    session, history = _new(), []
    for n in range(2 * session_module.UNDO_STEPS + 7):
        session = _played(session, ("roll", "d6", 1 + n % 6), 1.0 + n, history)
    assert session.folded_in and len(session.steps) > session_module.MARK_EVERY
    monkeypatch.setattr(DiceGame, "apply", counted)
    for _ in range(3):
        session = _played(session, ("undo", None, None), 0.0, history)
        assert applied[0] < session_module.MARK_EVERY  # 500 and more before
        applied[0] = 0
    assert session.fold_end == _fold(history)
