"""Issue 30 (table trust, fifth look): what a table met in Trapwords. A Word of Terror that has
no effect curses no one; the drawn monster is named on the game's first screen; the last round
and the passing of the torches are said; a cursed team's turn line says the curse and the
guesses."""

from __future__ import annotations

import pytest
from test_trapwords_support import Table

from companion.games.trapwords import GAME
from companion.games.trapwords.data import TABLES


def lines_of(table: Table) -> list[str]:
    screen, _ = GAME.view(table.state)
    assert len(screen.lines) <= 3
    assert all(len(line) <= 21 for line in (*screen.lines, screen.footer)), screen
    return screen.text_lines()


def past_the_report(table: Table) -> None:
    while table.state.report is not None:
        assert table.press("ok")


def report_text(table: Table) -> str:
    """Every page of the end-of-round report, as one text."""
    seen = []
    while table.state.report is not None:
        seen += lines_of(table)
        assert table.press("ok")
    return " | ".join(seen)


# --- 4. a Word of Terror with no effect curses no one --------------------------------------------


def test_word_of_terror_pushed_into_the_first_room_curses_no_one() -> None:
    table = Table.new(start_mode="pickup")
    for _ in range(2):  # the Dragon walks 7 -> 6 -> 5, pushing a curse into room 3
        table.play_round("trap", "trap")
    past_the_report(table)
    assert table.public["cursed"] == ["A", "B"]  # unknown yet: reveal it
    assert table.do("curse", card="curse-word-of-terror")
    assert table.public["cursed"] == []
    table.do("start")
    assert lines_of(table)[2] == "A: 5 guesses left"  # not "cursed"
    table.do("trap")
    table.do("start")
    assert "cursed" not in " ".join(lines_of(table))
    table.do("trap")
    assert "Discard" not in report_text(table)  # discarded when it was revealed


def test_word_of_terror_in_the_first_room_by_setup_curses_no_one() -> None:
    table = Table.new(start_mode="pickup", curses="3,6")
    assert table.public["cursed"] == ["A", "B"]
    assert table.do("curse", card="curse-word-of-terror")
    assert table.public["cursed"] == []
    assert table.public["curses_revealed"][0]["void"] is True
    table.do("start")
    assert "cursed" not in " ".join(lines_of(table))


def test_a_real_curse_beside_a_void_one_in_the_first_room_still_curses() -> None:
    table = Table.new(start_mode="pickup", curses="3,3")
    assert table.do("curse", card="curse-word-of-terror")
    assert table.public["cursed"] == ["A", "B"]  # the second curse is still to come
    assert table.do("curse", card="curse-echo")
    assert table.public["cursed"] == ["A", "B"]
    table.play_round("trap", "trap")
    text = report_text(table)
    assert "Discard curse of 3" in text and "2 curses" not in text


def test_the_mummys_void_word_of_terror_is_not_discarded_twice() -> None:
    table = Table.new(monster="mummy", rooms="3,4,5", start_mode="pickup")
    for _ in range(2):  # the Mummy walks 5 -> 4 -> 3: both teams fight it in room 3
        table.play_round("trap", "trap")
    past_the_report(table)
    assert table.do("curse", card="curse-word-of-terror")
    assert table.public["cursed"] == []
    table.play_round("trap", "trap")
    assert "Mummy's curse" not in report_text(table)


# --- 5. the drawn monster is named on the first screen -----------------------------------------


@pytest.mark.parametrize("roll", [1, 2, 3, 4, 5])
def test_the_drawn_monster_is_named_on_the_first_screen_beside_a_first_room_curse(roll) -> None:
    table = Table({"monster": "random", "curses": "3,6"}, (roll,))
    name = TABLES.monsters[roll - 1].name
    lines = lines_of(table)
    assert f"{name} in room 7" in lines
    assert "Reveal curse: A B" in lines  # the curse keeps its line too
    assert "Both write 3, A first" in lines


def test_the_first_screen_without_a_curse_is_as_it_was() -> None:
    table = Table.new()
    assert lines_of(table)[1:4] == ["Dragon in room 7", "A writes 3, B 3", "A gives clues first"]


# --- 7. the last round, the torches ------------------------------------------------------------


def test_a_later_round_says_to_pass_the_torches_to_the_next_clue_givers() -> None:
    table = Table.new(start_mode="pickup")
    table.play_round("correct", "trap")
    past_the_report(table)
    lines = lines_of(table)
    assert lines[0] == "Trapwords  R2"
    assert lines[3] == "Pass torches: B first"


def test_the_last_round_is_said_as_such() -> None:
    table = Table.new(start_mode="pickup", rooms="3,4,5,6,7")
    for _ in range(TABLES.max_rounds - 1):
        table.play_round("trap", "trap")
        past_the_report(table)
        for _ in range(table.state.curses_to_name):
            table.do("curse", card="curse-flood")
    assert table.public["round"] == 8
    lines = lines_of(table)
    assert lines[0] == "Trapwords  R8 last"
    assert lines[2].startswith("Last list: ")
    table.do("start")
    assert lines_of(table)[0] == "Trapwords  R8 last"


def test_earlier_rounds_do_not_say_last() -> None:
    table = Table.new(start_mode="pickup")
    assert "last" not in " ".join(lines_of(table)).lower()


# --- 17. a cursed team's turn line -------------------------------------------------------------


def test_a_cursed_teams_turn_line_says_the_curse_and_the_guesses() -> None:
    table = Table.new(start_mode="pickup", curses="3,6")
    assert table.do("curse", card="curse-echo")
    table.do("start")
    assert lines_of(table)[2] == "A cursed, 5 guesses"
    table.do("wrong")
    table.do("wrong")
    table.do("wrong")
    table.do("wrong")
    assert lines_of(table)[2] == "A cursed, 1 guess"
