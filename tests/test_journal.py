"""The journal: fsync'ed JSONL that folds back into the current game, survives torn writes and
moves an unreadable file aside instead of crash-looping."""

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core.journal import Journal
from companion.core.journal_lines import fold, read_entries, read_journal
from companion.games.base import Action

# Any float, a subnormal among them given as a value: Hypothesis will not draw subnormals where
# a loaded library has turned on flush-to-zero (yarl's armv7l wheel does, once aiohttp loads).
FLOATS = st.floats(allow_subnormal=False) | st.just(5e-324)


def _entry(*args, **kwargs) -> dict:
    """An action as the app hands it to the journal: its JSON object."""
    return Action(*args, **kwargs).to_json()


def _actions(record) -> list[Action]:
    """The record's actions as the app reads them back."""
    return [Action.from_json(a) for a in record.actions]


def _journal(tmp_path):
    j = Journal(tmp_path / "journal.jsonl")
    assert j.open() is None
    return j


def test_fold_gives_the_last_game_with_its_actions_minus_undone(tmp_path):
    j = _journal(tmp_path)
    j.new_game("dice", {"die": "d6"}, (), 0.0)
    j.action(_entry("roll", rolls=(3,), at=1.0))
    j.new_game("dice", {"die": "d4"}, (), 2.0)
    j.action(_entry("roll", rolls=(1,), at=3.0))
    j.action(_entry("roll", rolls=(2,), at=4.0))
    j.undo()
    j.action(_entry("roll", {"die": "d6"}, rolls=(6,), at=5.0))
    j.close()
    record = Journal(tmp_path / "journal.jsonl").open()
    assert record.game == "dice"
    assert record.options == {"die": "d4"}
    assert [a.rolls for a in _actions(record)] == [(1,), (6,)]
    assert _actions(record)[1] == Action("roll", {"die": "d6"}, rolls=(6,), at=5.0)


def test_a_torn_last_line_is_dropped_and_cut_off_so_appends_stay_clean(tmp_path, caplog):
    j = _journal(tmp_path)
    j.new_game("dice", {}, (), 0.0)
    j.action(_entry("roll", rolls=(2,), at=1.0))
    j.close()
    path = tmp_path / "journal.jsonl"
    with open(path, "ab") as f:
        f.write(b'{"v":1,"seq":3,"kind":"action","action":{"na')
    j2 = Journal(path)
    record = j2.open()
    assert [a.rolls for a in _actions(record)] == [(2,)]
    assert "torn" in caplog.text
    j2.action(_entry("roll", rolls=(5,), at=2.0))
    j2.close()
    entries, good = read_entries(path)
    assert good == path.stat().st_size
    assert [e["action"]["rolls"] for e in entries if e["kind"] == "action"] == [[2], [5]]


def test_an_unreadable_journal_is_moved_aside_and_a_new_one_starts(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'not json at all\n{"kind":"undo"}\n')
    j = Journal(path)
    assert j.open() is None
    moved = list(tmp_path.glob("journal.jsonl.unreadable-*"))
    assert len(moved) == 1
    assert moved[0].read_bytes().startswith(b"not json")
    assert "journal.jsonl:1" in str(j.warnings[0])
    assert (j.warnings[0].kept, j.warnings[0].lines) == (0, 2)
    j.new_game("dice", {}, (), 0.0)
    j.close()
    assert fold(read_entries(path)[0]).game == "dice"


def test_entries_that_are_json_but_not_journal_entries_are_unreadable(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_text(json.dumps({"kind": "action", "action": {"rolls": [1]}}) + "\n")
    j = Journal(path)
    j.open()
    assert "malformed action" in str(j.warnings[0])


def test_append_fsyncs_every_entry(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    j = _journal(tmp_path)
    before = len(synced)
    j.action(_entry("roll", rolls=(1,)))
    j.action(_entry("roll", rolls=(2,)))
    assert len(synced) - before == 2


def _two_games_past_the_history_size(tmp_path, monkeypatch) -> None:
    """A game of 20 rolls that takes the journal past the size that moves it to history/,
    then a new game of one roll."""
    from companion.core import journal as journal_module

    monkeypatch.setattr(journal_module, "ROTATE_BYTES", 500)
    j = _journal(tmp_path)
    j.new_game("dice", {}, (), 0.0)
    for i in range(20):
        j.action(_entry("roll", rolls=(i % 6 + 1,), at=float(i)))
    j.new_game("dice", {"die": "d4"}, (), 30.0)
    j.action(_entry("roll", rolls=(2,), at=31.0))
    j.close()


def test_a_big_journal_moves_to_history_when_a_new_game_starts(tmp_path, monkeypatch):
    _two_games_past_the_history_size(tmp_path, monkeypatch)
    archived = list((tmp_path / "history").glob("journal-*.jsonl"))
    assert len(archived) == 1
    assert len(read_entries(archived[0])[0]) == 21
    record = Journal(tmp_path / "journal.jsonl").open()
    assert record.options == {"die": "d4"}
    assert [a.rolls for a in _actions(record)] == [(2,)]


def test_a_history_that_cannot_be_a_folder_keeps_the_games_in_the_journal(tmp_path, monkeypatch):
    (tmp_path / "history").write_text("not a folder")
    _two_games_past_the_history_size(tmp_path, monkeypatch)
    entries = read_entries(tmp_path / "journal.jsonl")[0]
    assert len(entries) == 23  # both games, nothing lost
    assert [e["seq"] for e in entries] == list(range(1, 24))
    record = Journal(tmp_path / "journal.jsonl").open()
    assert record.options == {"die": "d4"}
    assert [a.rolls for a in _actions(record)] == [(2,)]


def test_a_next_file_that_is_a_folder_is_set_aside_and_the_game_resumes(tmp_path):
    j = _journal(tmp_path)
    j.new_game("dice", {}, (), 0.0)
    j.action(_entry("roll", rolls=(3,), at=1.0))
    j.close()
    (tmp_path / "journal.jsonl.next").mkdir()
    record = Journal(tmp_path / "journal.jsonl").open()
    assert [a.rolls for a in _actions(record)] == [(3,)]
    assert not (tmp_path / "journal.jsonl.next").exists()
    assert list(tmp_path.glob("journal.jsonl.next.unreadable-*"))


def test_undo_takes_back_the_last_persons_action_with_the_ticks_after_it(tmp_path):
    j = _journal(tmp_path)
    j.new_game("trapwords", {}, (), 0.0)
    j.action(_entry("start", at=1.0))
    j.action(_entry("tick", at=2.0), auto=True)
    j.action(_entry("wrong", at=2.5))
    j.action(_entry("tick", at=3.0), auto=True)
    j.action(_entry("tick", at=4.0), auto=True)
    j.undo()
    j.close()
    record = Journal(tmp_path / "journal.jsonl").open()
    assert [a.name for a in _actions(record)] == ["start", "tick"]


def test_a_restore_is_folded_where_it_happened(tmp_path):
    j = _journal(tmp_path)
    j.new_game("trapwords", {}, (), 0.0)
    j.action(_entry("start", at=1.0))
    j.restore()
    j.action(_entry("resume", at=9.0))
    j.close()
    record = Journal(tmp_path / "journal.jsonl").open()
    assert [(s.action["name"] if s.action else None) for s in record.steps] == [
        "start",
        None,
        "resume",
    ]
    assert record.steps[0].by_person and not record.steps[1].by_person


def test_undo_with_only_timer_steps_left_takes_back_nothing():
    from companion.core.journal_lines import Step, undo_steps

    steps = [Step(Action("tick"), auto=True), Step(None)]
    assert undo_steps(steps) is None
    assert len(steps) == 2


# --- damaged lines: keep what still folds ------------------------------------------------------


def _lines(*entries):
    return "".join(json.dumps(e) + "\n" for e in entries).encode()


GAME_D6 = {"v": 1, "seq": 1, "kind": "game", "game": "dice", "options": {"die": "d6"}, "at": 0.0}
GAME_D4 = {"v": 1, "seq": 5, "kind": "game", "game": "dice", "options": {"die": "d4"}, "at": 9.0}


def _roll(face, at):
    return {"v": 1, "kind": "action", "action": {"name": "roll", "rolls": [face], "at": at}}


WRONG_SHAPES = [
    pytest.param(b'{"v":1,"seq":99,"kind":"game","game":"dice","options":5}', id="options-5"),
    pytest.param(b'{"v":1,"seq":99,"kind":"game","game":"dice","at":"soon"}', id="at-soon"),
    pytest.param(b'{"kind":"game","game":"dice","rolls":[true]}', id="rolls-true"),
    pytest.param(b'{"kind":"game","game":"dice","options":{"die":["d4"]}}', id="option-list"),
    pytest.param(b'{"kind":"action","action":{"name":"roll","at":NaN}}', id="at-nan"),
    pytest.param(b'{"kind":"action","action":{"name":"roll","args":[1]}}', id="args-list"),
    pytest.param(b'{"kind":"action","action":{"name":"roll"},"auto":"yes"}', id="auto-yes"),
    pytest.param(b"[" * 200_000, id="200000-brackets"),
    pytest.param(b"\xff\xfe", id="not-utf8"),
    pytest.param(b'{"kind":"undo","n":' + b"9" * 5000 + b"}", id="5000-digits"),
]


@pytest.mark.parametrize("bad", WRONG_SHAPES)
def test_a_damaged_line_in_the_middle_keeps_the_game_up_to_it(tmp_path, bad):
    path = tmp_path / "journal.jsonl"
    before = _lines(GAME_D6, _roll(3, 1.0), GAME_D4, _roll(2, 10.0), _roll(4, 11.0))
    original = before + bad + b"\n" + _lines(_roll(1, 12.0), {"kind": "undo"})
    path.write_bytes(original)
    j = Journal(path)
    record = j.open()
    assert record.options == {"die": "d4"}  # the game in play, up to the damage
    assert [a.rolls for a in _actions(record)] == [(2,), (4,)]
    assert path.read_bytes() == before  # the games before it are kept too
    (aside,) = j.warnings
    assert (aside.kept, aside.lines) == (5, 8)
    assert aside.moved_to.read_bytes() == original  # the original, for a human to look at
    assert "journal.jsonl:6" in str(aside)
    j.action(_entry("roll", rolls=(6,), at=13.0))
    j.close()
    again = Journal(path)
    assert [a.rolls for a in _actions(again.open())] == [(2,), (4,), (6,)]
    assert again.warnings == []


def test_a_game_started_after_the_damage_is_kept_whole_with_the_games_before(tmp_path):
    path = tmp_path / "journal.jsonl"
    first = _lines(GAME_D6, _roll(3, 1.0))
    current = _lines(GAME_D4, _roll(2, 10.0), {"kind": "undo"}, _roll(4, 11.0))
    path.write_bytes(first + b"garbage\n" + _lines(_roll(5, 2.0)) + current)
    j = Journal(path)
    record = j.open()
    assert record.options == {"die": "d4"}
    assert [a.rolls for a in _actions(record)] == [(4,)]
    assert path.read_bytes() == first + current
    assert (j.warnings[0].kept, j.warnings[0].lines) == (6, 8)


def test_damage_on_the_last_line_with_its_newline_is_damage_not_a_torn_write(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(_lines(GAME_D6, _roll(3, 1.0)) + b'{"kind":"act\n')
    j = Journal(path)
    assert [a.rolls for a in _actions(j.open())] == [(3,)]
    assert j.warnings[0].kept == 2


line_shapes = st.one_of(
    st.binary(max_size=40),
    st.recursive(
        st.none() | st.booleans() | st.integers() | FLOATS | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=6,
    ).map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["game", "action", "undo", "restore", "x"])},
        optional={
            "game": st.sampled_from(["dice", "", 5]),
            "options": st.one_of(st.just({"die": "d4"}), st.integers(), st.lists(st.integers())),
            "rolls": st.lists(st.one_of(st.integers(), st.booleans(), st.text(max_size=2))),
            "at": st.one_of(FLOATS, st.text(max_size=3), st.booleans()),
            "action": st.one_of(
                st.fixed_dictionaries(
                    {"name": st.sampled_from(["roll", "reroll", 7])},
                    optional={
                        "args": st.one_of(st.just({"die": "d4"}), st.lists(st.integers())),
                        "rolls": st.lists(st.one_of(st.integers(1, 6), st.booleans())),
                        "at": st.one_of(FLOATS, st.text(max_size=3)),
                    },
                ),
                st.integers(),
            ),
            "auto": st.one_of(st.booleans(), st.integers()),
        },
    ).map(lambda v: json.dumps(v).encode()),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(line_shapes, max_size=8), st.booleans())
def test_any_journal_opens_folds_and_opens_again_unchanged(tmp_path_factory, lines, torn):
    path = tmp_path_factory.mktemp("j") / "journal.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"" if torn else b"\n"))
    j = Journal(path)
    record = j.open()
    j.close()
    if record is not None:  # every value the app reads has its type
        assert isinstance(record.game, str) and isinstance(record.started_at, float)
        assert all(
            isinstance(a.at, float) and all(type(r) is int for r in a.rolls)
            for a in _actions(record)
        )
    again = Journal(path)
    assert again.open() == record  # what was kept opens the same, with nothing more set aside
    assert again.warnings == []
    again.close()


# --- power cuts while the journal moves ---------------------------------------------------------


class PowerCut(Exception):
    """The power goes: nothing after this point happens."""


def _cut_after(monkeypatch, calls):
    """Make the ``calls``-th file operation (write, fsync, rename, open, unlink) the last."""
    count = [0]

    def wrap(real):
        def op(*args, **kwargs):
            count[0] += 1
            if count[0] > calls:
                raise PowerCut
            return real(*args, **kwargs)

        return op

    for name in ("write", "fsync", "replace", "open", "unlink", "truncate"):
        monkeypatch.setattr(os, name, wrap(getattr(os, name)))
    return count


def test_a_power_cut_at_any_step_of_the_move_to_history_keeps_the_old_or_the_new_game(
    tmp_path, monkeypatch
):
    from companion.core import journal as journal_module

    monkeypatch.setattr(journal_module, "ROTATE_BYTES", 500)
    outcomes = set()
    for calls in range(100):
        state = tmp_path / str(calls)
        state.mkdir()
        j = Journal(state / "journal.jsonl")
        j.open()
        j.new_game("dice", {"die": "d6"}, (), 0.0)
        for i in range(20):
            j.action(_entry("roll", rolls=(i % 6 + 1,), at=float(i)))
        with monkeypatch.context() as cut:
            _cut_after(cut, calls)
            try:
                j.new_game("dice", {"die": "d4"}, (), 30.0)
            except PowerCut:
                pass
            else:
                break
        record = Journal(state / "journal.jsonl").open()
        assert record is not None, f"cut after {calls} operations: no game at all"
        if record.options == {"die": "d6"}:
            assert len(_actions(record)) == 20
            outcomes.add("old")
        else:
            assert record.options == {"die": "d4"} and _actions(record) == []
            outcomes.add("new")
            assert len(list((state / "history").iterdir())) == 1
    else:
        pytest.fail("the move never finished")
    assert outcomes == {"old", "new"}


def test_a_power_cut_while_a_damaged_journal_is_set_aside_loses_nothing(tmp_path, monkeypatch):
    original = _lines(GAME_D6, _roll(3, 1.0), _roll(5, 2.0)) + b"garbage\n"
    for calls in range(100):
        state = tmp_path / str(calls)
        state.mkdir()
        (state / "journal.jsonl").write_bytes(original)
        with monkeypatch.context() as cut:
            _cut_after(cut, calls)
            try:
                Journal(state / "journal.jsonl").open()
            except PowerCut:
                pass
            else:
                break
        record = Journal(state / "journal.jsonl").open()
        assert [a.rolls for a in _actions(record)] == [(3,), (5,)]
        assert [p.read_bytes() for p in state.glob("journal.jsonl.unreadable-*")] == [original]
    else:
        pytest.fail("setting aside never finished")


def test_keeping_a_game_up_to_a_step_keeps_the_games_before_and_its_standing_steps(tmp_path):
    j = _journal(tmp_path)
    j.new_game("dice", {"die": "d6"}, (), 0.0)
    j.action(_entry("roll", rolls=(1,), at=1.0))
    j.new_game("trapwords", {"seconds": "30"}, (2,), 2.0)
    j.action(_entry("start", at=3.0))
    j.action(_entry("tick", at=4.0), auto=True)
    j.action(_entry("wrong", at=5.0))
    j.undo()
    j.restore()
    # a menu move as versions before issue 19 journaled Trap Attack's menus: skipped by the fold
    j.append({"kind": "action", "action": {"name": "look", "at": 6.0}, "nav": True})
    j.action(_entry("refused", at=7.0))
    j.close()
    path = tmp_path / "journal.jsonl"
    original = path.read_bytes()
    j = Journal(path)
    record = j.open()
    assert [s.action["name"] if s.action else None for s in record.steps] == [
        "start",
        "tick",
        None,
        "refused",
    ]
    j.close()
    j.keep_game("the rules refuse step 4", record, 3)
    kept = Journal(path).open()
    assert (kept.game, kept.options, kept.setup_rolls, kept.started_at) == (
        "trapwords",
        {"seconds": "30"},
        (2,),
        2.0,
    )
    assert kept.steps == record.steps[:3]
    assert fold(read_entries(path)[0][:2]).options == {"die": "d6"}  # the game before, as it was
    (aside,) = j.warnings
    assert aside.moved_to.read_bytes() == original
    assert (aside.kept, aside.lines) == (6, 10)  # 2 games, 1 roll, start, tick, restore


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (
            '{"kind":"game","game":"dice","options":[1]}',
            "a game entry whose options are not a table of values",
        ),
        (
            '{"kind":"game","game":"dice","rolls":[1.5]}',
            "a game entry whose rolls are not whole numbers",
        ),
        ('{"kind":"game","game":"dice","at":"noon"}', "a game entry whose time is not a number"),
        (
            '{"kind":"game","game":"dice","id":"XYZ"}',
            "a game entry whose id is not up to 32 hex digits",
        ),
        (
            '{"kind":"action","action":{"name":"roll","args":{"a":[1]}}}',
            "malformed action (its arguments are not a table of values)",
        ),
        (
            '{"kind":"action","action":{"name":"roll","rolls":[true]}}',
            "malformed action (its rolls are not whole numbers)",
        ),
        (
            '{"kind":"action","action":{"name":"roll","at":null}}',
            "malformed action (its time is not a number)",
        ),
        (
            '{"kind":"action","action":{"name":"roll"},"auto":1}',
            "malformed action (auto is not true or false)",
        ),
    ],
)
def test_each_wrong_value_of_a_line_is_named(line: str, why: str) -> None:
    """A game's or an action's values are checked one by one, in order, each wrong one named."""
    reading = read_journal(f'{{"kind":"game","game":"dice"}}\n{line}\n'.encode(), "j")
    assert reading.damage == [f"j:2: {why}"]
