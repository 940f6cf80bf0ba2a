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
