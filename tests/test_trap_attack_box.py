"""Trap Attack on the box as a person plays it: cards met for the first time, long presses."""

from __future__ import annotations

from companion.replay import run_script

# A new race starts with the roll for who starts: player 1's pawn die shows 6, the AI's 1.
START_LINES = ["game trap-attack", "dice 6 1", "do first_player"]
START = "\n".join(START_LINES) + "\n"
START_TWO = "game trap-attack players=2\ndice 6 1\ndo first_player\n"


def test_an_unknown_card_once_enrolled_is_played_without_a_second_tap(tmp_path):
    # The AI casts; its card is unknown: enrol it (yes, the first kind: Damage 1) and the
    # same tap is the AI's card.
    out = run_script(
        START + "dice 3 5\npress green\ntap 0A0B0C0D0E\npress green\npress ok\n",
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
        START + "do ask form=set_ai\nhold down 1.5\npress down\nhold up 1.5\npress ok\n"
    )
    shown = [o["screen"][2] for o in out[3:7]]
    assert shown == ["< 30 >", "< 25 >", "< 24 >", "< 29 >"]
    assert out[-1]["state"]["ai"]["position"] == 29


def test_a_long_press_in_a_short_list_moves_one_place():
    out = run_script(START + "do ask form=damage\nhold down 1.5\n")
    assert out[-1]["screen"][1:3] == ["Who?", "< AI >"]


def test_the_box_menu_opens_over_a_question_and_the_question_waits_under_it():
    out = run_script(START + "do ask form=damage player=ai\npress back\npress red\nhold back 1.5\n")
    assert out[4]["screen"][0] == "Trap Attack" and out[4]["state"]["menu"] == "form"
    assert out[5]["screen"][:3] == ["Damage AI", "Damage", "< 1 >"]  # back where it was
    assert out[5]["leds"]["led"] == [0.0, 0.0, 1.0]  # the turn's colour, not the menu's
    assert out[6]["screen"][0] == "Undo?"  # the roll for who starts is the one step
    assert out[6]["state"]["menu"] == "form"  # and the question is still under it


def test_a_card_tapped_while_a_question_is_open_is_played_at_once(tmp_path):
    out = run_script(
        START_TWO + "do ask form=damage\ntap @heal-2\n",
        state_dir=tmp_path,
    )
    assert out[-1]["state"]["menu"] == "form"  # the item's own question replaced it
    assert out[-1]["screen"][1] == "Who plays it?"


def test_score_pages_turn_with_up_and_down_and_red_opens_the_corrections():
    lines = [
        *START_LINES,
        "do relic player=1 value=3 combo=2",
        "do scoring",
        "do finish player=1 crystal=no",
        "do held player=1 relics=1 loot=0",
        "do coins player=1 n=0",
        "do finish player=ai crystal=no",
        "press down",
        "press down",
        "press red",
        "press green",
        "press red",
        "press red",
    ]
    out = run_script("\n".join(lines) + "\n")
    # green shows the scores in detail (issue 30, point 17): red, never green, opens the
    # entries to correct one
    assert [o["state"]["menu"] for o in out[-6:]] == [
        *("detail", "detail", None, "detail", None, "menu")
    ]
    assert [o["screen"][0] for o in out[-6:]] == [
        *("Score Player 1", "Score AI", "Trap Attack  Scores", "Score Player 1"),
        *("Trap Attack  Scores", "Menu"),
    ]


def test_the_tables_dice_asked_for_an_answer_leave_the_question_under_them():
    # "Dice: table" from the box's menu, then Attack the AI from the players' menu.
    presses = ["back", "down", "down", "down", "down", "ok"]
    lines = [
        *START_LINES,
        *[f"press {b}" for b in presses],
        "wait 3",
    ]
    lines += [f"press {b}" for b in ("red", "down", "down", "ok", "ok", "red")]
    out = run_script("\n".join(lines) + "\n")
    asked, back = out[-2], out[-1]
    assert asked["screen"][0] == "AI block die" and asked["state"]["menu"] == "form"
    assert back["screen"][:3] == ["Attack the AI", "Which attack?", "< Damage 1 >"]


def test_a_question_waits_while_an_unknown_card_is_enrolled(tmp_path):
    lines = [
        *START_LINES,
        "do scoring",
        "tap 0A0B0C0D99",
        "press green",
        "press ok",
    ]
    out = run_script("\n".join(lines) + "\n", state_dir=tmp_path)
    assert out[4]["screen"][0] == "Unknown card" and out[4]["state"]["menu"] == "form"
    assert out[-1]["log"] == ["enrolled 0A0B0C0D99 as Damage 1"]
    assert out[-1]["state"]["menu"] == "form"  # the finish question, under the notice


def test_the_roll_for_who_starts_with_the_tables_dice_asks_each_pawns_die():
    """Issue 42, point 2: red opens the players' menu, whose one entry is the roll; with the
    table's dice each pawn's die is asked, and the race starts with the winner."""
    presses = ["back", "down", "down", "down", "down", "ok"]
    lines = ["game trap-attack", *[f"press {b}" for b in presses], "wait 3", "press red"]
    lines += ["press up", "press ok", "press ok"]  # P1 rolls 2, the AI 1
    out = run_script("\n".join(lines) + "\n")
    assert out[8]["screen"][:3] == ["P1 die", "1", "die 1 of 2"]
    assert out[8]["state"]["menu"] == "menu"  # the menu waits under the dice
    assert out[-1]["screen"][1:3] == ["P1:2 AI:1", "Player 1 starts"]
    assert out[-1]["state"]["menu"] is None
