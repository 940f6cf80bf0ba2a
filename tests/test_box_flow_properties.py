"""The whole box under random input, for every game: presses (short and long), taps of this
game's cards, of another game's, of unknown tags (which may get enrolled and tapped again),
and waits. The box's flow is a value and a pure step (companion/app/step.py), so each
invariant is checked on values, with no device and no second box:

- no input raises, and the same input on the same value gives the same value and effects;
- from any screen, back (a few times at most) leads to play: the game's screen or a question
  of play, or the choice of game when none is in play;
- folding the journal after any prefix of the run gives the game live play has (its standing
  steps always; its state too wherever nothing unjournaled, a page turned or a tick, shows);
- undo right after an action a person made gives the game as it was before that action;
- a card tapped while a question of the game is open is held once, and leaves the hold only
  by being played (once) or dropped with a notice.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from companion.app import BoxState, World, play, step
from companion.app.effects import Note
from companion.app.events import Pressed, Tapped
from companion.app.session import Session, from_journal, restored, resumed
from companion.core.config import Config, ReaderConfig, StateConfig
from companion.core.journal_lines import fold
from companion.core.shelf import Shelf
from companion.games import registry as games
from companion.games.base import Tap
from companion.games.registry import short_title
from companion.sim.box import SimulatedBox
from companion.ui import menus

GAMES = games.available()
BUTTONS = ("up", "down", "ok", "green", "red", "back")
UNKNOWN = ("0A0B0C0D01", "0A0B0C0D02")
WAITS = (0.5, 3.0, 30.0, 200.0)
BACKS = 8  # presses of back that must lead to play from any screen

press = st.builds(
    lambda button, long: ("press", button, long),
    st.sampled_from(BUTTONS),
    st.sampled_from((False, False, False, True)),
)
tap = st.tuples(
    st.just("tap"),
    st.sampled_from(("mine", "mine", "mine", "other", "unknown")),
    st.integers(0, 50),
)
wait = st.tuples(st.just("wait"), st.sampled_from(WAITS), st.just(0))
inputs = st.lists(st.one_of(press, press, tap, wait), min_size=1, max_size=30)


def _box(state_dir: Path) -> SimulatedBox:
    config = Config(state=StateConfig(dir=str(state_dir)), reader=ReaderConfig(type="none"))
    return SimulatedBox(config, seed=7, today=lambda: "2026-11-25")


def _uid(box: SimulatedBox, game: str, which: str, n: int) -> str:
    demo = sorted(box.app.registry.demo.values(), key=lambda card: card.uid)
    mine = [card.uid for card in demo if card.game == game]
    other = [card.uid for card in demo if card.game != game]
    if which == "mine" and mine:
        return mine[n % len(mine)]
    if which == "other" and other:
        return other[n % len(other)]
    return UNKNOWN[n % len(UNKNOWN)]


def _played(box: BoxState) -> bool:
    """The screen is play: the game's screen or a question of play (or, with no game, the
    choice of game)."""
    if box.session is None:
        return isinstance(box.menu, menus.ListMenu) and box.menu.on_pick == "pick_game"
    return box.menu is None or box.menu_of_play


def _back_to_play(box: BoxState, world: World) -> bool:
    for _ in range(BACKS):
        if _played(box):
            return True
        box, _ = step(box, Pressed("back"), world)
    return _played(box)


def _folded(journal: Path) -> Session | None:
    entries = [json.loads(line) for line in journal.read_text().splitlines() if line]
    record = fold(entries)
    if record is None:
        return None
    session = resumed(record.game, record.options, record.setup_rolls)
    for standing in from_journal(record.steps):
        session = session.folded(standing)
    return session


def _shown(session: Session) -> Any:
    """The game as a power cut would bring it back (a running timer paused)."""
    return session.rules.public(session.rules.restore(session.state))


def _by_person(session: Session) -> list[Any]:
    return [s.action for s in session.steps if s.action is not None]


class Taps:
    """Counts the taps the game's control map is given, by UID."""

    def __init__(self, rules: Any) -> None:
        self.rules, self.seen = rules, Counter()
        self.control = rules.control

    def __enter__(self) -> Taps:
        def counted(state: Any, event: Any) -> Any:
            if isinstance(event, Tap):
                self.seen[event.uid] += 1
            return self.control(state, event)

        self.rules.control = counted  # an instance attribute over the class's method
        return self

    def __exit__(self, *exc: object) -> None:
        del self.rules.control


def _check_held(before: BoxState, after: BoxState, effects: tuple, taps: Counter) -> None:
    held_before = [card.uid for card in before.held_taps]
    held_after = [card.uid for card in after.held_taps]
    gone = held_before[: len(held_before) - len(held_after)] if held_after else held_before
    if held_after and held_after[: len(held_before)] == held_before:
        gone = []  # the hold only grew
    dropped = any(
        isinstance(e, Note) and e.text.endswith("tapped cards dropped with the form")
        for e in effects
    )
    if gone and not dropped:
        for uid in gone:  # each one played, once (a card held twice is played twice)
            assert taps[uid] >= gone.count(uid), f"held card {uid} lost"
    for uid in set(held_after):
        assert held_after.count(uid) <= held_before.count(uid) + 1, f"{uid} held twice"


@pytest.mark.parametrize("game", GAMES)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(steps=inputs)
def test_random_input_keeps_the_box_whole(game: str, steps: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as where:
        state_dir = Path(where)
        sim = _box(state_dir)
        app = sim.app
        app.start()
        app.new_game(game, {})
        journal = state_dir / "journal.jsonl"
        try:
            for kind, what, n in steps:
                before = app.box
                if kind == "wait":
                    sim.advance(what)
                else:
                    event = (
                        Pressed(what, n) if kind == "press" else Tapped(_uid(sim, game, what, n))
                    )
                    world = app.world()
                    with Taps(before.session.rules) as taps:
                        after, effects = step(before, event, world)
                    assert _same(step(before, event, world), (after, effects))
                    _check_held(before, after, effects, taps.seen)
                    if isinstance(event, Tapped) and len(after.held_taps) > len(before.held_taps):
                        assert after.held_taps[-1].uid == event.uid
                        note("a card held for a question")
                    app.feed(event)
                    _check_undo(before, app.box, app.world())
                box = app.box
                assert _back_to_play(box, app.world()), f"no way back to play from {box.menu}"
                live, folded = box.session, _folded(journal)
                assert folded is not None and live is not None
                assert folded.steps == live.steps
                # What the game only shows (a page turned, a timer's tick) is never journaled:
                # where live play has none of it, the fold is live play exactly.
                if _shown(live.with_state(live.fold_end)) == _shown(live):
                    assert _shown(folded) == _shown(live)
        finally:
            app.shutdown()


def _same(a: tuple[BoxState, tuple], b: tuple[BoxState, tuple]) -> bool:
    """The same value and effects (a game's question holds functions made afresh each time it
    is asked: its menu is compared by what it shows)."""
    (box_a, effects_a), (box_b, effects_b) = a, b
    shown = [menu.screen() if menu is not None else None for menu in (box_a.menu, box_b.menu)]
    bare = [replace(box, menu=None, under_menu=None) for box in (box_a, box_b)]
    return effects_a == effects_b and bare[0] == bare[1] and shown[0] == shown[1]


def _undo_offered(box: BoxState) -> bool:
    """A long back asks to undo: on the game's screen, or over a question that is a part of
    play (any other menu takes back as its own)."""
    menu = box.menu
    if menu is None:
        return True
    walk = getattr(menu, "ask", None) or getattr(menu, "pages", None)
    return box.menu_of_play and walk is not None and walk.walk.in_play


def _check_undo(before: BoxState, after: BoxState, world: World) -> None:
    """If the input was one action a person made, undo gives the game before it."""
    old, new = before.session, after.session
    if old is None or new is None or new.game_id != old.game_id or not _undo_offered(after):
        return
    added = new.steps[len(old.steps) :]
    if new.steps[: len(old.steps)] != old.steps or [s.by_person for s in added] != [True]:
        return
    note("an action undone")
    undone, _ = step(after, Pressed("back", True), world)
    assert isinstance(undone.menu, menus.Confirm), "a long back asks to undo"
    undone, _ = step(undone, Pressed("green"), world)
    assert _by_person(undone.session) == _by_person(old)
    # The game as the journal had it before, stopped when the undone action was made (a
    # timer ran until then; a page turned is never a step: undo cannot bring it back).
    stopped = added[0].action.at
    rules, was = old.rules, old.fold_end
    assert rules.public(undone.session.state) == rules.public(restored(rules, was, stopped))


def test_a_journal_entry_that_cannot_be_written_leaves_the_box_as_it_was(tmp_path: Path) -> None:
    """The entry is written before anything shows: when it cannot be, the value stays as it
    was (the failure is fed back to the step as StorageFailed) and the error goes on to
    whoever fed the step; a press (``take``) is answered with the notice instead."""
    sim = _box(tmp_path)
    app = sim.app
    app.start()
    app.new_game("dice", {})
    before = app.box

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    app.journal.action = full  # type: ignore[method-assign]
    try:
        with pytest.raises(OSError):
            app.feed(Pressed("green"))  # a roll
        assert app.box == before
        assert not app.box.session.steps
        app.on_press("green", False)
        assert app.box.session == before.session
        assert "the game is safe" in app.display.lines
    finally:
        del app.journal.action
        app.shutdown()


# --- games set aside: random presses and switches never lose a game (issue 23, point 7) -------

KINDS = ("dice", "trapwords", "hostage-trap")
switch = st.one_of(
    st.tuples(st.just("aside"), st.sampled_from(KINDS)),  # other game: a new one of this kind
    st.tuples(st.just("take"), st.sampled_from(KINDS)),  # other game: resume this kind
    st.tuples(st.just("restart"), st.just("")),
)
plays = st.tuples(st.just("press"), st.sampled_from(("green", "ok", "down", "back", "red")))
moves = st.lists(st.one_of(plays, plays, switch), min_size=1, max_size=25)


def _kept(app: Any) -> dict[str, str]:
    """Every game the box must not lose: the one in play if worth keeping, and those waiting."""
    kept = {r.game_id: r.game for r in app.shelf.games.values()}
    session = app.box.session
    if play.worth_keeping(session):
        kept[session.game_id] = session.name
    return kept


def _lost(before: Any, waiting_before: dict[str, str], app: Any) -> set[str]:
    """Games kept before an input and gone after it, other than the one waiting that the game
    in play replaced (the question said so) and one still in play (undone to nothing)."""
    after = _kept(app)
    in_play = app.box.session.game_id if app.box.session else None
    replaced = {
        gid
        for gid, kind in waiting_before.items()
        if app.shelf.games.get(kind) and app.shelf.games[kind].game_id != gid
    }
    return set(before) - set(after) - replaced - {in_play}


def _point_at(app: Any, row: int) -> None:
    """The menu on screen with its cursor on ``row`` (menus are frozen: a new one)."""
    app.box = replace(app.box, menu=replace(app.box.menu, cursor=row))


def _switch(sim: SimulatedBox, how: str, kind: str) -> None:
    """Back until the game menu, "Other game", yes if asked, then a new
    game of ``kind`` or the one of that kind waiting (if any: else back out, to play or, the
    game in play set aside as the question was answered, to the game list)."""
    app = sim.app
    for _ in range(BACKS):  # back closes a menu, and opens the game menu over play
        menu = app.box.menu
        if isinstance(menu, menus.ListMenu) and menu.on_pick in ("session", "pick_game"):
            break
        app.feed(Pressed("back"))
    if app.box.menu.on_pick == "session":
        items = app.box.menu.items
        _point_at(app, items.index("Other game"))
        app.feed(Pressed("ok"))
        if app.box.menu.on_pick == "set_aside":  # "Set aside Trapwords?": keep it waiting
            assert short_title(app.box.session.name) in app.box.menu.title
            assert app.box.menu.items[app.box.menu.cursor] in (
                "Keep it waiting",
                "Wait (old one ends)",
            )
            app.feed(Pressed("ok"))
    game_list = app.box.menu
    assert isinstance(game_list, menus.ListMenu) and game_list.on_pick == "pick_game"
    title = games.get(kind).title
    label = title if how == "aside" else f"Resume {short_title(kind)}"
    if label not in game_list.items:
        app.feed(Pressed("back"))
        return
    _point_at(app, game_list.items.index(label))
    note(f"chosen: {how}")
    app.feed(Pressed("ok"))
    if how == "aside":
        app.feed(Pressed("green"))  # the options as they are: start


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(steps=moves)
def test_switching_games_at_random_never_loses_one(steps: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as where:
        state_dir = Path(where)
        sim = _box(state_dir)
        sim.app.start()
        sim.app.new_game("trapwords", {})
        try:
            for kind, what in steps:
                app = sim.app
                before = _kept(app)
                waiting_before = {r.game_id: r.game for r in app.shelf.games.values()}
                if kind == "press":
                    app.feed(Pressed(what))
                elif kind == "restart":
                    sim.close()
                    sim = _box(state_dir)
                    sim.app.start()
                    note("a restart")
                else:
                    _switch(sim, kind, what)
                    note(f"a switch: {kind}")
                assert not _lost(before, waiting_before, sim.app), "a game was lost"
                assert _back_to_play(sim.app.box, sim.app.world())
            # What a restart would find: the game in play and the same games waiting.
            record = fold(
                [json.loads(x) for x in (state_dir / "journal.jsonl").read_text().splitlines()]
            )
            waiting = Shelf(state_dir).open(record)
            assert waiting == sim.app.shelf.games
            # (none in play after a set-aside answered with no game after it: issue 42, point 10)
            session = sim.app.box.session
            assert (record and record.game_id) == (session and session.game_id)
        finally:
            sim.close()
