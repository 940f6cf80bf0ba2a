"""The journal: fsync'ed JSONL that folds back into the current game, survives torn writes and
moves an unreadable file aside instead of crash-looping."""

import json
import os

from companion.core.journal import Journal, fold, read_entries
from companion.games.base import Action


def _journal(tmp_path):
    j = Journal(tmp_path / "journal.jsonl")
    assert j.open() is None
    return j


def test_fold_gives_the_last_game_with_its_actions_minus_undone(tmp_path):
    j = _journal(tmp_path)
    j.new_game("dice", {"die": "d6"}, (), 0.0)
    j.action(Action("roll", rolls=(3,), at=1.0))
    j.new_game("dice", {"die": "d4"}, (), 2.0)
    j.action(Action("roll", rolls=(1,), at=3.0))
    j.action(Action("roll", rolls=(2,), at=4.0))
    j.undo()
    j.action(Action("roll", {"die": "d6"}, rolls=(6,), at=5.0))
    j.close()
    record = Journal(tmp_path / "journal.jsonl").open()
    assert record.game == "dice"
    assert record.options == {"die": "d4"}
    assert [a.rolls for a in record.actions] == [(1,), (6,)]
    assert record.actions[1] == Action("roll", {"die": "d6"}, rolls=(6,), at=5.0)


def test_a_torn_last_line_is_dropped_and_cut_off_so_appends_stay_clean(tmp_path, caplog):
    j = _journal(tmp_path)
    j.new_game("dice", {}, (), 0.0)
    j.action(Action("roll", rolls=(2,), at=1.0))
    j.close()
    path = tmp_path / "journal.jsonl"
    with open(path, "ab") as f:
        f.write(b'{"v":1,"seq":3,"kind":"action","action":{"na')
    j2 = Journal(path)
    record = j2.open()
    assert [a.rolls for a in record.actions] == [(2,)]
    assert "torn" in caplog.text
    j2.action(Action("roll", rolls=(5,), at=2.0))
    j2.close()
    entries, good = read_entries(path)
    assert good == path.stat().st_size
    assert [e["action"]["rolls"] for e in entries if e["kind"] == "action"] == [[2], [5]]


def test_an_unreadable_journal_is_moved_aside_and_a_new_one_starts(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"kind":"game","game":"dice"}\nnot json at all\n{"kind":"undo"}\n')
    j = Journal(path)
    assert j.open() is None
    moved = list(tmp_path.glob("journal.jsonl.unreadable-*"))
    assert len(moved) == 1
    assert moved[0].read_bytes().startswith(b'{"kind":"game"')
    assert "journal.jsonl:2" in j.warnings[0]
    j.new_game("dice", {}, (), 0.0)
    j.close()
    assert fold(read_entries(path)[0]).game == "dice"


def test_entries_that_are_json_but_not_journal_entries_are_unreadable(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_text(json.dumps({"kind": "action", "action": {"rolls": [1]}}) + "\n")
    j = Journal(path)
    j.open()
    assert "malformed action" in j.warnings[0]


def test_append_fsyncs_every_entry(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    j = _journal(tmp_path)
    before = len(synced)
    j.action(Action("roll", rolls=(1,)))
    j.action(Action("roll", rolls=(2,)))
    assert len(synced) - before == 2


def test_a_big_journal_moves_to_history_when_a_new_game_starts(tmp_path, monkeypatch):
    from companion.core import journal as journal_module

    monkeypatch.setattr(journal_module, "ROTATE_BYTES", 500)
    j = _journal(tmp_path)
    j.new_game("dice", {}, (), 0.0)
    for i in range(20):
        j.action(Action("roll", rolls=(i % 6 + 1,), at=float(i)))
    j.new_game("dice", {"die": "d4"}, (), 30.0)
    j.action(Action("roll", rolls=(2,), at=31.0))
    j.close()
    archived = list((tmp_path / "history").glob("journal-*.jsonl"))
    assert len(archived) == 1
    assert len(read_entries(archived[0])[0]) == 21
    record = Journal(tmp_path / "journal.jsonl").open()
    assert record.options == {"die": "d4"}
    assert [a.rolls for a in record.actions] == [(2,)]


def test_undo_takes_back_the_last_persons_action_with_the_ticks_after_it(tmp_path):
    j = _journal(tmp_path)
    j.new_game("trapwords", {}, (), 0.0)
    j.action(Action("start", at=1.0))
    j.action(Action("tick", at=2.0), auto=True)
    j.action(Action("wrong", at=2.5))
    j.action(Action("tick", at=3.0), auto=True)
    j.action(Action("tick", at=4.0), auto=True)
    j.undo()
    j.close()
    record = Journal(tmp_path / "journal.jsonl").open()
    assert [a.name for a in record.actions] == ["start", "tick"]


def test_a_restore_is_folded_where_it_happened(tmp_path):
    j = _journal(tmp_path)
    j.new_game("trapwords", {}, (), 0.0)
    j.action(Action("start", at=1.0))
    j.restore()
    j.action(Action("resume", at=9.0))
    j.close()
    record = Journal(tmp_path / "journal.jsonl").open()
    assert [(s.action.name if s.action else None) for s in record.steps] == [
        "start",
        None,
        "resume",
    ]
    assert record.steps[0].by_person and not record.steps[1].by_person


def test_undo_with_only_timer_steps_left_takes_back_nothing():
    from companion.core.journal import Step, undo_steps

    steps = [Step(Action("tick"), auto=True), Step(None)]
    assert undo_steps(steps) is None
    assert len(steps) == 2
