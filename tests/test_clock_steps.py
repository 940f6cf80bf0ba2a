"""A Pi has no real-time clock: it boots at 1970 or at its last shutdown, then NTP steps the
wall clock by years. Codes and phone tokens end after the real time they were given (the
monotonic clock), whatever the wall clock does; a result kept before the clock is known right
is undated, never 1970, and is dated once the clock is right; files moved to history/ never
take one another's name, however often the box restarts within one second."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_phone_pairing import Clocks

from companion.core import journal as journal_module
from companion.core import wallclock
from companion.core.journal import Journal
from companion.core.journal_lines import read_entries
from companion.core.records import Records
from companion.games.base import Action
from companion.web.pairing import TOKEN_SECONDS, Pairing

YEARS = 3 * 365 * 24 * 3600.0


def _pairing(state: Path, clocks: Clocks) -> Pairing:
    return Pairing(
        state,
        clock=lambda: clocks.mono,
        wall=lambda: clocks.wall,
        randbelow=lambda n: 123456,
        token_hex=lambda n: hashlib.sha256(b"phone").hexdigest(),
    )


def _paired(state: Path, clocks: Clocks) -> tuple[Pairing, str]:
    pairing = _pairing(state, clocks)
    pairing.new_code()
    attempt = pairing.attempt("123456")
    assert attempt.outcome == "paired"
    return pairing, attempt.token


def test_a_step_forward_of_the_wall_clock_does_not_end_a_token(tmp_path):
    clocks = Clocks()
    pairing, token = _paired(tmp_path, clocks)
    clocks.wall += YEARS  # NTP answers, a minute after boot
    clocks.tick(60)
    assert pairing.allows(token)
    assert pairing.count() == 1


def test_a_step_back_of_the_wall_clock_does_not_stretch_a_token(tmp_path):
    clocks = Clocks()
    pairing, token = _paired(tmp_path, clocks)
    clocks.wall -= YEARS
    clocks.tick(TOKEN_SECONDS - 1)
    assert pairing.allows(token)
    clocks.tick(2)
    assert not pairing.allows(token)


def test_a_restart_with_the_clock_set_back_keeps_a_token_no_longer_than_its_life(tmp_path):
    clocks = Clocks()
    _, token = _paired(tmp_path, clocks)
    clocks.tick(3600)
    clocks.wall = 0.0  # the next boot, at 1970
    clocks.mono = 5.0
    again = _pairing(tmp_path, clocks)
    assert again.allows(token)
    clocks.tick(TOKEN_SECONDS + 1)
    assert not again.allows(token)


def test_a_restart_keeps_what_was_left_of_a_token(tmp_path):
    clocks = Clocks()
    first, token = _paired(tmp_path, clocks)
    clocks.tick(TOKEN_SECONDS - 100)
    first.keep_time()  # the stop writes the time left (as every SAVE_SECONDS does)
    clocks.mono = 5.0  # the next boot, the wall clock right
    again = _pairing(tmp_path, clocks)
    clocks.tick(99)
    assert again.allows(token)
    clocks.tick(2)
    assert not again.allows(token)


def test_a_code_runs_out_after_its_real_time_whatever_the_wall_clock_does(tmp_path):
    clocks = Clocks()
    pairing = _pairing(tmp_path, clocks)
    pairing.new_code()
    clocks.wall += YEARS
    assert pairing.attempt("123456").outcome == "paired"


# --- the date of a result ----------------------------------------------------------------------


def test_the_day_is_unknown_until_timesyncd_says_the_clock_is_right(tmp_path):
    flag = tmp_path / "timesync" / "synchronized"
    now = lambda: 1_764_000_000.0  # noqa: E731  (November 2025, as a stale fake-hwclock says)
    assert wallclock.today(flag, now) == "2025-11-24"  # no timesyncd here: a set clock is taken
    flag.parent.mkdir()
    assert wallclock.today(flag, now) == ""  # timesyncd runs and has not synchronized
    flag.touch()
    assert wallclock.today(flag, now) == "2025-11-24"
    assert wallclock.today(tmp_path / "none" / "synchronized", lambda: 0.0) == ""  # 1970


@pytest.mark.skipif(shutil.which("faketime") is None, reason="needs libfaketime (faketime)")
def test_the_box_never_dates_a_result_1970():
    """The App's own clock of days, at a boot that left the wall clock at 1970 (libfaketime)."""
    script = (
        "from companion.core.config import Config\n"
        "from companion.sim.box import SimulatedBox\n"
        "box = SimulatedBox(Config(), demo_cards=False)\n"
        "print(repr(box.app.today()))\n"
        "box.close()\n"
    )
    proc = subprocess.run(
        ["faketime", "1970-01-01 00:05:00", sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "''"


def test_a_result_kept_undated_gets_the_day_once_it_is_known(tmp_path):
    records = Records(tmp_path / "records.json")
    report = {"board": "solo", "unit": "rolls", "better": "lower", "score": 9, "won": True}
    first = records.sync("dice#1", "dice", report, "")
    assert first.date == "" and first.shown_date == "undated"
    records.sync("dice#2", "dice", {**report, "score": 7}, "2026-11-25")
    again = Records(tmp_path / "records.json")
    assert {r.key: r.date for r in again.results} == {
        "dice#1": "2026-11-25",
        "dice#2": "2026-11-25",
    }


# --- history/ ----------------------------------------------------------------------------------


def _game_of_rolls(j: Journal, at: float) -> None:
    j.new_game("dice", {}, (), at)
    for i in range(20):
        j.action(Action("roll", rolls=(i % 6 + 1,), at=at + i).to_json())


def test_moves_to_history_within_one_second_across_restarts_never_overwrite(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "ROTATE_BYTES", 500)
    monkeypatch.setattr(journal_module.time, "strftime", lambda fmt, *a: "19700101T000000")
    path = tmp_path / "journal.jsonl"
    for start in range(3):  # three starts of the box in the same second of a clock at 1970
        j = Journal(path)
        j.open()
        _game_of_rolls(j, 100.0 * start)
        j.close()
    j = Journal(path)
    j.open()
    j.new_game("dice", {}, (), 400.0)  # moves the last finished game too
    j.close()
    kept = sorted((tmp_path / "history").iterdir())
    assert len(kept) == 3, kept
    rolls = sum(e["kind"] == "action" for f in kept for e in read_entries(f)[0])
    assert rolls == 60  # every roll of the three finished games
