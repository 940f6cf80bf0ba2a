"""The undo question (issue 30, point 10): it names the step that would be undone in the
step's own words, never in the words of the question of play it is asked over, and ok says
"undo", so that it cannot read as a yes to that question."""

from __future__ import annotations

from companion.app.menu_flow import undo_label
from companion.replay import run_script

# The AI's card "Damage 3" on Player 1: the table is asked "blocked or taken?"; then a long
# back asks to undo.
OVER_A_QUESTION = (
    "game trap-attack\ndice 6 1\ndo first_player\ndice 3 4\npress green\npress green\n"
    "press down\npress down\npress ok\nhold back 1.5\n"
)


def test_the_undo_question_does_not_repeat_the_open_question():
    out = run_script(OVER_A_QUESTION)
    asked = out[-2]["screen"]
    assert "Block it with skulls?" in asked
    undo = out[-1]["screen"]
    assert undo[0] == "Undo?"
    words = " ".join(undo[1:-1])
    assert "Damage 3" in words and "Player 1" in words
    assert "?" not in words and "blocked or taken" not in words
    assert undo[-1] == "ok undo  back no"


def test_ok_undoes_and_the_question_comes_back():
    out = run_script(OVER_A_QUESTION + "press ok\n")
    assert out[-1]["screen"] == out[4]["screen"]  # the card to draw again


def test_a_plain_step_is_named_whole():
    assert undo_label("AI moves 4: 30 -> 26") == "AI moves 4: 30 -> 26"
    assert undo_label("A: wrong guess, 4 left") == "A: wrong guess, 4 left"
    assert undo_label("AI casts Push back 3 at Player 2: blocked or taken?") == (
        "AI casts Push back 3 at Player 2"
    )


# --- issue 42, point 7: the clock stands still under the question ---------------------------

HOSTAGE = "game hostage-trap players=3 turn_seconds=30\ndo attack target=2 result=hit\nwait 5\n"


def test_a_hostage_turn_cannot_run_out_behind_the_undo_question():
    """A 30 s turn ran out behind a long back's "Undo?" and "no" landed in the next seat's
    turn. The question pauses the countdown as the game menu does; "no" runs it on."""
    out = run_script(HOSTAGE + "hold back 1.5\nwait 60\npress back\nwait 2\n")
    asked, waited, no, later = out[-4:]
    assert asked["screen"][0] == "Undo?"
    assert asked["state"]["timer"]["running"] is False
    assert waited["state"]["turn"] == 1 and waited["state"]["turn_no"] == 1
    assert waited["state"]["timer"] == asked["state"]["timer"]
    assert no["state"]["turn"] == 1 and no["state"]["timer"]["running"] is True
    assert no["state"]["timer"]["remaining"] == asked["state"]["timer"]["remaining"]
    assert later["state"]["timer"]["remaining"] < no["state"]["timer"]["remaining"]
    assert not any("time" in line.lower() and "up" in line.lower() for line in waited["log"])


def test_the_undo_question_from_the_game_menu_runs_the_clock_on_after_no():
    """Undo last, then no: back to play with the countdown running, not left stopped."""
    out = run_script(HOSTAGE + "press back\npress down\npress ok\nwait 40\npress back\n")
    asked, no = out[-3], out[-1]
    assert asked["screen"][0] == "Undo?" and asked["state"]["timer"]["running"] is False
    assert no["state"]["timer"]["running"] is True and no["state"]["turn"] == 1


def test_the_trapwords_clock_stands_still_under_the_undo_question():
    """The clock fell from 42 to 35 s under the question."""
    out = run_script(
        "game trapwords seconds=45\npress green\nwait 5\nhold back 1.5\nwait 7\n"
        "press back\nwait 1\n"
    )
    asked, waited, no, later = out[-4:]
    assert asked["screen"][0] == "Undo?"
    assert waited["state"]["timer"] == asked["state"]["timer"]
    assert waited["state"]["timer"]["running"] is False
    shown = asked["state"]["timer"]["remaining"]
    assert no["state"]["timer"] == {**asked["state"]["timer"], "running": True}
    assert later["state"]["timer"]["remaining"] == shown - 1


def test_ok_under_the_trapwords_question_undoes_and_waits_paused():
    out = run_script("game trapwords seconds=45\npress green\nwait 5\nhold back 1.5\npress ok\n")
    assert out[-1]["state"]["phase"] == "ready"  # the turn's start taken back


def test_the_trapwords_game_menu_stops_the_clock_too_and_a_table_pause_waits_for_ok():
    """As in Hostage Trap!: the game menu stops a running clock and leaving it runs it on; a
    pause the table made (ok) stays through the menu until ok."""
    out = run_script(
        "game trapwords seconds=45\npress green\nwait 5\npress back\nwait 9\npress back\n"
        "press ok\npress back\npress back\nwait 3\n"
    )
    menu, waited, resumed, paused, _menu, left, later = out[-7:]
    assert menu["state"]["timer"]["running"] is False
    assert waited["state"]["timer"] == menu["state"]["timer"]
    assert resumed["state"]["phase"] == "running"
    assert paused["state"]["phase"] == "paused"
    assert left["state"]["phase"] == "paused" and later["state"]["phase"] == "paused"
