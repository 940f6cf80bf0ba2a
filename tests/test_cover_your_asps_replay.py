"""Cover Your Asps through the replay contract: the scripts in tests/scripts/cover-your-asps-*.txt
run on the daemon's own code (simulated buttons, reader, display, journal)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from cover_your_asps_support import SEAT_KEYS, SOLO_KEYS, TABLE_KEYS

from companion.errors import UsageError
from companion.replay import run_script

SCRIPTS = Path(__file__).parent / "scripts"
EXAMPLES = Path(__file__).parent.parent / "examples"


@functools.cache
def run(name: str) -> dict[int, dict[str, Any]]:
    text = (SCRIPTS / f"cover-your-asps-{name}.txt").read_text()
    return {out["line"]: out for out in run_script(text)}


def test_every_script_prints_the_contract_state_keys() -> None:
    scripts = sorted(SCRIPTS.glob("cover-your-asps-*.txt"))
    assert len(scripts) >= 3
    for script in scripts:
        for out in run(script.stem.removeprefix("cover-your-asps-")).values():
            state = out["state"]
            if state["players"] == 1:
                assert state.keys() >= SOLO_KEYS, script.name
            else:
                assert state.keys() >= TABLE_KEYS, script.name
                assert all(s.keys() >= SEAT_KEYS for s in state["seats"].values())


def test_examples_are_the_tested_scripts() -> None:
    for name in ("two-players", "four-players", "solo-won", "solo-lost"):
        example = EXAMPLES / f"cover-your-asps-{name}.txt"
        assert example.read_text() == (SCRIPTS / example.name).read_text()


def test_a_two_player_game_from_setup_to_the_final_standings() -> None:
    out = run("two-players")
    lines = list(out.values())
    first, last = lines[0], lines[-1]
    assert first["state"]["treasure_left"] == 6
    assert lines[1]["rejected"] == "building to the vault needs a plank (or a card) this turn"
    after_built = lines[5]  # dice, plank roll, the menu, its first entry: built
    assert after_built["state"]["seats"]["1"]["phase"] == "collect"
    assert after_built["screen"][2:] == ["Built: enter next", "ok menu  R end turn"]
    escapes = [o for o in lines if o["state"].get("checklist") == "escape"]
    assert escapes[0]["screen"][3] == "Seat 2 gets a pillar"  # seat 1 escaped: its right
    assert any("Seat 1 puts a pillar in Seat 2's antechamber" in o["log"] for o in lines)
    rounds = [o["state"]["round"] for o in lines]
    assert rounds == sorted(rounds) and rounds[-1] == 3
    assert [o["state"]["vault"] for o in lines if "Round 2" in " ".join(o["log"])] == [2]
    over = next(o for o in lines if o["state"]["over"])
    assert over["screen"][:3] == ["Asps  game over", "Last treasure taken", "Seat 1: points?"]
    assert any(o.get("rejected") == "that card is already counted for Seat 2" for o in lines)
    # seat 2 counted by cards: no winner until its last card is in
    partial = [o for o in lines if o["state"]["over"] and o["state"]["seats"]["2"]["count"]]
    assert partial[0]["screen"][1:3] == ["Counting by cards", "Seat 2: 1 of 3 cards"]
    assert [o["state"]["winner"] for o in partial[:3]] == [None, None, None]
    final = [o for o in lines if o["state"]["winner"]][-1]["state"]
    assert [final["seats"][s]["points"] for s in "12"] == [15, 15]
    assert [final["seats"][s]["planks"] for s in "12"] == [4, 2]
    assert final["winner"] == [2]
    assert last["screen"][0] == "Standings"


def test_a_sum_then_taps_never_counts_more_than_the_cards_hold() -> None:
    """Issue 23, point 5: ``treasure points=30`` then three taps of 10 gave 60 points for 3
    cards and a wrong winner; a count by cards decides nothing until its last card."""
    lines = (SCRIPTS / "cover-your-asps-two-players.txt").read_text().splitlines()
    end = next(i for i, o in run("two-players").items() if o["state"]["over"])
    script = (
        "\n".join(lines[:end])
        + "\n"
        + "\n".join(
            [
                "do treasure player=1 points=30",
                *(f"do treasure player=1 add=10 card=0A0B0C1{n}" for n in range(3)),
                "wait 5",
                "do treasure player=2 add=10 card=0A0B0C20",
                "do treasure player=2 add=10 card=0A0B0C21",
                "do treasure player=2 add=9 card=0A0B0C22",
            ]
        )
    )
    out = run_script(script)[-8:]
    assert [o.get("rejected") for o in out[1:4]] == [
        "all 3 of Seat 1's cards are counted: the sum 30 covers them"
    ] * 3
    assert out[4]["state"]["seats"]["1"]["points"] == 30
    assert out[6]["state"]["winner"] is None  # seat 2 has counted 2 of its 3 cards
    assert out[6]["screen"][1:4] == [
        "Counting by cards",
        "Seat 2: 2 of 3 cards",
        "20 points so far",
    ]
    assert out[7]["state"]["winner"] == [1]
    assert out[7]["screen"][1:4] == ["Seat 1 wins!", "1. Seat 1  30 pts", "2. Seat 2  29 pts"]


def test_a_four_player_family_game_to_the_youngest_of_the_tied() -> None:
    lines = list(run("four-players").values())
    assert lines[0]["state"]["treasure_left"] == 12
    assert lines[1]["state"]["seats"]["1"]["cards"] == 1
    assert lines[2]["rejected"] == "Seat 1 has acted: end the turn (red)"
    vaults = {o["state"]["round"]: o["state"]["vault"] for o in lines}
    assert vaults == {1: 1, 2: 2, 3: 3}
    assert lines[-5]["screen"][2] == "Youngest of 2, 4?"
    final = lines[-1]["state"]
    assert final["winner"] == [4] and final["youngest"] == 4
    assert [final["seats"][s]["treasures"] for s in "1234"] == [3, 3, 3, 3]
    assert lines[-1]["screen"][:3] == ["Standings 1/2", "1. Seat 4  21 pts", "2. Seat 2  21 pts"]


def test_solo_won_and_lost() -> None:
    won = list(run("solo-won").values())
    assert won[1]["rejected"] == "one plank per roll: roll first"
    state = won[-1]["state"]
    assert (state["result"], state["rolls"], state["placed"]) == ("won", 4, 3)
    lost = list(run("solo-lost").values())
    assert lost[-1]["state"]["result"] == "lost"
    assert "lose" in [cue for o in lost for cue in o["sounds"]]


def test_the_same_script_gives_the_same_output() -> None:
    text = (SCRIPTS / "cover-your-asps-solo-won.txt").read_text()
    assert run_script(text) == run_script(text)


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("game cover-your-asps players=5\n", "line 1: players='5'"),
        ("game cover-your-asps\ndo plank player=9\n", "line 2: player=9 is not a seat"),
        ("game cover-your-asps\ndo fly\n", "line 2: cover-your-asps has no action 'fly'"),
        ("game cover-your-asps\ndo next seat=1\n", "line 2: 'next' has no argument 'seat'"),
        ("game cover-your-asps\ndo treasure player=1 points=x\n", "line 2: points='x'"),
        ("game cover-your-asps\ndo treasure player=1\n", "line 2: 'treasure' needs points=N"),
        ("game cover-your-asps\ndo planks player=1 n=-1\n", "line 2: n=-1 is outside"),
    ],
)
def test_malformed_lines_are_script_errors_naming_the_line(script: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        run_script(script)


def test_wrong_seat_wrong_phase_and_twice_are_rejected_with_a_reason() -> None:
    out = run_script(
        "game cover-your-asps players=3\n"
        "do plank player=2\n"
        "do enter\n"
        "dice 1 2\n"
        "do plank\n"
        "do plank\n"
    )
    assert out[1]["rejected"] == "it is Seat 1's turn, not Seat 2's"
    assert out[2]["rejected"] == "Seat 1 is building: report built first"
    assert out[5]["rejected"] == "Seat 1 has acted: end the turn (red)"
    assert out[5]["state"] == out[4]["state"]


def test_table_dice_are_asked_by_name() -> None:
    from companion.core.config import Config, DiceConfig

    config = Config(dice=DiceConfig(source="table"))
    out = run_script("game cover-your-asps\npress green\npress up\npress ok\n", config=config)
    assert out[1]["screen"][0] == "Die 1"
    assert out[3]["screen"][0] == "Die 2"
