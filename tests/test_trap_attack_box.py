"""Trap Attack on the box as a person plays it: cards met for the first time, long presses."""

from __future__ import annotations

from companion.replay import run_script


def test_an_unknown_card_once_enrolled_is_played_without_a_second_tap(tmp_path):
    # The AI casts; its card is unknown: enrol it (yes, the first kind: Damage 1) and the
    # same tap is the AI's card.
    out = run_script(
        "game trap-attack\ndice 3 5\npress green\ntap 0A0B0C0D0E\npress green\npress ok\n",
        state_dir=tmp_path,
    )
    assert out[-1]["log"][:2] == [
        "enrolled 0A0B0C0D0E as Damage 1",
        "AI casts Damage 1 at Player 1: blocked or taken?",
    ]
    assert out[-1]["state"]["pending"] == "block"
    assert out[-1]["screen"][1] == "Damage 1 on P1"


def test_a_long_press_in_the_ai_position_picker_moves_five_spaces():
    out = run_script(
        "game trap-attack\ndo ask form=set_ai\nhold down 1.5\npress down\nhold up 1.5\npress ok\n"
    )
    shown = [o["screen"][2] for o in out[1:5]]
    assert shown == ["< 30 >", "< 25 >", "< 24 >", "< 29 >"]
    assert out[-1]["state"]["ai"]["position"] == 29


def test_a_long_press_in_a_short_list_moves_one_place():
    out = run_script("game trap-attack\ndo ask form=damage\nhold down 1.5\n")
    assert out[-1]["screen"][1:3] == ["Who?", "< AI >"]
