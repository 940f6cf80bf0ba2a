"""Trapwords through the replay contract: the scripts in tests/scripts/trapwords-*.txt run on the
daemon's own code (simulated buttons, reader, display, journal) and a virtual clock."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from companion.errors import UsageError
from companion.replay import run_script

SCRIPTS = Path(__file__).parent / "scripts"
CONTRACT_KEYS = {
    "round",
    "rooms",
    "teams",
    "monster_room",
    "curse_rooms",
    "glowing",
    "clue_team",
    "traps_to_write",
    "guesses_left",
    "timer",
    "result",
    "winner",
}


@functools.cache
def run(name: str) -> dict[int, dict[str, Any]]:
    """The output objects of a script, by script line number (each script runs once)."""
    text = (SCRIPTS / f"trapwords-{name}.txt").read_text()
    return {out["line"]: out for out in run_script(text)}


def test_every_script_prints_the_contract_state_keys() -> None:
    scripts = sorted(SCRIPTS.glob("trapwords-*.txt"))
    assert len(scripts) >= 8
    for script in scripts:
        name = script.stem.removeprefix("trapwords-")
        for out in run(name).values():
            if out["game"] == "trapwords":
                assert out["state"].keys() >= CONTRACT_KEYS, script.name
                assert set(out["state"]["timer"]) >= {"remaining", "running"}


def test_pickup_timer_pause_resume_and_time_up() -> None:
    out = run("pickup")
    assert out[3]["state"]["timer"] == {"remaining": 45.0, "running": True, "limit": 45.0}
    assert out[3]["sounds"] == ["turn"]
    # press ok ends at 0.05, which starts the clock; ten seconds later 35 s are left.
    assert out[4]["t"] == 10.05
    assert out[4]["state"]["timer"]["remaining"] == 35.0
    assert out[4]["screen"][1] == "35"
    assert out[6]["state"]["timer"] == {"remaining": 34.95, "running": False, "limit": 45.0}
    assert out[7]["state"]["timer"]["remaining"] == 34.95  # paused for 30 s: nothing lost
    assert out[8]["state"]["timer"]["running"] is True
    assert out[9]["state"]["timer"]["remaining"] == 10.0
    assert out[9]["sounds"] == ["tick"]
    last = out[10]
    assert last["state"]["result"] == "timeout"
    assert last["state"]["clue_team"] == "B"
    assert last["sounds"] == ["tick"] * 9 + ["time_up"]
    assert last["screen"][1:3] == ["A: time is up", "Next: B gives clues"]


def test_official_mode_reads_then_runs() -> None:
    out = run("official")
    assert out[3]["state"]["timer"]["running"] is False
    assert out[3]["screen"][2] == "A reads the word"
    assert out[4]["state"]["timer"]["running"] is False
    assert out[5]["state"]["timer"]["running"] is True
    assert out[7]["state"]["guesses_left"] == 3
    assert out[7]["sounds"] == ["error"]
    assert out[8]["state"]["result"] == "correct"
    assert out[8]["log"][0] == "A guessed the word (0.25 s used)"


def test_clue_mode_waits_for_the_first_clue() -> None:
    out = run("clue")
    assert out[4]["state"]["timer"] == {"remaining": 40.0, "running": False, "limit": 40.0}
    assert out[5]["state"]["timer"]["running"] is True
    assert out[6]["t"] == 60.1
    assert out[6]["state"]["result"] == "timeout"


def test_a_round_played_with_buttons() -> None:
    out = run("round")
    assert out[5]["state"]["guesses_left"] == 4
    assert out[6]["state"]["result"] == "correct"
    assert out[9]["screen"][1:4] == ["Turn failed: why?", "> trapword said", "  illegal clue"]
    assert out[9]["state"]["timer"]["running"] is False
    end = out[12]["state"]
    assert end["result"] == "trap"
    assert end["round"] == 2
    assert end["teams"] == {"A": {"room": 4}, "B": {"room": 3}}
    assert end["traps_to_write"] == {"A": 3, "B": 4}
    assert end["glowing"] == "B"
    assert end["clue_team"] == "B"
    assert "End of round 1: A -> 4" in out[12]["log"]
    # The round's report: how the last turn ended and what the table moves by hand.
    assert out[12]["screen"] == [
        "End of round 1",
        "B: trapword said",
        "A to room 4",
        "ok next  ^v map",
    ]
    assert out[13]["screen"] == ["Trapwords  R2", "B first  A:3 B:4", "ok start  ^v map"]
    assert out[14]["screen"][0] == "End of round 1"  # back from the map: the report is unread
    assert out[15]["screen"][1:4] == ["Reveal curse: A", "A writes 3, B 4", "Pass torches: B first"]
    assert out[15]["state"]["page"] == "round"
    assert out[16]["state"]["timer"]["running"] is True
    assert out[16]["state"]["page"] is None


def test_curses_cascade_and_a_tapped_card_names_the_curse() -> None:
    out = run("curses")
    assert out[7]["state"]["monster_room"] == 6
    assert out[7]["state"]["curse_rooms"] == [4, 5]
    assert out[11]["state"]["monster_room"] == 5
    assert out[11]["state"]["curse_rooms"] == [3, 4]
    assert "Curse in room 3 applies to A and B: reveal it" in out[11]["log"]
    assert out[11]["screen"] == [
        "End of round 2  1/2",
        "A: trapword said",
        "Dragon to room 5",
        "Curse 5 to room 4",
        "ok next  ^v map",
    ]
    assert out[12]["sounds"] == ["card_ok"]
    assert "Curse (room 3): Echo" in out[12]["log"]
    assert out[12]["screen"][0] == "End of round 2  1/2"  # the report stays until ok
    assert out[14]["screen"] == ["End of round 2  2/2", "Curse 4 to room 3", "ok next  ^v map"]
    assert out[15]["screen"][1] == "Curse: Echo"
    assert out[13]["rejected"] == "every curse of this round is already revealed"


def test_tiebreak_and_the_nasty_mummys_curses() -> None:
    out = run("tiebreak")
    assert out[19]["state"]["monster_room"] == 3
    assert "The Mummy brings 2 new curses: draw and reveal" in out[19]["log"]
    assert out[19]["screen"][1:4] == ["A: trapword said", "Discard curse of 3", "Mummy to room 3"]
    assert out[20]["screen"][1] == "Mummy: draw 2 curses"
    assert "Curse (Mummy): Feeblemind" in out[22]["log"]
    assert out[25]["state"]["timer"]["limit"] == 12.55
    assert "Tiebreak: B has 12.55 s to win" in out[25]["log"]
    final = out[27]["state"]
    assert final["result"] == "timeout"
    assert final["winner"] == "A"
    assert final["clue_team"] is None
    assert out[27]["sounds"][-2:] == ["time_up", "win"]


def test_the_monster_wins_after_round_eight() -> None:
    out = run("eight-rounds")
    assert out[32]["state"]["round"] == 8
    assert out[32]["state"]["winner"] is None
    final = out[34]["state"]
    assert final["winner"] == "monster"
    assert final["round"] == 8
    assert out[34]["screen"][1:3] == ["The Vampire wins", "8 rounds are over"]
    assert out[34]["leds"]["led"] == [1.0, 0.0, 0.0]
    assert out[35]["screen"] == out[34]["screen"]  # buttons do nothing once it is over


def test_random_monster_from_the_setup_die() -> None:
    out = run("random-monster")
    assert out[3]["state"]["monster"] == "troll"


def test_power_cut_mid_turn_resumes_paused_with_the_time_left(tmp_path: Path) -> None:
    before = run_script(
        "game trapwords monster=dragon start_mode=pickup\npress ok\nwait 12.6\npress red\n",
        state_dir=tmp_path,
    )
    assert before[-1]["state"]["timer"] == {"remaining": 32.35, "running": True, "limit": 45.0}
    after = run_script("wait 1\npress ok\nwait 2\n", state_dir=tmp_path)
    assert after[0]["game"] == "trapwords"
    assert after[0]["state"]["phase"] == "paused"
    assert after[0]["state"]["timer"] == {"remaining": 32.35, "running": False, "limit": 45.0}
    assert after[0]["state"]["guesses_left"] == 4
    assert after[2]["state"]["timer"]["remaining"] == 31.0


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("game trapwords seconds=fast\n", "line 1: seconds='fast' is not a number"),
        ("game trapwords colour=red\n", "line 1: trapwords has no option 'colour'"),
        ("game trapwords monster=dragon\ndo dance\n", "line 2: trapwords has no action 'dance'"),
        ("game trapwords monster=dragon curses=3\ndo curse card=x\n", "line 2: card='x'"),
    ],
)
def test_bad_lines_stop_the_script(script: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        run_script(script)


def test_every_start_mode_with_the_buttons_alone() -> None:
    out = run("menu")
    assert out[7]["screen"][2] == "> Timer starts: official"
    assert out[9]["state"]["phase"] == "reading"  # official: time to read first
    assert out[9]["screen"][2] == "A reads the word"
    assert out[13]["screen"][:2] == ["Set aside Trapwords?", "> Keep it waiting"]  # asked first
    assert out[17]["screen"][2] == "> Timer starts: pickup"
    assert out[19]["state"]["phase"] == "running"  # pickup: the start press starts the clock
    assert out[23]["screen"][1] == "> Wait (old one ends)"  # one waits already: it goes
    assert out[27]["screen"][2] == "> Timer starts: clue"
    assert out[29]["state"]["phase"] == "waiting"  # clue: the clock waits for the first clue
    assert out[30]["state"]["timer"]["remaining"] == 45.0
    assert out[31]["state"]["timer"]["running"] is True


def test_undo_during_and_between_turns() -> None:
    out = run("undo")
    # During a turn undo takes back what a person did (the wrong guess), with the timer
    # ticks after it; the confirmation names it, and the turn comes back paused.
    assert out[8]["screen"] == ["Undo?", "A: wrong guess, 4 left", "ok undo  back no"]
    assert out[9]["sounds"] == ["undo"]
    assert out[9]["state"]["phase"] == "paused"
    assert out[9]["state"]["guesses_left"] == 5
    assert out[9]["state"]["timer"] == {"remaining": 41.0, "running": False, "limit": 45.0}
    assert out[10]["state"]["timer"]["running"] is True  # ok resumes
    assert out[13]["state"]["phase"] == "paused"  # a second undo takes back the resume
    # Between turns: the guess that ended A's turn is taken back; A's turn is paused again.
    assert out[16]["state"]["clue_team"] == "B"
    assert out[17]["screen"][1] == "A guessed the word"
    back = out[18]["state"]
    assert (back["clue_team"], back["phase"], back["result"]) == ("A", "paused", None)
    assert back["guesses_left"] == 5
    assert out[20]["state"]["timer"] == {"remaining": 37.0, "running": True, "limit": 45.0}
