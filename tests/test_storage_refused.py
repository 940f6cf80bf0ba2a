"""A state directory that is there but refuses writes (a worn card turned read-only, a full
one, one the daemon's user may not write) is no reason not to start: the box reaches READY=1,
says the storage's condition in STATUS and once in its log, and plays in memory. Only a state
dir that cannot exist at all stops it (exit 73, or 78 where the config names it)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from storage_support import fill, remount, small_disk
from test_damaged_state import box_config, run_until_ready

GAME = '{"v":1,"seq":1,"kind":"game","game":"dice","options":{},"rolls":[],"at":0,"id":"ab"}\n'
# Root that obeys file modes as any user does (without CAP_DAC_OVERRIDE): the box's user
# on a state dir it may only read.
AS_A_USER = ("setpriv", "--bounding-set=-dac_override,-dac_read_search")


def _state_with_a_game(state: Path) -> None:
    (state / "journal.jsonl").write_text(GAME)


def _said(log: str, words: str) -> int:
    """Lines of the log that tell the condition (READY's own line only echoes STATUS)."""
    return sum(words in line and "ready:" not in line for line in log.splitlines())


def test_the_box_starts_on_a_read_only_state_dir_and_says_so(tmp_path):
    config = box_config(tmp_path)
    with small_disk(tmp_path / "state") as state:
        _state_with_a_game(state)
        remount(state, read_only=True)
        ready, log = run_until_ready(tmp_path, config)
        assert "storage read-only" in ready
        assert "Dice" in ready  # the game in play came back
        assert _said(log, "storage read-only") == 1, log
        assert "Traceback" not in log


def test_the_box_starts_on_a_full_state_dir_and_says_so(tmp_path):
    config = box_config(tmp_path)
    with small_disk(tmp_path / "state", "64k") as state:
        _state_with_a_game(state)
        fill(state)
        ready, log = run_until_ready(tmp_path, config)
        assert "storage full: moves not saved" in ready
        assert _said(log, "storage full") == 1, log
        assert "Traceback" not in log


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to take CAP_DAC_OVERRIDE away",
)
def test_the_box_starts_on_a_state_dir_its_user_may_not_write(tmp_path):
    config = box_config(tmp_path)
    _state_with_a_game(tmp_path / "state")
    (tmp_path / "state").chmod(0o555)
    try:
        ready, log = run_until_ready(tmp_path, config, prefix=AS_A_USER)
    finally:
        (tmp_path / "state").chmod(0o755)
    assert "storage read-only" in ready
    assert "Dice" in ready
    assert "Traceback" not in log
