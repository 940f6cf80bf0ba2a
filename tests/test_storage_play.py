"""While the card is full or read-only, play goes on and the table knows: every screen's title
says it, STATUS says it, the log says it once; a timed turn keeps running; and the moves made
meanwhile are written as soon as the storage takes them again (retried on the loop's clock),
when the notice goes by itself. Nothing shown on screen is lost."""

from __future__ import annotations

import logging
import os
import subprocess

import pytest
from storage_support import empty, fill, small_disk

from companion.core import storage
from companion.core.config import Config, StateConfig
from companion.core.journal import Journal
from companion.replay import Replay, run_script
from companion.sim.box import SimulatedBox

TIMED = ["game", "hostage-trap", "players=4", "turn_seconds=30"]
# A dice game played before, its line padded to fill a whole 4 KiB block: the next byte written
# needs a block of its own, which a full card has not.
BEFORE = '{"v":1,"seq":1,"kind":"game","game":"dice","options":{},"rolls":[],"at":0,"id":"ab"}'
BLOCK = 4096


def _box(state) -> tuple[SimulatedBox, Replay]:
    box = SimulatedBox(Config(state=StateConfig(dir=str(state))), seed=0)
    box.app.start()
    box.loop.drain()
    return box, Replay(box)


def _journal_turns(state) -> int:
    journal = Journal(state / "journal.jsonl")
    record = journal.open()
    journal.close()
    return sum(a["name"] == "timeout" for a in record.actions)


def _plays_on(state, caplog, refuse, notice, title) -> tuple[SimulatedBox, Replay]:
    """A new timed game and three turns that run out while the storage refuses writes."""
    (state / "journal.jsonl").write_text(BEFORE.ljust(BLOCK - 1) + "\n")
    box, replay = _box(state)
    refuse(state)
    with caplog.at_level(logging.INFO):
        replay.line(1, TIMED)
        out = replay.line(2, ["wait", "95"])
    assert out["state"]["turn_no"] == 4  # the turn timer never stuck
    assert out["screen"][0] == title
    assert notice in box.app.status_line()
    said = [r for r in caplog.records if notice in r.getMessage()]
    assert len(said) == 1, [r.getMessage() for r in caplog.records]
    assert "Traceback" not in caplog.text
    return box, replay


def test_a_full_card_plays_on_and_writes_the_moves_once_space_is_back(tmp_path, caplog):
    notice = "storage full: moves not saved"
    with small_disk(tmp_path / "state", "1024k") as state:
        box, replay = _plays_on(state, caplog, fill, notice, "Storage full")
        try:
            empty(state)
            out = replay.line(3, ["wait", str(storage.RETRY_SECONDS + 1)])
            assert out["screen"][0] != "Storage full"
            assert notice not in box.app.status_line()
            assert box.app.journal.condition == storage.OK
        finally:
            box.close()
        assert _journal_turns(state) == 3  # every turn shown was written
        again = run_script("wait 0\n", config=Config(state=StateConfig(dir=str(state))))
        assert again[0]["state"]["turn_no"] == 4


def _turn_read_only(state) -> None:
    """What ext4 does on an error (errors=remount-ro): the card turns read-only under the
    box, its journal open for writing."""
    device = os.path.basename(os.path.realpath(_source(state)))
    trigger = f"/sys/fs/ext4/{device}/trigger_fs_error"
    if not os.path.exists(trigger):
        pytest.skip("this kernel cannot make ext4 turn read-only on demand (trigger_fs_error)")
    with open(trigger, "w") as f:
        f.write("1\n")


def _source(path) -> str:
    return subprocess.run(
        ["findmnt", "-n", "-o", "SOURCE", str(path)], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_card_that_turns_read_only_under_the_box_plays_on_and_says_so(tmp_path, caplog):
    with small_disk(tmp_path / "state", "2048k", kind="ext4") as state:
        box, _ = _plays_on(state, caplog, _turn_read_only, "storage read-only", "Read-only")
        box.close()


def test_a_card_enrolled_on_a_full_card_is_refused_with_a_notice_not_a_traceback(tmp_path, caplog):
    run = ["game trap-attack", "press back", "press up", "press ok", "press down", "press ok"]
    with small_disk(tmp_path / "state", "1024k") as state:
        box, replay = _box(state)
        try:
            for number, line in enumerate(run, start=1):
                replay.line(number, line.split())
            fill(state)
            with caplog.at_level(logging.INFO):
                out = replay.line(7, ["tap", "04A1B2C3"])
            assert out["screen"][1:3] == ["Storage full", "card not enrolled"]
            assert out["sounds"] == ["error"]
            assert not [r for r in caplog.records if r.exc_info], "a traceback"
            assert box.app.registry.lookup("0004A1B2C3") is None  # not kept, not enrolled
        finally:
            box.close()
