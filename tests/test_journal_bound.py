"""The journal's bound (issue 31 point 2, issue 33 point 3): a game of any length keeps a journal
far under the size the box reads at start, starts folding a bounded number of steps, costs
the same per step at any length, and resumes whole, after a power cut at any moment too.

Older steps are folded into a checkpoint of the game's state (app/session.py); the journal is
then replaced whole by the games before, the game's entry, its checkpoint and the standing
steps (core/journal.py ``compact``). Most tests shrink the window (``UNDO_STEPS``) so that a
short game crosses it many times; one plays the real window with fsync left out for speed."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.app import play
from companion.app import session as session_module
from companion.app.events import Pressed, Tapped
from companion.app.session import Session, from_journal, resumed
from companion.core import journal as journal_module
from companion.core import journal_lines, statefile
from companion.core.codec import Codec, CodecError, reachable
from companion.core.config import Config, ReaderConfig, StateConfig
from companion.core.journal import Journal
from companion.core.journal_lines import Checkpoint, fold
from companion.core.shelf import WAITING
from companion.games import dice
from companion.games import registry as games
from companion.games.base import Action
from companion.sim.box import SimulatedBox
from companion.ui import menus

GAMES = games.available()
BUTTONS = ("up", "down", "ok", "green", "red", "back")


def _box(state_dir: Path) -> SimulatedBox:
    config = Config(state=StateConfig(dir=str(state_dir)), reader=ReaderConfig(type="none"))
    return SimulatedBox(config, seed=7, today=lambda: "2026-11-25")


def _started(state_dir: Path) -> SimulatedBox:
    sim = _box(state_dir)
    sim.app.start()
    return sim


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _session_of(entries: list[dict[str, Any]]) -> Session | None:
    """The game the journal's entries give, folded as the box folds it at start."""
    record = fold(entries)
    if record is None:
        return None
    session = resumed(record.game, record.options, record.setup_rolls)
    if record.checkpoint is not None:
        session = session.from_checkpoint(record.checkpoint)
    for standing in from_journal(record.steps):
        session = session.folded(standing)
    return session


@pytest.fixture
def small_window(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(session_module, "UNDO_STEPS", 3)
    monkeypatch.setattr(journal_module, "GAME_LINES", 40)
    return 3


# --- the state codec ----------------------------------------------------------------------------


def _uid(sim: SimulatedBox, game: str, n: int) -> str:
    mine = sorted(c.uid for c in sim.app.registry.demo.values() if c.game == game)
    return mine[n % len(mine)] if mine else "0A0B0C0D01"


inputs = st.lists(
    st.one_of(
        st.tuples(st.just("press"), st.sampled_from(BUTTONS), st.booleans()),
        st.tuples(st.just("press"), st.sampled_from(("green", "ok")), st.just(False)),
        st.tuples(st.just("tap"), st.integers(0, 30), st.just(False)),
        st.tuples(st.just("wait"), st.sampled_from((0.5, 5.0, 60.0)), st.just(False)),
    ),
    min_size=1,
    max_size=40,
)


def _play(sim: SimulatedBox, game: str, moves: list[tuple]) -> None:
    for kind, what, long in moves:
        if kind == "wait":
            sim.advance(what)
        elif kind == "tap":
            sim.app.feed(Tapped(_uid(sim, game, what)))
        else:
            sim.app.feed(Pressed(what, long))


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=inputs, after=inputs)
def test_every_state_round_trips_and_play_goes_on_the_same_from_it(
    game: str, before: list[tuple], after: list[tuple]
) -> None:
    """decode(encode(state)) == state for every state random play reaches, through JSON
    text; the steps played after it give the same states and effects from either."""
    with tempfile.TemporaryDirectory() as where:
        sim = _started(Path(where))
        try:
            sim.app.new_game(game, {})
            _play(sim, game, before)
            session = sim.app.session
            if session is None or session.name != game:
                return
            state = session.state
            codec = Codec(reachable([type(state)]))
            text = json.dumps(codec.encode(state))
            decoded = codec.decode(json.loads(text), type(state))
            assert decoded == state
            event(f"a state after {len(session.steps)} steps" if session.steps else "a new game")
            assert codec.encode(decoded) == codec.encode(state)  # compare=False fields too
            ahead = len(session.steps)
            _play(sim, game, after)
            later = sim.app.session
            if later is None or later.game_id != session.game_id or later.folded_in:
                return
            if later.steps[:ahead] != session.steps:
                return  # undone meanwhile: nothing went on from this state
            rules, a, b = session.rules, state, decoded
            for standing in later.steps[ahead:]:
                if standing.action is None:
                    a = session_module.restored(rules, a, standing.at)
                    b = session_module.restored(rules, b, standing.at)
                    assert a == b
                    continue
                one, two = rules.apply(a, standing.action), rules.apply(b, standing.action)
                assert one == two
                a, b = one.state, two.state
        finally:
            sim.close()


def test_the_codec_builds_only_the_classes_it_was_given() -> None:
    codec = Codec(reachable([dice.DiceState]))
    good = codec.encode(dice.DiceState("d6").rolled("d6", (3,)))
    assert codec.decode(good, dice.DiceState).counts() == {3: 1}
    for bad, why in [
        ({**good, "$": "os.system"}, "not a class this state may hold"),
        ({**good, "rolls": "many"}, "state.rolls: 'many' is not a int"),
        ({**good, "history": [[1], "x"]}, "state.history"),
        ({**good, "colour": "red"}, "has no field 'colour'"),
        ({"$": "DiceState"}, "state.die: missing"),
        ({"$dict": [[1]]}, "not a value this codec writes"),
        ([1, 2], "not a DiceState"),
    ]:
        with pytest.raises(CodecError, match=why):
            codec.decode(bad, dice.DiceState)
    with pytest.raises(CodecError, match="not a class this codec may write"):
        codec.encode(Action("roll"))


def test_the_codec_keeps_python_types_exactly() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Odd:
        a: float
        b: list[int]
        c: frozenset[str]
        d: dict[int, tuple[int, ...]]
        e: tuple[float, ...]

    value = Odd(2, [1, 2], frozenset({"x", "y"}), {3: (4,)}, (float("inf"), 0.5, -0.0))
    codec = Codec([Odd])
    back = codec.decode(json.loads(json.dumps(codec.encode(value))), Odd)
    assert back == value
    assert type(back.a) is int and type(back.b) is list and type(back.c) is frozenset
    assert str(back.e[2]) == "-0.0"


# --- the journal's bound in play ----------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moves=st.lists(inputs, min_size=1, max_size=4))
def test_random_play_across_the_window_folds_and_resumes_as_played(
    game: str, moves: list[list[tuple]]
) -> None:
    """With a window of 1, random play crosses it again and again: the journal always folds to
    the game live play has, stays within its bound, and a restart resumes that game."""
    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as where:
        mp.setattr(session_module, "UNDO_STEPS", 1)
        mp.setattr(journal_module, "GAME_LINES", 12)
        state_dir = Path(where)
        path = state_dir / statefile.JOURNAL.name
        sim = _started(state_dir)
        try:
            sim.app.new_game(game, {})
            for chunk in moves:
                _play(sim, game, chunk)
                live = sim.app.session
                folded = _session_of(_lines(path))
                assert live is not None and folded is not None
                assert folded.steps == live.steps
                assert folded.folded_in == live.folded_in
                assert folded.base == live.base  # the state itself, not only what it shows
                assert folded.checkpoint() == live.checkpoint()  # every field, as written
                assert folded.fold_end == live.fold_end
                assert len(live.steps) <= 4 and live.persons <= 2
                if live.folded_in:
                    event("the window crossed")
                game_lines = len(_lines(path)) - _game_start(path)
                assert game_lines <= 12 + 1
        finally:
            sim.close()  # a clean stop: a running timer paused, one step more
        live = sim.app.session
        again = _started(state_dir)
        try:
            back = again.app.session
            assert back is not None and live is not None
            assert back.folded_in == live.folded_in
            # as the journal has it (a page only shown, the dice's history, is never journaled)
            rules, folded = back.rules, _session_of(_lines(path))
            assert rules.public(back.state) == rules.public(rules.restore(folded.state))
            assert [s.action for s in back.steps if s.action] == [
                s.action for s in live.steps if s.action
            ]
        finally:
            again.close()


def _game_start(path: Path) -> int:
    kinds = [e["kind"] for e in _lines(path)]
    return max(i for i, kind in enumerate(kinds) if kind == "game")


def test_undo_reaches_back_the_window_then_nothing_to_undo(tmp_path: Path, small_window) -> None:
    sim = _started(tmp_path)
    try:
        sim.app.new_game("dice", {})
        for face in (1, 2, 3, 4, 5, 6, 1):  # the 7th action folds the first four in
            sim.app.dice.force([face])
            sim.app.submit(Action("roll"))
        session = sim.app.session
        assert session.folded_in == 4 and len(session.steps) == small_window
        assert _lines(tmp_path / "journal.jsonl")[1]["kind"] == "checkpoint"
        for last in (1, 6, 5):  # undo, confirmed, three times: the window's three rolls
            assert sim.app.session.state.last == (last,)
            sim.app.feed(Pressed("back", True))
            assert isinstance(sim.app.box.menu, menus.Confirm)
            sim.app.feed(Pressed("green"))
        assert sim.app.session.state.last == (4,)  # as the checkpoint holds it
        assert sim.app.session.state.rolls == 4
        sim.app.feed(Pressed("back", True))
        assert sim.app.rejected == "nothing to undo"
        assert sim.app.session.state.rolls == 4
        assert play.worth_keeping(sim.app.session)  # played, though nothing is left to undo
    finally:
        sim.close()
    again = _started(tmp_path)  # the undos and the restores they left fold the same
    try:
        assert again.app.session.state.rolls == 4
        assert again.app.session.state.last == (4,)
    finally:
        again.close()


def test_a_long_game_stays_far_under_the_cap_and_resumes_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real window: 2,700 rolls of 2d6 (fsync left out for speed) cross it five times; the
    journal never passes a tenth of what the box reads at start, holds a checkpoint and the
    standing steps, and a restart folds at most the window's steps to the same game."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    window = session_module.UNDO_STEPS
    path = tmp_path / statefile.JOURNAL.name
    sim = _started(tmp_path)
    compactions, biggest = set(), 0
    try:
        sim.app.new_game("dice", {"die": "2d6"})
        rules = sim.app.session.rules
        applied = [0]
        real_apply = type(rules).apply

        def apply(self: Any, state: Any, action: Action) -> Any:
            applied[0] += 1
            return real_apply(self, state, action)

        for n in range(2700):
            if n == 1700:  # the last 1,000 rolls: the rules' work per roll, compactions in
                monkeypatch.setattr(type(rules), "apply", apply)
            sim.app.submit(Action("roll"))
            compactions.add(sim.app.journal.base_steps)
            biggest = max(biggest, path.stat().st_size)
        monkeypatch.undo()
        monkeypatch.setattr(os, "fsync", lambda fd: None)
        # Flat: a roll is applied once, and each compaction applies the rolls it folds once
        # more (about one more a roll), at the 2,000th roll as at the 10th: never the game.
        assert applied[0] <= 2 * 1000 + 10
        session = sim.app.session
        assert len(compactions) >= 5  # 0, then each checkpoint written
        assert biggest < statefile.JOURNAL.cap / 10
        assert window <= len(session.steps) <= 2 * window
        assert session.folded_in + len(session.steps) == 2700
        state, public = session.state, session.rules.public(session.state)
        assert len(state.history) == dice.HISTORY and len(public["history"]) == dice.HISTORY
        assert state.rolls == 2700 and sum(public["counts"].values()) == 2 * 2700
        entries = _lines(path)
        assert [e["kind"] for e in entries[:2]] == ["game", "checkpoint"]
        assert len(entries) == 2 + len(session.steps)
    finally:
        sim.close()
    folded = []
    real = Session.folded

    def counted(self: Session, step: Any) -> Session:
        folded.append(step)
        return real(self, step)

    monkeypatch.setattr(Session, "folded", counted)
    again = _started(tmp_path)
    try:
        assert again.app.session.state == state
        assert len(folded) <= 2 * window
    finally:
        again.close()


def test_a_journal_written_before_checkpoints_is_kept_bounded_from_its_first_start(
    tmp_path: Path, small_window: int
) -> None:
    """A long game in a journal with no checkpoint (written by an older version): folded once
    at start (the window moving on as it goes), and the journal is made short at once."""
    path = tmp_path / statefile.JOURNAL.name
    lines = [{"v": 1, "seq": 1, "kind": "game", "game": "dice", "options": {"die": "d6"}}]
    for n in range(200):
        roll = {"name": "roll", "rolls": [n % 6 + 1], "at": float(n)}
        lines.append({"v": 1, "seq": n + 2, "kind": "action", "action": roll})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    sim = _started(tmp_path)
    try:
        session = sim.app.session
        assert session.state.rolls == 200 and session.state.last == (200 % 6,)
        entries = _lines(path)
        assert [e["kind"] for e in entries[:2]] == ["game", "checkpoint"]
        assert len(entries) <= 2 + 2 * small_window
        assert _session_of(entries).state == session.state
    finally:
        sim.close()


# --- start: streamed, bounded -------------------------------------------------------------------


def test_the_start_reads_line_by_line_and_keeps_only_the_game_in_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / statefile.JOURNAL.name
    j = Journal(path)
    j.open()
    for game in range(30):
        j.new_game("dice", {"die": "d6"}, (), float(game))
        for n in range(20):
            j.action(Action("roll", rolls=(n % 6 + 1,), at=game + n / 100).to_json())
    j.close()

    def whole(*args: Any) -> None:
        raise AssertionError("a sound journal is never read whole at start")

    monkeypatch.setattr(statefile, "read_bytes", whole)
    kept: list[int] = []
    real = journal_lines.Folder.take

    def take(self: Any, entry: dict[str, Any], line: int = 0) -> None:
        real(self, entry, line)
        if self.record is not None:
            kept.append(len(self.record.steps))

    monkeypatch.setattr(journal_lines.Folder, "take", take)
    again = Journal(path)
    record = again.open()
    again.close()
    assert record is not None and record.started_at == 29.0 and len(record.steps) == 20
    assert max(kept) == 20  # one game at a time, never every line of every game
    assert again.game_lines == 21


def test_a_checkpoint_that_does_not_decode_is_damage_named_by_its_line(tmp_path: Path) -> None:
    path = tmp_path / statefile.JOURNAL.name
    lines = [
        {"v": 1, "seq": 1, "kind": "game", "game": "dice", "options": {"die": "d6"}},
        {"v": 1, "seq": 2, "kind": "checkpoint", "state": {"$": "Popen", "args": "x"}},
        {"v": 1, "seq": 3, "kind": "action", "action": {"name": "roll", "rolls": [3]}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    sim = _started(tmp_path)
    try:
        (aside,) = sim.app.journal.warnings
        assert f"{path}:2: a checkpoint that is not a state of dice" in aside.why
        assert "'Popen' is not a class this state may hold" in aside.why
        assert aside.moved_to.read_bytes() == path.with_name(aside.moved_to.name).read_bytes()
        assert sim.app.session.name == "dice" and sim.app.session.state.rolls == 0
        assert [e["kind"] for e in _lines(path)] == ["game"]
    finally:
        sim.close()


# --- power cuts while the journal is made shorter -----------------------------------------------


class PowerCut(Exception):
    """The power goes: nothing after this point happens."""


def _cut_after(mp: pytest.MonkeyPatch, calls: int) -> None:
    count = [0]

    def wrap(real: Any) -> Any:
        def op(*args: Any, **kwargs: Any) -> Any:
            count[0] += 1
            if count[0] > calls:
                raise PowerCut
            return real(*args, **kwargs)

        return op

    for name in ("write", "fsync", "replace", "open", "unlink", "truncate", "ftruncate"):
        mp.setattr(os, name, wrap(getattr(os, name)))


def test_a_power_cut_at_any_moment_of_a_compaction_leaves_the_same_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_window: int
) -> None:
    outcomes = set()
    for calls in range(60):
        state_dir = tmp_path / str(calls)
        state_dir.mkdir()
        sim = _started(state_dir)
        sim.app.new_game("dice", {})
        sim.app.new_game("dice", {"die": "d4"})  # a game before the one in play
        for face in (1, 2, 3, 4, 1, 2):
            sim.app.dice.force([face])
            sim.app.submit(Action("roll"))
        expected = sim.app.session.rules.public(sim.app.session.state)
        sim.app.dice.force([3])
        with monkeypatch.context() as cut:
            _cut_after(cut, calls)
            try:
                sim.app.submit(Action("roll"))  # the 7th: the journal is made shorter
            except PowerCut:
                pass
            else:
                sim.close()
                break
        entries = _lines(state_dir / statefile.JOURNAL.name)
        assert next(e["options"] for e in entries if e["kind"] == "game") == {}  # kept
        folded = _session_of(entries)
        public = folded.rules.public(folded.state)
        if folded.state.rolls == 7:  # the roll was written: old file or new, the same game
            kinds = {e["kind"] for e in entries}
            outcomes.add("checkpoint" if "checkpoint" in kinds else "whole")
            assert public["history"][-1] == [3]
        else:
            assert public == expected
            outcomes.add("before")
        again = _started(state_dir)
        assert again.app.journal.warnings == []
        assert again.app.session.state.rolls == folded.state.rolls
        again.close()
    else:
        pytest.fail("the compaction never finished")
    assert outcomes == {"before", "whole", "checkpoint"}


# --- the games set aside ------------------------------------------------------------------------


def test_a_long_game_set_aside_waits_bounded_and_comes_back_whole(
    tmp_path: Path, small_window: int
) -> None:
    sim = _started(tmp_path)
    try:
        sim.app.new_game("dice", {"die": "2d6"})
        for _ in range(40):
            sim.app.submit(Action("roll"))
        long_game = sim.app.session
        assert long_game.folded_in > 30
        sim.app.feed(Pressed("back"))
        _pick(sim, "Other game")
        sim.app.feed(Pressed("ok"))  # yes: set it aside
        _pick(sim, "Trapwords")
        sim.app.feed(Pressed("green"))  # start it
        assert sim.app.session.name == "trapwords"
        waiting = _lines(tmp_path / WAITING)
        assert [e["kind"] for e in waiting[:3]] == ["waiting", "game", "checkpoint"]
        assert len(waiting) <= 3 + 2 * small_window
        sim.app.feed(Pressed("back"))
        _pick(sim, "Other game")
        _pick(sim, "Resume Dice")
        back = sim.app.session
        assert back.name == "dice" and back.state == long_game.state
        assert back.folded_in == long_game.folded_in
        assert _lines(tmp_path / statefile.JOURNAL.name)[1]["kind"] == "checkpoint"
    finally:
        sim.close()
    again = _started(tmp_path)
    try:
        assert again.app.session.state == long_game.state
    finally:
        again.close()


def _pick(sim: SimulatedBox, label: str) -> None:
    menu = sim.app.box.menu
    assert isinstance(menu, menus.ListMenu), menu
    assert label in menu.items, menu.items
    while menu.items[menu.cursor] != label:
        sim.app.feed(Pressed("down"))
        menu = sim.app.box.menu
    sim.app.feed(Pressed("ok"))


def test_a_checkpoint_entry_is_written_and_read_as_it_was(tmp_path: Path) -> None:
    point = Checkpoint({"$": "DiceState", "die": "d6"}, 12.5, 700)
    assert point.entry() == {"kind": "checkpoint", "state": point.state, "steps": 700, "at": 12.5}
    record = fold(
        [
            {"kind": "game", "game": "dice", "options": {}},
            {"kind": "action", "action": {"name": "roll", "rolls": [2]}},
            point.entry(),
            {"kind": "undo"},  # nothing a person did since: nothing to take back
            {"kind": "action", "action": {"name": "roll", "rolls": [4]}},
        ]
    )
    assert record.checkpoint == point and [s.action["rolls"] for s in record.steps] == [[4]]


def test_undo_after_undo_never_piles_up_past_the_bound(tmp_path: Path, small_window: int) -> None:
    """A roll taken back, again and again: the steps stay few but the lines (action, undo,
    restore) pile up; past GAME_LINES the journal is made short as well."""
    path = tmp_path / statefile.JOURNAL.name
    sim = _started(tmp_path)
    longest = 0
    try:
        sim.app.new_game("dice", {})
        sim.app.submit(Action("roll"))
        for _ in range(60):
            sim.app.submit(Action("roll"))
            sim.app.feed(Pressed("back", True))
            sim.app.feed(Pressed("green"))  # yes, undo
            longest = max(longest, len(_lines(path)))
        state = sim.app.session.state
        assert state.rolls == 1
    finally:
        sim.close()
    assert longest <= journal_module.GAME_LINES + 3
    again = _started(tmp_path)
    try:
        assert again.app.session.state == state
    finally:
        again.close()


def test_a_compaction_the_storage_refuses_loses_nothing_and_comes_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_window: int
) -> None:
    """A full card at the moment of a compaction: the roll stands (it was written before),
    the old file still folds to the game, and the compaction is done a few lines later."""
    from companion.core import durable

    monkeypatch.setattr(journal_module, "COMPACT_RETRY_LINES", 4)
    real = durable.replace_whole
    refused = []

    def full(path: Path, data: bytes) -> None:
        if not refused:
            refused.append(path)
            raise OSError(28, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(durable, "replace_whole", full)
    path = tmp_path / statefile.JOURNAL.name
    sim = _started(tmp_path)
    try:
        sim.app.new_game("dice", {})
        for _ in range(7):  # the 7th folds four into the base: the compaction is refused
            sim.app.submit(Action("roll"))
        assert refused and "checkpoint" not in {e["kind"] for e in _lines(path)}
        assert _session_of(_lines(path)).state == sim.app.session.state
        for _ in range(4):  # four lines more: not yet
            sim.app.submit(Action("roll"))
            assert "checkpoint" not in {e["kind"] for e in _lines(path)}
        sim.app.submit(Action("roll"))
        assert _lines(path)[1]["kind"] == "checkpoint"
        assert _session_of(_lines(path)).state == sim.app.session.state
        assert sim.app.session.state.rolls == 12
    finally:
        sim.close()


def test_a_state_the_codec_cannot_write_never_stops_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_window: int
) -> None:
    """A game whose state would not encode (a value of a class its annotations never name):
    play goes on with the journal whole, the error said once in the log."""

    def cannot(self: Codec, value: Any) -> Any:
        raise CodecError("Odd is not a class this codec may write")

    monkeypatch.setattr(Codec, "encode", cannot)
    path = tmp_path / statefile.JOURNAL.name
    sim = _started(tmp_path)
    try:
        sim.app.new_game("dice", {})
        for _ in range(12):
            sim.app.submit(Action("roll"))
        assert sim.app.session.state.rolls == 12
        assert [e["kind"] for e in _lines(path)].count("action") == 12
    finally:
        sim.close()


def test_line_numbers_go_on_rising_across_compactions_and_restarts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_window: int
) -> None:
    """A compacted journal holds fewer lines than its last number: a restart numbers the next
    line after the last one, not after the count of lines (805 was written twice)."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    path = tmp_path / statefile.JOURNAL.name
    seen: list[int] = []
    for part in range(3):
        sim = _started(tmp_path)
        try:
            if part == 0:
                sim.app.new_game("dice", {"die": "d6"})
            for _ in range(60):
                sim.app.submit(Action("roll"))
            numbers = [e["seq"] for e in _lines(path)]
            assert numbers == sorted(set(numbers)), numbers  # rising, none twice
            assert len(numbers) < numbers[-1]  # compacted: fewer lines than numbers
            assert not seen or numbers[-1] > seen[-1]
            seen.append(numbers[-1])
        finally:
            sim.close()
