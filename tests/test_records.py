"""The records of finished games (companion/core/records.py) and how the app keeps them: dated by
the app, surviving restarts, replaced after an undo and a new end, withdrawn by an undo past
the end, a damaged file set aside; and replay's output stays the same from run to run."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from test_screen_support import uncut

from companion.core import records as records_module
from companion.core.config import Config
from companion.core.records import Records
from companion.replay import Replay, run_script, script_lines
from companion.sim.box import SimulatedBox
from companion.ui import records as record_pages

WON = {"board": "solo", "won": True, "score": 12, "better": "lower", "unit": "rolls"}


def _won(score: int) -> dict:
    return {**WON, "score": score}


def test_results_survive_reopening_best_first_with_their_dates(tmp_path: Path) -> None:
    path = tmp_path / "records.json"
    records = Records(path)
    records.sync("a", "g", _won(20), "2026-01-02")
    records.sync("b", "g", _won(15), "2026-01-03")
    records.sync("c", "g", {**WON, "won": False}, "2026-01-04")
    again = Records(path)
    assert [(r.score, r.date) for r in again.best("g", "solo")] == [
        (15, "2026-01-03"),
        (20, "2026-01-02"),
    ]
    assert again.tally("g", "solo") == (3, 2)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_higher_is_better_boards_rank_the_other_way(tmp_path: Path) -> None:
    records = Records(tmp_path / "r.json")
    for key, score in (("a", 3), ("b", 9)):
        records.sync(key, "g", {**_won(score), "better": "higher", "unit": "points"}, "d")
    assert [r.score for r in records.best("g", "solo")] == [9, 3]


def test_the_same_session_replaces_its_result_and_withdraws_it(tmp_path: Path) -> None:
    records = Records(tmp_path / "r.json")
    assert records.sync("s", "g", _won(9), "2026-01-01") is not None
    assert records.sync("s", "g", _won(9), "2026-02-02") is None  # a restart: nothing new
    assert records.sync("s", "g", _won(7), "2026-01-01").score == 7
    assert [r.score for r in Records(tmp_path / "r.json").of("g", "solo")] == [7]
    records.sync("s", "g", None, "2026-01-01")
    assert Records(tmp_path / "r.json").of("g", "solo") == []


def test_a_damaged_file_is_set_aside_with_a_notice(tmp_path: Path) -> None:
    path = tmp_path / "records.json"
    path.write_text('{"version": 1, "results": [{"key": "a"}]}')
    records, problem = Records.open_or_set_aside(path)
    assert "result 1 is malformed" in problem
    assert records.results == []
    assert not path.exists()
    assert len(list(tmp_path.glob("records.json.unreadable-*"))) == 1
    path.write_text("not json")
    _, problem = Records.open_or_set_aside(path)
    assert "records unreadable" in problem
    assert len(list(tmp_path.glob("records.json.unreadable-*"))) == 2


def test_old_results_go_past_the_limit_but_never_the_best(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records_module, "KEEP", 4)
    monkeypatch.setattr(records_module, "SHOWN_BEST", 2)
    records = Records(tmp_path / "r.json")
    for i, score in enumerate((30, 5, 40, 50, 60, 70)):
        records.sync(f"k{i}", "g", _won(score), f"2026-01-0{i + 1}")
    kept = [r.score for r in records.of("g", "solo")]
    assert kept == [30, 5, 60, 70]  # 40 and 50 were the oldest beyond the two best
    assert len(Records(tmp_path / "r.json").of("g", "solo")) == 4


@pytest.mark.parametrize("bad", [{"board": "solo"}, {**WON, "score": "9"}, {**WON, "better": "up"}])
def test_a_malformed_report_from_a_game_is_a_bug(tmp_path: Path, bad: dict) -> None:
    with pytest.raises(ValueError):
        Records(tmp_path / "r.json").sync("k", "g", bad, "d")


# --- through the app ---------------------------------------------------------------------------

SOLO_WIN = "game cover-your-asps players=1\ndice 3 5\npress green\npress ok\npress red\npress ok\n"


def _box(state_dir: Path, day: str) -> SimulatedBox:
    """A started box (its reader runs until ``close``)."""
    box = SimulatedBox(Config(), state_dir=state_dir, today=lambda: day)
    box.app.start()
    box.loop.drain()
    return box


def _play(box: SimulatedBox, text: str) -> None:
    replay = Replay(box)
    for _, words in script_lines(text):
        replay.directive(words)
        box.loop.drain()


def test_a_solo_win_is_kept_with_the_date_across_restarts_and_shown(tmp_path: Path) -> None:
    box = _box(tmp_path, "2026-11-20")
    try:
        _play(box, SOLO_WIN)
        screen = box.app.current()[0]
        assert screen.lines == ("Won: 1 roll", "First win!", "1 won of 1")
    finally:
        box.close()
    saved = json.loads((tmp_path / "records.json").read_text())
    assert [(r["score"], r["date"], r["won"]) for r in saved["results"]] == [
        (1, "2026-11-20", True)
    ]
    box = _box(tmp_path, "2026-11-21")
    try:
        assert len(box.app.records.results) == 1  # resuming the finished game adds nothing
        _play(box, "dice 1 1\n" + SOLO_WIN.replace("dice 3 5\n", "dice 2 2\npress green\n"))
        assert box.app.current()[0].lines[:2] == ("Won: 2 rolls", "Best: 1 roll (2.)")
        _play(box, "press red\npress back\n")  # the pages closed, the game menu
        menu = box.app.menu
        assert "Records" in menu.items
    finally:
        box.close()
    dates = [r["date"] for r in json.loads((tmp_path / "records.json").read_text())["results"]]
    assert dates == ["2026-11-20", "2026-11-21"]


def test_an_undo_past_the_end_withdraws_the_result(tmp_path: Path) -> None:
    box = _box(tmp_path, "2026-11-20")
    try:
        _play(box, SOLO_WIN + "press ok\nhold back 1.5\npress green\n")
        assert box.app.session.state.result is None
    finally:
        box.close()
    assert json.loads((tmp_path / "records.json").read_text())["results"] == []


def test_replay_dates_records_from_its_own_clock_so_runs_agree() -> None:
    first = run_script(SOLO_WIN)
    assert first == run_script(SOLO_WIN)
    assert "Won: 1 roll" in first[-1]["screen"]


def test_the_record_pages_fit_whole(tmp_path: Path) -> None:
    records = Records(tmp_path / "r.json")
    for i in range(12):
        records.sync(f"k{i}", "cover-your-asps", _won(100 + i), "2026-11-20")
    latest = records.sync("late", "cover-your-asps", _won(150), "2026-12-31")
    book = record_pages.pages("Cover Your Asps", records, "cover-your-asps", latest)
    assert book.screens[0].lines == ("Won: 150 rolls", "Best: 100 rolls (13.)", "13 won of 13")
    assert book.screens[1].title == "Best solo games"
    assert book.screens[1].lines[0] == "100 rolls  2026-11-20"
    for screen in book.screens:
        uncut(screen)


def test_games_started_at_the_same_moment_keep_a_result_each(tmp_path: Path) -> None:
    """Every game of a replay starts at the same clock time, as games may after a reboot that
    set the clock back: each finished game still keeps its own result, run after run."""
    state = tmp_path / "state"
    run_script(SOLO_WIN * 6, state_dir=state)
    run_script(SOLO_WIN * 5, state_dir=state)
    saved = json.loads((state / "records.json").read_text())["results"]
    assert len(saved) == 11
    assert len({r["key"] for r in saved}) == 11


def test_a_journal_from_before_game_ids_keeps_its_result_under_its_start(tmp_path: Path) -> None:
    state = tmp_path / "state"
    run_script(SOLO_WIN, state_dir=state)
    journal = state / "journal.jsonl"
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    del lines[0]["id"]
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (state / "records.json").unlink()
    run_script("wait 0\n", state_dir=state)  # the resumed, finished game is kept again
    (result,) = json.loads((state / "records.json").read_text())["results"]
    assert result["key"] == "cover-your-asps@0.000000"
