"""Issue 48, point 5: the replay contract's ``names`` directive and its ``names`` and ``plays``
output keys (../shared/notes/replay.md), checked from outside as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.errors import UsageError
from companion.replay import run_script

SCRIPTS = Path(__file__).parent / "scripts"
CLAIM = "do claim player=2 hostages=red,green,blue\n"


def _cli(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "replay", "-"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_names_is_on_every_line_null_without_a_game_and_unnamed_seats_null():
    out = run_script("do roll\ngame dice\ngame hostage-trap players=3\ngame trapwords\n")
    assert out[0]["names"] is None  # no game in play
    assert out[1]["names"] == []  # the dice tool has no seats
    assert out[2]["names"] == [None, None, None]
    assert out[3]["names"] == [None, None]  # Trapwords' teams A and B


def test_names_names_the_seats_seat_one_first_and_dash_leaves_one_unnamed():
    out = run_script("game hostage-trap players=4\nnames Ann - Cy_3\nnames Bo-b\n")
    assert out[1]["names"] == ["Ann", None, "Cy_3", None]
    assert out[2]["names"] == ["Bo-b", None, None, None]  # the whole seating, seat 1 first
    assert "plays" not in out[1] and "rejected" not in out[1]


def test_the_new_keys_come_after_the_old_ones():
    out = run_script("game hostage-trap players=3\nnames Ann\n" + CLAIM)
    assert list(out[2])[-2:] == ["names", "plays"]
    assert list(out[1])[-1] == "names"


def test_plays_is_only_on_the_line_that_finished_the_game_with_the_names():
    out = run_script("game hostage-trap players=3\nnames Ann Bob\n" + CLAIM + "wait 1\n")
    assert ["plays" in o for o in out] == [False, False, True, False]
    assert out[2]["plays"] == {
        "game": "hostage-trap",
        "seats": [
            {"seat": 1, "player": "Ann", "score": None, "place": 2},
            {"seat": 2, "player": "Bob", "score": None, "place": 1},
            {"seat": 3, "player": None, "score": None, "place": 2},
        ],
        "winners": [2],
    }


def test_the_named_example_keeps_points_and_places():
    text = (SCRIPTS / "deathtrap-dungeon-named-players.txt").read_text()
    out = run_script(text)
    finished = [o for o in out if "plays" in o]
    assert len(finished) == 1
    play = finished[0]["plays"]
    assert play["winners"] == [1]
    assert [(s["player"], s["score"], s["place"]) for s in play["seats"]] == [
        ("Ann", 12, 1),
        ("Bob", 11, 2),
        (None, 10, 3),
        ("Dee", 7, 4),
    ]
    assert out[-1]["names"] == ["Ann", "Bob", None, "Dee"]


def test_the_named_example_is_the_four_players_example_with_names():
    """Names change only the new keys and the screen's seat numbers: the rest of every line is
    as without them."""
    plain = run_script((SCRIPTS / "deathtrap-dungeon-four-players.txt").read_text())
    named = run_script((SCRIPTS / "deathtrap-dungeon-named-players.txt").read_text())
    named = [o for o in named if o["line"] != 5]  # the names line itself
    assert len(plain) == len(named)
    drop = ("line", "names", "plays", "screen")
    assert plain[3]["screen"][2] == "Pig S2: S3 leads"
    assert named[3]["screen"][2] == "Pig Bob: S3 leads"
    for a, b in zip(plain, named, strict=True):
        assert {k: v for k, v in a.items() if k not in drop} == {
            k: v for k, v in b.items() if k not in drop
        }


def test_trap_attack_keeps_the_ai_as_a_seat_nobody_names():
    text = (SCRIPTS / "trap-attack-solo-to-boat.txt").read_text()
    first, _, rest = text.partition("\ngame trap-attack")
    line, _, rest = rest.partition("\n")
    out = run_script(f"{first}\ngame trap-attack{line}\nnames Ann\n{rest}")
    plays = [o["plays"] for o in out if "plays" in o]
    assert len(plays) == 1
    seats = {s["seat"]: s for s in plays[0]["seats"]}
    assert set(seats) == {1, "ai"}
    assert seats[1]["player"] == "Ann" and seats["ai"]["player"] is None


def test_an_undo_past_the_end_withdraws_the_play_and_the_end_again_shows_it_again(tmp_path):
    script = "game hostage-trap players=3\nnames Ann Bob\n" + CLAIM
    script += "hold back 1.5\npress green\n" + CLAIM
    out = run_script(script, state_dir=tmp_path)
    assert [o["line"] for o in out if "plays" in o] == [3, 6]
    kept = json.loads((tmp_path / "plays.json").read_text())
    assert len(kept["plays"]) == 1 and kept["plays"][0]["winners"] == [2]


def test_an_undo_past_the_end_leaves_no_play_in_the_file(tmp_path):
    run_script("game hostage-trap players=3\n" + CLAIM + "hold back 1.5\npress green\n",
               state_dir=tmp_path)  # fmt: skip
    assert json.loads((tmp_path / "plays.json").read_text())["plays"] == []


def test_names_given_after_the_end_rename_the_kept_play(tmp_path):
    run_script("game hostage-trap players=3\n" + CLAIM + "names Ann Bob Cy\n", state_dir=tmp_path)
    (play,) = json.loads((tmp_path / "plays.json").read_text())["plays"]
    assert [s["player"] for s in play["seats"]] == ["Ann", "Bob", "Cy"]


def test_names_without_a_game_is_rejected_and_the_script_goes_on():
    out = run_script("names Ann\ngame dice\n")
    assert out[0]["rejected"] == "no game is being played"
    assert out[1]["game"] == "dice"


@pytest.mark.parametrize(
    "script, message",
    [
        ("game hostage-trap players=3\nnames\n", "line 2: names needs a NAME"),
        ("game hostage-trap players=3\nnames A B C D\n", "3 seat(s) to name, got 4"),
        ("game dice\nnames Ann\n", "0 seat(s) to name"),
        ("game hostage-trap players=3\nnames Ann!\n", "'Ann!' is not a name"),
        ("game hostage-trap players=3\nnames 'Ann Lee'\n", "is not a name"),
    ],
)
def test_a_bad_names_line_is_a_script_error_naming_the_line(script, message):
    with pytest.raises(UsageError, match="line 2") as err:
        run_script(script)
    assert message in str(err.value)


def test_cli_bad_names_exits_2_after_the_lines_before():
    proc = _cli("game hostage-trap players=3\nnames A B C D\n")
    assert proc.returncode == 2
    assert len(proc.stdout.splitlines()) == 1
    assert "line 2" in proc.stderr and "Traceback" not in proc.stderr


def test_a_turn_screens_large_seat_number_shows_the_seats_name():
    """Hostage Trap! (as Cover Your Asps) shows whose turn it is as a large seat number: a named
    seat's name stands there, whole where it fits across the screen, else its short form, in
    its timer too; an unnamed seat keeps its number."""
    out = run_script(
        "game hostage-trap players=4\nnames Wolfgang_Amadeus_Mozart - Cy Alexandra_Smith\n"
        "do next\ndo next\ndo next\n"
        "game hostage-trap players=3 turn_seconds=60\nnames Ann\n"
    )
    shown = [o["screen"][1] for o in out[:6]]
    assert shown == ["1", "Wolfgang", "2", "Cy", "Alexandra_Smith", "S1 60s"]
    assert out[6]["screen"][1] == "Ann 60s"
