"""Hostage Trap! through the replay contract: the scripts in tests/scripts/hostage-trap-*.txt run
on the daemon's own code (simulated buttons, reader, display, journal) and a virtual clock; and
the box's own menu pauses a running turn timer."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from companion.errors import UsageError
from companion.replay import run_script

SCRIPTS = Path(__file__).parent / "scripts"
EXAMPLES = Path(__file__).parent.parent / "examples"
CONTRACT_KEYS = {"players", "turn", "turn_no", "held", "ability_used", "drew", "attack", "winner"}


@functools.cache
def run(name: str) -> dict[int, dict[str, Any]]:
    text = (SCRIPTS / f"hostage-trap-{name}.txt").read_text()
    return {out["line"]: out for out in run_script(text)}


def run_text(text: str) -> list[dict[str, Any]]:
    return list(run_script(text))


def test_every_script_prints_the_contract_keys_and_never_names_a_hostage_before_a_win() -> None:
    scripts = sorted(SCRIPTS.glob("hostage-trap-*.txt"))
    assert len(scripts) >= 2
    for script in scripts:
        for out in run(script.stem.removeprefix("hostage-trap-")).values():
            assert out["state"].keys() >= CONTRACT_KEYS, script.name
            assert set(out["state"]["timer"]) >= {"remaining", "running"}
            if out["state"]["winner"] is None:
                shown = " ".join(out["screen"] + out["log"]).lower()
                assert "hostage-" not in shown and " hostage:" not in shown
                for colour in ("yellow", "purple", "orange", "pink", "green"):
                    assert colour not in " ".join(out["screen"]).lower(), (script.name, out)


def test_the_examples_are_the_tested_scripts() -> None:
    for script in SCRIPTS.glob("hostage-trap-*.txt"):
        assert (EXAMPLES / script.name).read_text() == script.read_text()


def test_three_players_traps_a_timed_out_turn_and_a_tapped_win() -> None:
    out = run("three-players")
    assert out[15]["state"]["held"] == {"2": 1}  # the tapped trap asked its turns
    assert out[18]["state"]["timer"]["running"] is False  # the box's menu paused it
    assert out[19]["state"]["timer"]["remaining"] == out[18]["state"]["timer"]["remaining"]
    assert out[21]["sounds"] == ["hurry", "time_up", "turn"]
    assert out[21]["state"]["turn"] == 1
    assert out[23]["state"]["turn_no"] == 6 and out[23]["screen"][0] == "Seat 2: take trap card"
    assert out[23]["screen"][2] == "Draw to 5 + hostages"  # seat 3's reminder, under the news
    assert out[28]["rejected"] == "one draw a turn"
    assert out[29]["screen"][2] == "Take trap, to 5+hostages"
    # The claim stops seat 2's countdown and counts its own wait down; when the wait runs out
    # the box says what it saw and seat 2's countdown runs on from where it stood.
    assert out[36]["state"]["timer"] == {"remaining": 29.6, "running": False}
    assert out[36]["screen"][1] == "15" and out[36]["state"]["claim"]["wait"] == 15.0
    assert out[37]["state"]["claim"]["seen"] == 2
    assert out[37]["state"]["timer"] == out[36]["state"]["timer"]
    assert out[38]["screen"][0] == "Seat 3: saw 2 hostages"  # 16 s later: the wait ran out
    assert out[38]["state"]["timer"] == {"remaining": 29.0, "running": True}  # 1 s since
    last = out[max(out)]
    assert last["state"]["winner"] == 2 and last["state"]["turn"] is None
    assert last["state"]["winning"] == ["red", "green", "blue"]
    assert last["sounds"] == ["card_ok", "win"]


def test_seven_players_sit_out_refuse_a_short_claim_undo_and_win() -> None:
    out = run("seven-players")
    assert out[11]["rejected"] == "one hostage ability a turn"
    assert out[12]["screen"][:3] == ["No card drawn", "> Draw a card", "  End turn anyway"]
    assert out[12]["state"]["turn"] == 2  # red before a draw asks first (issue 30 point 8)
    assert out[14]["state"]["turn"] == 3 and out[14]["screen"][1].startswith("S3 ")
    assert out[24]["state"]["turn"] == 2 and out[24]["state"]["turn_no"] == 9
    assert out[31]["state"]["take_trap"] == [4, 1]
    assert out[33]["rejected"] == "only 3 different hostages; 4 needed"
    assert out[37]["state"]["ability_used"] is False
    assert out[39]["state"]["timer"]["running"] is True
    last = out[max(out)]
    assert last["state"]["winner"] == 2
    assert len(last["state"]["winning"]) == 4


def test_leaving_the_box_menu_by_back_resumes_the_timer_and_a_hidden_tap_stays_hidden() -> None:
    out = run_text(
        "game hostage-trap players=3 turn_seconds=20\n"
        "wait 4\npress back\ntap @hostage-pink\nwait 30\npress back\nwait 17\n"
    )
    assert out[2]["state"]["timer"]["running"] is False
    assert out[3]["screen"][1] == "A hostage card"  # a tap with the menu open: no colour
    assert "pink" not in " ".join(out[3]["log"])
    assert out[5]["state"]["timer"]["running"] is True
    assert out[6]["state"]["turn"] == 2


def test_a_malformed_action_or_option_stops_the_script_naming_the_line() -> None:
    for script in (
        "game hostage-trap players=8\n",
        "game hostage-trap\ndo draw target=9\n",
        "game hostage-trap\ndo trap\n",
        "game hostage-trap\ndo claim player=1 hostage=blue\n",
    ):
        with pytest.raises(UsageError, match="line"):
            run_text(script)
