"""Issue 48, point 2: every finished game kept as a play (core/plays.py, app/seating.py), with
its options, day, length, seats (player, score, place), winners and the game's own detail; kept
through power cuts, a full or read-only card, an undo past the end and an update, as the
records are."""

from __future__ import annotations

import json
import logging
import subprocess
from pathlib import Path

import pytest
from storage_support import empty, fill, small_disk

from companion.core import formats, plays, wholefile
from companion.core.config import Config, StateConfig
from companion.core.plays import Plays
from companion.errors import DataError
from companion.replay import Replay, run_script
from companion.sim.box import SimulatedBox

CLAIM = "do claim player=2 hostages=red,green,blue\n"
SCRIPTS = Path(__file__).parent / "scripts"


def _kept(state: Path) -> list[dict]:
    return json.loads((state / "plays.json").read_text())["plays"]


def _play(key: str = "g#1", date: str = "2026-11-29", winners=(1,)) -> dict:
    report = {
        "seats": [{"seat": 1, "score": 5, "place": 1}, {"seat": 2, "score": 3, "place": 2}],
        "winners": list(winners),
        "detail": {"rounds": [{"1": 5, "2": 3}]},
    }
    return plays.make(key, "deathtrap-dungeon", {"players": 2}, report, ["Ann"], date, 61.23)


# --- the file ----------------------------------------------------------------------------------


def test_a_play_is_kept_with_everything_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "plays.json"
    added = Plays(path).sync("g#1", _play(), "2026-11-29")
    assert added is not None
    (play,) = Plays(path).plays
    assert play == {
        "key": "g#1",
        "game": "deathtrap-dungeon",
        "options": {"players": 2},
        "date": "2026-11-29",
        "seconds": 61.2,
        "seats": [
            {"seat": 1, "player": "Ann", "score": 5, "place": 1},
            {"seat": 2, "player": None, "score": 3, "place": 2},
        ],
        "winners": [1],
        "detail": {"rounds": [{"1": 5, "2": 3}]},
    }
    assert json.loads(path.read_text())["version"] == plays.Plays.VERSION


def test_a_play_kept_again_keeps_its_day_and_length_and_is_not_new(tmp_path: Path) -> None:
    kept = Plays(tmp_path / "plays.json")
    kept.sync("g#1", _play(date=""), "")
    again = {**_play(winners=(2,)), "seconds": 999.0}
    assert kept.sync("g#1", again, "") is None  # changed, not new
    assert kept.get("g#1")["winners"] == [2] and kept.get("g#1")["seconds"] == 61.2


def test_undated_plays_are_dated_once_the_clock_is_known(tmp_path: Path) -> None:
    path = tmp_path / "plays.json"
    Plays(path).sync("g#1", _play(date=""), "")
    assert Plays(path).get("g#1")["date"] == ""
    Plays(path).sync("g#2", None, "2026-12-01")  # any move once the day is known
    assert Plays(path).get("g#1")["date"] == "2026-12-01"


def test_a_play_withdrawn_is_gone_and_a_move_in_another_game_writes_nothing(tmp_path: Path):
    path = tmp_path / "plays.json"
    kept = Plays(path)
    kept.sync("g#1", _play(), "2026-11-29")
    stamp = path.stat().st_mtime_ns
    assert kept.sync("g#2", None, "2026-11-29") is None
    assert path.stat().st_mtime_ns == stamp
    kept.sync("g#1", None, "2026-11-29")
    assert Plays(path).plays == []


def test_a_play_not_written_leaves_memory_as_it_was(tmp_path: Path, monkeypatch) -> None:
    kept = Plays(tmp_path / "plays.json")
    kept.sync("g#1", _play(), "2026-11-29")

    def refused(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(wholefile, "replace_whole", refused)
    with pytest.raises(OSError):
        kept.sync("g#2", _play("g#2"), "2026-11-29")
    assert list(kept.by_key) == ["g#1"]


def test_rename_merge_and_forget_reach_the_plays(tmp_path: Path) -> None:
    path = tmp_path / "plays.json"
    kept = Plays(path)
    kept.sync("g#1", _play(), "2026-11-29")
    assert kept.rename("Ann", "Anne") == 1
    assert Plays(path).get("g#1")["seats"][0]["player"] == "Anne"
    kept.rename("Anne", None)  # forgotten: the seat and its score stay
    seat = Plays(path).get("g#1")["seats"][0]
    assert seat == {"seat": 1, "player": None, "score": 5, "place": 1}


def test_a_damaged_file_is_set_aside_and_the_box_starts_with_no_plays(tmp_path: Path) -> None:
    path = tmp_path / "plays.json"
    path.write_text('{"version": 1, "plays": [{"key": 3}]}')
    with pytest.raises(DataError, match="plays item 1 is malformed"):
        Plays(path)
    kept, problem = Plays.open_or_set_aside(path)
    assert (kept.plays == [] and "set aside" in problem) or "moved" in problem
    assert not path.exists()


def test_a_newer_releases_file_is_left_as_it_is_and_never_written_over(tmp_path: Path) -> None:
    """An update rolled back meets the newer release's plays: refused whole, kept."""
    path = tmp_path / "plays.json"
    text = '{"version": 2, "plays": [], "more": 1}\n'
    path.write_text(text)
    kept, problem = Plays.open_or_set_aside(path)
    assert "format 2" in problem
    with pytest.raises(formats.Refused):
        kept.sync("g#1", _play(), "2026-11-29")
    assert path.read_text() == text


# --- the box -----------------------------------------------------------------------------------


def test_every_game_with_seats_keeps_its_play_and_the_dice_tool_none(tmp_path: Path) -> None:
    names = (
        "cover-your-asps-two-players",
        "cover-your-asps-solo-won",
        "hostage-trap-three-players",
        "trapwords-tiebreak",
        "trap-attack-solo-to-boat",
    )
    for name in names:
        state = tmp_path / name
        run_script((SCRIPTS / f"{name}.txt").read_text(), state_dir=state)
        (play,) = _kept(state)
        assert play["date"] == "2000-01-01" and play["seconds"] >= 0
        assert play["winners"], name
        assert play["detail"], name
    run_script("game dice\npress green\n", state_dir=tmp_path / "dice")
    assert not (tmp_path / "dice" / "plays.json").exists()


def test_game_detail_and_places_for_a_tie_and_the_solo_game(tmp_path: Path) -> None:
    run_script((SCRIPTS / "deathtrap-dungeon-six-players.txt").read_text(), state_dir=tmp_path)
    (play,) = _kept(tmp_path)
    assert play["winners"] == [3, 4]
    assert [s["place"] for s in play["seats"]] == [5, 6, 1, 1, 3, 3]
    assert len(play["detail"]["rounds"]) == 4 and play["options"]["players"] == 6
    run_script((SCRIPTS / "trapwords-tiebreak.txt").read_text(), state_dir=tmp_path / "tw")
    (words,) = _kept(tmp_path / "tw")
    assert [s["seat"] for s in words["seats"]] == ["A", "B"] and words["winners"] == ["A"]


def test_a_cut_between_the_journal_and_the_plays_keeps_the_play_at_the_next_start(
    tmp_path: Path, monkeypatch, caplog
) -> None:
    def cut(self):  # the power goes before plays.json is written
        raise OSError(5, "power cut")

    monkeypatch.setattr(Plays, "save", cut)
    with caplog.at_level(logging.ERROR):
        out = run_script("game hostage-trap players=3\nnames Ann\n" + CLAIM, state_dir=tmp_path)
    assert "plays" not in out[-1] and "Records not saved" in " ".join(out[-1]["screen"])
    monkeypatch.undo()
    assert not (tmp_path / "plays.json").exists()
    run_script("wait 0\n", state_dir=tmp_path)  # the next start
    (play,) = _kept(tmp_path)
    assert play["winners"] == [2] and play["seats"][0]["player"] == "Ann"


def _box(state: Path) -> tuple[SimulatedBox, Replay]:
    box = SimulatedBox(Config(state=StateConfig(dir=str(state))), seed=0)
    box.app.start()
    box.loop.drain()
    return box, Replay(box)


def _lines(replay: Replay, text: str) -> list[dict]:
    return [replay.line(i, line.split()) for i, line in enumerate(text.splitlines(), start=1)]


def test_a_full_card_at_the_end_loses_no_play(tmp_path: Path, caplog) -> None:
    with small_disk(tmp_path / "state", "1024k") as state:
        box, replay = _box(state)
        try:
            _lines(replay, "game hostage-trap players=3\nnames Ann Bob")
            fill(state)
            with caplog.at_level(logging.INFO):
                out = _lines(replay, CLAIM.strip())
            assert out[-1]["state"]["winner"] == 2  # play went on
            assert not (state / "plays.json").exists()  # not kept yet: the card is full
            assert "Traceback" not in caplog.text
            empty(state)
            _lines(replay, "wait 5")
        finally:
            box.close()
        run_script("wait 0\n", config=Config(state=StateConfig(dir=str(state))))
        (play,) = _kept(state)
        assert [s["player"] for s in play["seats"]] == ["Ann", "Bob", None]


def _read_only(state: Path) -> None:
    for args in (["--bind", str(state), str(state)], ["-o", "remount,bind,ro", str(state)]):
        proc = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            pytest.skip(f"cannot mount read-only here (needs root): {proc.stderr.strip()}")


def test_a_read_only_card_at_the_end_loses_no_play(tmp_path: Path, caplog) -> None:
    state = tmp_path / "state"
    state.mkdir()
    box, replay = _box(state)
    try:
        _lines(replay, "game hostage-trap players=3\nnames Ann Bob")
        _read_only(state)
        try:
            with caplog.at_level(logging.INFO):
                out = _lines(replay, CLAIM.strip())
            assert out[-1]["state"]["winner"] == 2
            assert "Records not saved" in " ".join(out[-1]["screen"])
            assert not (state / "plays.json").exists()
        finally:
            subprocess.run(["umount", str(state)], check=False, capture_output=True)
    finally:
        box.close()
    run_script("wait 0\n", state_dir=state)
    (play,) = _kept(state)
    assert play["winners"] == [2]


def test_records_count_plays_wins_rates_runs_and_head_to_head() -> None:
    from companion.core import play_stats

    def play(key, winners, *seats):
        cells = [{"seat": i, "player": n, "score": s, "place": None}
                 for i, (n, s) in enumerate(seats, start=1)]  # fmt: skip
        return {"key": key, "game": "deathtrap-dungeon", "date": f"2026-11-0{key}",
                "seats": cells, "winners": winners}  # fmt: skip

    plays = [
        play(1, [1], ("Ann", 12), ("Bob", 9)),
        play(2, [1], ("Ann", 10), ("Bob", 11)),
        play(3, [2], ("Ann", 5), ("Bob", 14), (None, 3)),
    ]
    out = play_stats.records(plays, "deathtrap-dungeon")
    ann, bob = out["players"]
    assert ann == {"player": "Ann", "plays": 3, "wins": 2, "rate": 0.667, "best": 12,
                   "average": 9.0, "last": "2026-11-03", "streak": 0, "best_streak": 2}  # fmt: skip
    assert bob["wins"] == 1 and bob["streak"] == 1
    assert out["games"][0]["most_wins"] == {"player": "Ann", "wins": 2}
    assert out["games"][0]["high"]["score"] == 14
    assert out["spread"] == {"low": 3, "median": 10, "high": 14}
    assert [p[2] for p in out["series"]["Bob"]] == [9, 11, 14]
    assert play_stats.head_to_head(plays, "Ann", "Bob") == {
        "a": "Ann", "b": "Bob", "plays": 3, "wins_a": 2, "wins_b": 1,
    }  # fmt: skip
