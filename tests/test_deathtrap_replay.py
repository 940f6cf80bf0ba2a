"""Deathtrap Dungeon through the replay contract: the scripts in
tests/scripts/deathtrap-dungeon-*.txt (a full game for four and one for six) run on the daemon's
own code (simulated buttons, reader, display, journal) on a virtual clock."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.errors import UsageError
from companion.replay import run_script

SCRIPTS = Path(__file__).parent / "scripts"
EXAMPLES = Path(__file__).parent.parent / "examples"
CONTRACT_KEYS = {
    "players", "round", "phase", "turn", "leader", "table", "passed", "finished",
    "titles", "points", "history", "exchanges", "winner",
}  # fmt: skip


@functools.cache
def run(name: str) -> dict[int, dict[str, Any]]:
    text = (SCRIPTS / f"deathtrap-dungeon-{name}.txt").read_text()
    return {out["line"]: out for out in run_script(text)}


def test_every_script_prints_the_contract_keys() -> None:
    scripts = sorted(SCRIPTS.glob("deathtrap-dungeon-*.txt"))
    assert len(scripts) >= 2
    for script in scripts:
        for out in run(script.stem.removeprefix("deathtrap-dungeon-")).values():
            assert out["state"].keys() >= CONTRACT_KEYS, script.name


def test_the_examples_are_the_tested_scripts() -> None:
    for script in SCRIPTS.glob("deathtrap-dungeon-*.txt"):
        assert (EXAMPLES / script.name).read_text() == script.read_text()


def test_four_players_tapped_and_button_plays_and_the_killing_machine() -> None:
    out = run("four-players")
    assert out[7]["state"]["turn"] == 3  # the pig's holder was seat 2 (picked with buttons)
    assert out[10]["screen"][2] == "Play? 1 x Orc +1 wild"
    assert out[11]["state"]["table"] == {"n": 2, "value": 2, "by": 3, "wild": 1, "set": "orc"}
    assert out[21]["state"]["table"]["value"] == 7  # two Trolls entered with the buttons
    assert out[23]["rejected"] == "A set worth more than 7 is needed"
    assert out[23]["sounds"] == ["error"] and out[23]["leds"]["led"] == [1.0, 0.0, 0.0]
    assert out[32]["screen"][2] == "S3 won, is out: S4 leads" and out[32]["state"]["turn"] == 4
    killed = out[40]["state"]
    assert killed["table"] is None and killed["turn"] == 2 and killed["leader"] == 2
    assert out[48]["state"]["finished"] == [3, 2, 1, 4]
    assert out[48]["state"]["history"] == [{"1": 2, "2": 3, "3": 4, "4": 1}]
    assert out[48]["state"]["exchanges"] == [
        {"from": 4, "to": 3, "cards": 2, "highest": True},
        {"from": 3, "to": 4, "cards": 2, "highest": False},
        {"from": 1, "to": 2, "cards": 1, "highest": True},
        {"from": 2, "to": 1, "cards": 1, "highest": False},
    ]
    assert out[52]["screen"][:4] == [
        "Swap 1/2, in secret",
        "Seat 4 gives seat 3",
        "2 highest, no specials;",
        "seat 3 gives back any 2",
    ]


def test_four_players_undo_takes_back_a_pass_and_the_game_ends_after_four_rounds() -> None:
    out = run("four-players")
    assert out[85]["state"]["passed"] == [1]
    assert out[87]["state"]["passed"] == [] and out[87]["state"]["turn"] == 1
    last = out[max(out)]["state"]
    assert last["phase"] == "over" and len(last["history"]) == 4
    assert last["points"] == {"1": 12, "2": 11, "3": 10, "4": 7} and last["winner"] == [1]


def test_six_players_pig_choose_refusals_and_a_shared_win() -> None:
    out = run("six-players")
    assert out[13]["state"]["turn"] == 1 and out[13]["state"]["leader"] == 1
    assert out[15]["rejected"] == "The leader puts cards down; no passing"
    assert out[19]["state"]["table"] == {"n": 2, "value": 0, "by": 1, "wild": 2, "set": None}
    assert out[23]["rejected"] == "A set worth more than 1 is needed"
    assert out[34]["state"]["finished"] == [5] and out[34]["state"]["turn"] == 6
    last = out[max(out)]["state"]
    assert last["winner"] == [3, 4]
    assert last["titles"] == {"4": "big-hero", "5": "hero", "1": "wimp", "2": "total-wimp"}
    over = next(o for o in out.values() if o["state"]["phase"] == "over")
    assert over["screen"][1] == "Seats 3, 4 win!"


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("do play n=2", "value"),
        ("do play n=two value=3", "n="),
        ("do pig player=9", "player=9"),
        ("do bid n=2", "bid"),
    ],
)
def test_a_malformed_action_is_a_script_error_naming_the_line(line: str, word: str) -> None:
    text = f"game deathtrap-dungeon\ndo pig player=1\n{line}\n"
    with pytest.raises(UsageError, match=rf"line 3.*{word}"):
        list(run_script(text))


def test_a_bad_option_exits_2_naming_it() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "replay",
            "-",
            "--game",
            "deathtrap-dungeon",
            "--set",
            "players=9",
        ],
        input="",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "players" in done.stderr
