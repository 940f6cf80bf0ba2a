"""Issue 48, point 4: the plays exported (companion/plays_export.py, `trap-companion records
export`), and the players renamed, merged and forgotten from a shell; used as a user would."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.replay import run_script

SCRIPTS = Path(__file__).parent / "scripts"
CLAIM = "do claim player=2 hostages=red,green,blue\n"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "records", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def state(tmp_path_factory) -> Path:
    """A box that kept four plays, some seats named."""
    state = tmp_path_factory.mktemp("state")
    for name in ("deathtrap-dungeon-named-players", "trap-attack-solo-to-boat"):
        run_script((SCRIPTS / f"{name}.txt").read_text(), state_dir=state)
    run_script("game hostage-trap players=3\nnames Bob Ann Cy\n" + CLAIM, state_dir=state)
    run_script((SCRIPTS / "trapwords-tiebreak.txt").read_text(), state_dir=state)
    return state


def test_the_bgstats_file_has_the_fields_bg_stats_reads(state: Path) -> None:
    proc = _cli("export", "--format", "bgstats", "--state-dir", str(state))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert {"games", "players", "locations", "plays"} <= data.keys()
    assert len(data["locations"]) == 1 and data["locations"][0]["name"] == "Trap Companion"
    games = {g["id"]: g for g in data["games"]}
    players = {p["id"]: p for p in data["players"]}
    assert {g["name"] for g in games.values()} == {
        "Deathtrap Dungeon", "Trap Attack", "Hostage Trap!", "Trapwords",
    }  # fmt: skip
    assert len(data["plays"]) == 4
    for play in data["plays"]:
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
        assert play["gameRefId"] in games and play["locationRefId"] == 1
        assert isinstance(play["uuid"], str) and isinstance(play["durationMin"], int)
        orders = [s["seatOrder"] for s in play["playerScores"]]
        assert orders == list(range(1, len(orders) + 1))
        for score in play["playerScores"]:
            assert score["playerRefId"] in players
            assert isinstance(score["score"], str) and isinstance(score["winner"], bool)
    deathtrap = next(p for p in data["plays"] if games[p["gameRefId"]]["name"].startswith("Death"))
    named = [(players[s["playerRefId"]]["name"], s["score"], s["winner"], s["rank"])
             for s in deathtrap["playerScores"]]  # fmt: skip
    assert named == [
        ("Ann", "12", True, 1), ("Bob", "11", False, 2),
        ("Anonymous", "10", False, 3), ("Dee", "7", False, 4),
    ]  # fmt: skip
    assert players[deathtrap["playerScores"][2]["playerRefId"]]["isAnonymous"] is True
    # one person, one player across games
    assert [p["name"] for p in data["players"]].count("Ann") == 1


def test_exporting_again_gives_the_same_uuids(state: Path) -> None:
    a = _cli("export", "--format", "bgstats", "--state-dir", str(state)).stdout
    b = _cli("export", "--format", "bgstats", "--state-dir", str(state)).stdout
    assert a == b


def test_the_csv_has_a_row_per_seat(state: Path, tmp_path: Path) -> None:
    out = tmp_path / "plays.csv"
    proc = _cli("export", "--state-dir", str(state), "-o", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 4 + 2 + 3 + 2
    hostage = [r for r in rows if r["game"] == "hostage-trap"]
    assert [(r["player"], r["winner"], r["place"]) for r in hostage] == [
        ("Bob", "no", "2"), ("Ann", "yes", "1"), ("Cy", "no", "2"),
    ]  # fmt: skip


def test_undated_plays_are_left_out_of_bgstats_and_counted(tmp_path: Path) -> None:
    run_script("game hostage-trap players=3\n" + CLAIM, state_dir=tmp_path)
    path = tmp_path / "plays.json"
    data = json.loads(path.read_text())
    data["plays"][0]["date"] = ""
    path.write_text(json.dumps(data))
    proc = _cli("export", "--format", "bgstats", "--state-dir", str(tmp_path))
    assert proc.returncode == 0 and json.loads(proc.stdout)["plays"] == []
    assert "1 undated play(s) left out" in proc.stderr
    assert ",hostage-trap," in _cli("export", "--state-dir", str(tmp_path)).stdout


def test_a_bad_format_exits_2_naming_the_choices(tmp_path: Path) -> None:
    proc = _cli("export", "--format", "xml", "--state-dir", str(tmp_path))
    assert proc.returncode == 2 and "csv" in proc.stderr and "bgstats" in proc.stderr


def test_rename_merge_and_forget_from_a_shell(tmp_path: Path) -> None:
    run_script("game hostage-trap players=3\nnames Bob Ann Anne\n" + CLAIM, state_dir=tmp_path)
    where = ("--state-dir", str(tmp_path))
    assert _cli("rename", "Bob", "Robert", *where).returncode == 0
    merged = _cli("merge", "Anne", "Ann", *where)
    assert merged.returncode == 0 and "1 play(s) changed" in merged.stdout
    assert _cli("players", *where).stdout.split("\n")[:2] == ["Ann", "Robert"]
    refused = _cli("merge", "Robert", "Zed", *where)
    assert refused.returncode == 2 and "no player is called 'Zed'" in refused.stderr
    assert _cli("forget", "Robert", *where).returncode == 0
    (play,) = json.loads((tmp_path / "plays.json").read_text())["plays"]
    assert [s["player"] for s in play["seats"]] == [None, "Ann", "Ann"]
    assert play["seats"][0]["place"] == 2  # the seat stays, unnamed
