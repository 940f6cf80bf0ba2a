"""The dice tool as it looks on the box: the roll, the die hint, the history and the counts."""

from __future__ import annotations

from companion.replay import run_script


def screens(script: str) -> list[list[str]]:
    return [o["screen"] for o in run_script("game dice\n" + script)]


def test_after_a_roll_the_footer_still_says_up_down_change_the_die():
    shown = screens("dice 4\npress green\n")
    assert shown[-1] == ["Dice  d6", "4", "1st roll  ok stats", "G roll R again ^v die"]


def test_the_roll_count_cannot_read_as_a_value():
    """Issue 30 point 13: "roll 8" under a d6's face read as an 8; the count is an ordinal."""
    shown = screens("dice " + " ".join(["2"] * 12) + "\n" + "press green\n" * 12)
    lines = [s[2] for s in shown[2:]]
    firsts = ["1st", "2nd", "3rd", "4th"]
    assert lines[:4] == [f"{n} roll  ok stats" for n in firsts]
    assert lines[7] == "8th roll  ok stats" and lines[10] == "11th roll  ok stats"
    assert not any(line.startswith("roll ") for line in lines)


def test_d4_and_d6_faces_are_counted_apart_when_a_game_mixes_dice():
    """Issue 30 point 13: a d4's 3 is not a d6's 3. The counts are of the die on screen, named
    when the game rolled both kinds (2d6 counts with d6: each die's face)."""
    out = run_script(
        "game dice\ndice 3 3 6 1\npress green\ndo roll die=2d6\npress up\npress green\n"
        "press ok\npress down\npress ok\n"
    )
    d4 = out[6]["screen"]
    assert d4[:3] == ["Dice  3 rolls", "3 3+6 1", "d4: 1:1 2:0 3:0 4:0"]
    d6 = out[8]["screen"]
    assert d6[2:4] == ["d6: 1:0 2:0 3:2", "4:0 5:0 6:1"]
    assert out[8]["state"]["counts"] == {"1": 1, "3": 2, "6": 1}  # the contract: every face


def test_a_history_cut_short_says_so():
    """Issue 30 point 13: the newest rolls that fit, after "…" when older ones are left out."""
    out = run_script(
        "game dice die=2d6\ndice " + "6 6 " * 6 + "\n" + "press green\n" * 6 + "press ok\n"
    )
    line = out[-1]["screen"][1]
    assert line.startswith("… ") and line.endswith("6+6") and len(line) <= 21
    whole = run_script("game dice\ndice 1 2\npress green\npress green\npress ok\n")
    assert whole[-1]["screen"][1] == "1 2"


def test_after_an_undo_the_dice_show_the_last_roll_that_stands():
    """Issue 30 point 13 (rulings, dice tool): undo of a roll of a newly chosen die comes back
    to the roll before it, not to "Press green to roll d4"."""
    out = run_script(
        "game dice\ndice 3\npress green\npress up\ndice 2\npress green\nhold back 1.5\n"
        "press green\n"
    )
    assert out[-1]["state"]["last"] == [3]
    assert out[-1]["screen"][:3] == ["Dice  d6", "3", "1st roll  ok stats"]


def test_a_newly_chosen_die_does_not_show_the_old_dies_faces():
    shown = screens("dice 6 6\ndo roll die=2d6\npress up\ndice 3\npress green\npress down\n")
    assert shown[2][:2] == ["Dice  2d6", "6+6"]  # the die that rolled, though d6 is chosen
    assert shown[3] == ["Dice  d4", "Press green", "to roll d4", "G roll  ^v die"]
    assert shown[5][:2] == ["Dice  d4", "3"]
    assert shown[6] == ["Dice  d6", "Press green", "to roll d6", "G roll  ^v die"]


def test_ok_shows_the_history_and_the_per_face_counts():
    out = run_script(
        "game dice\ndice 2 5 2 6 3\npress green\npress green\ndo roll die=2d6\npress ok\n"
    )
    assert out[-1]["screen"] == [
        "Dice  3 rolls",
        "2 5 2+6",
        "1:0 2:2 3:0",
        "4:0 5:1 6:1",
        "ok back  G roll",
    ]
    assert out[-1]["state"]["counts"] == {"2": 2, "5": 1, "6": 1}
    assert out[-1]["state"]["stats"] is True


def test_the_history_keeps_the_newest_rolls_that_fit_and_green_rolls_from_it():
    rolls = " ".join(str(1 + n % 4) for n in range(15))
    out = run_script(f"game dice die=d4\ndice {rolls}\n" + "press green\n" * 15 + "press ok\n")
    line = out[-1]["screen"][1]
    assert len(line) <= 21 and line.endswith("4 1 2 3")
    assert out[-1]["screen"][2] == "1:4 2:4 3:4 4:3"
    after = run_script(
        f"game dice die=d4\ndice {rolls} 2\n" + "press green\n" * 15 + "press ok\npress green\n"
    )
    assert after[-1]["screen"][1] == "2"


def test_flipping_to_the_history_is_never_what_undo_offers():
    out = run_script("game dice\ndice 3\npress green\npress ok\npress ok\nhold back 1.5\n")
    assert "d6: 3" in " ".join(out[-1]["screen"])


def test_the_history_page_is_not_kept_by_an_undo_or_a_power_cut(tmp_path):
    """Flipping to the history is never journaled: an undo of the roll after a flip comes back
    to the dice with the roll before (as a power cut does), not to the history page."""
    out = run_script(
        "game dice\ndice 3\npress green\npress ok\ndice 5\npress green\nhold back 1.2\n"
        "press green\n",
        state_dir=tmp_path,
    )
    assert out[3]["state"]["stats"] is True  # the history was open before the second roll
    assert out[-1]["state"]["stats"] is False
    assert out[-1]["screen"][:2] == ["Dice  d6", "3"]
    resumed = run_script("wait 0\n", state_dir=tmp_path)[0]
    assert resumed["state"] == out[-1]["state"]
    assert resumed["screen"] == out[-1]["screen"]
