"""What the Trapwords box shows (screen, LED, dungeon picture) and how buttons and cards map to
actions."""

from __future__ import annotations

import pytest
from test_trapwords_support import Table

from companion.games.base import Action, Press, Tap
from companion.games.trapwords import GAME
from companion.games.trapwords.data import TABLES
from companion.ui.screen import RED, WHITE, fraction_color

TEAM_A = TABLES.team_colours["A"]
TEAM_B = TABLES.team_colours["B"]


def shown(table: Table) -> tuple[list[str], tuple[float, float, float], str]:
    screen, lights = GAME.view(table.state)
    assert len(screen.lines) <= 3
    assert all(len(line) <= 21 for line in (*screen.lines, screen.footer))
    return screen.text_lines(), lights.color, lights.pattern


def test_round_start_says_how_many_traps_and_who_goes_first() -> None:
    table = Table.new()
    lines, colour, _ = shown(table)
    assert lines == [
        "Trapwords  R1",
        "All start in room 3",
        "Traps: A 3  B 3",
        "A gives clues first",
        "ok start  ^v map",
    ]
    assert colour == TEAM_A


def test_up_or_down_between_turns_flips_to_the_dungeon_picture() -> None:
    table = Table.new(start_mode="pickup")
    table.play_round("correct", "trap")
    screen, _ = GAME.view(table.state)
    assert screen.picture is None
    assert shown(table)[0][1:4] == ["Reveal curse: A", "Traps: A 3  B 4", "B gives clues first"]
    assert table.press("down")
    screen, _ = GAME.view(table.state)
    assert screen.picture == ("dungeon", ((3, 4, 5, 6, 7), 4, 3, 7, (4, 6)))
    assert screen.lines == ("B first  A:3 B:4",)
    table.play_turn("trap")  # the choice stays for later turns
    screen, _ = GAME.view(table.state)
    assert screen.picture is not None
    assert screen.lines == ("Next: A gives clues",)
    assert table.press("up")
    assert GAME.view(table.state)[0].picture is None


def test_the_dungeon_is_not_shown_during_a_turn() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    assert GAME.control(table.state, Press("up")) is None
    assert not table.do("map")
    assert table.rejected == ["the dungeon is shown between turns"]


def test_between_turns_the_screen_says_how_the_turn_ended_and_what_is_next() -> None:
    table = Table.new(start_mode="pickup")
    table.play_turn("timeout")
    lines, colour, _ = shown(table)
    assert lines[1:3] == ["A: time is up", "Next: B gives clues"]
    assert colour == TEAM_B


@pytest.mark.parametrize(
    ("result", "line"),
    [
        ("correct", "A guessed it!"),
        ("wrong", "A: out of guesses"),
        ("trap", "A: trapword said"),
        ("illegal", "A: illegal clue"),
    ],
)
def test_each_way_a_turn_ends_is_named(result: str, line: str) -> None:
    table = Table.new(start_mode="pickup")
    table.play_turn(result)
    assert shown(table)[0][1] == line


def test_running_turn_shows_big_digits_and_the_led_goes_green_amber_red() -> None:
    table = Table.new(start_mode="pickup", seconds=40)
    table.do("start", at=0.0)
    lines, colour, pattern = shown(table)
    assert lines == ["Trapwords  R1", "40", "A: 5 guesses left", "G got it  R wrong"]
    assert (colour, pattern) == ((0.0, 1.0, 0.0), "solid")
    table.wait(20)
    assert shown(table)[0][1] == "20"
    assert shown(table)[1] == fraction_color(0.5) == (1.0, 1.0, 0.0)
    table.wait(19)
    assert shown(table)[0][1] == "1"
    assert shown(table)[1] == fraction_color(1 / 40)
    assert shown(table)[1][0] == 1.0


def test_reading_and_waiting_show_the_team_colour_blinking() -> None:
    table = Table.new(start_mode="official")
    table.do("start")
    assert shown(table) == (
        ["Trapwords  R1", "45", "A reads the word", "G got it  R wrong"],
        TEAM_A,
        "blink",
    )
    table = Table.new(start_mode="clue")
    table.do("start")
    assert shown(table)[0][2] == "A: ok at 1st clue"


def test_paused_and_the_failure_choice() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start", at=0.0)
    table.do("pause", at=4.2)
    lines, _, pattern = shown(table)
    assert lines[1:3] == ["41", "Paused: ok resumes"]
    assert pattern == "pulse"
    table.do("fail")
    lines, colour, _ = shown(table)
    assert lines[1:] == [
        "Turn failed: why?",
        "> trapword said",
        "  illegal clue",
        "G pick  R go back",
    ]
    assert colour == RED


def test_battle_and_tiebreak_lines() -> None:
    table = Table.new(start_mode="pickup", tiebreak="on", monster="troll")
    for _ in range(4):
        table.play_round("trap", "trap")
    assert shown(table)[0][1] == "A fights the Troll"
    table.do("start")
    assert shown(table)[0][2] == "A vs Troll: 5 left"
    table.wait(12.25)
    table.do("correct")
    assert shown(table)[0][1:4] == ["A guessed it!", "Next: B gives clues", "B has 12.2 s to win"]


def test_game_over_screens() -> None:
    table = Table.new(start_mode="pickup")
    for _ in range(8):
        table.play_round("trap", "trap")
    assert shown(table) == (
        ["Trapwords  R8", "The Dragon wins", "8 rounds are over", "^v map"],
        RED,
        "blink",
    )
    table = Table.new(start_mode="pickup")
    for _ in range(4):
        table.play_round("trap", "trap")
    table.play_round("correct", "correct")
    assert shown(table)[0][1] == "A and B both win!"
    assert shown(table)[1:] == (WHITE, "blink")


def test_public_remaining_is_rounded_to_hundredths() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start", at=0.0)
    table.do("pause", at=1.23456)
    assert table.remaining == 43.77


# --- the control map ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "ok_does"), [("pickup", "pause"), ("official", "go"), ("clue", "go")]
)
def test_ok_in_a_turn(mode: str, ok_does: str) -> None:
    table = Table.new(start_mode=mode)
    assert GAME.control(table.state, Press("ok")) == Action("start")
    assert GAME.control(table.state, Press("green")) == Action("start")
    assert GAME.control(table.state, Press("red")) is None
    table.do("start")
    assert GAME.control(table.state, Press("ok")) == Action(ok_does)
    assert GAME.control(table.state, Press("green")) == Action("correct")
    assert GAME.control(table.state, Press("red")) == Action("wrong")
    assert GAME.control(table.state, Press("red", long=True)) == Action("fail")
    assert GAME.control(table.state, Press("up")) is None


def test_ok_resumes_when_paused() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    table.press("ok")
    assert table.state.phase == "paused"
    assert GAME.control(table.state, Press("ok")) == Action("resume")


def test_up_and_down_choose_why_the_turn_failed() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    table.press("red", long=True)
    assert GAME.control(table.state, Press("up")) == Action("why", {"reason": "illegal"})
    assert GAME.control(table.state, Press("down")) == Action("why", {"reason": "illegal"})
    assert GAME.control(table.state, Press("ok")) == Action("trap")
    assert GAME.control(table.state, Press("red")) == Action("keep")
    table.press("down")
    assert GAME.control(table.state, Press("green")) == Action("illegal")


def test_buttons_do_nothing_once_the_game_is_over() -> None:
    table = Table.new(start_mode="pickup")
    for _ in range(8):
        table.play_round("trap", "trap")
    for button in ("ok", "green", "red"):
        assert GAME.control(table.state, Press(button)) is None
    assert table.press("down")  # the final dungeon can still be looked at
    screen, _ = GAME.view(table.state)
    assert screen.lines == ("The Dragon wins",)
    assert screen.picture == ("dungeon", ((3, 4, 5, 6, 7), 3, 3, 3, ()))


def test_curse_card_taps() -> None:
    table = Table.new()
    echo = {"game": "trapwords", "card": "curse-echo", "name": "Echo"}
    assert GAME.control(table.state, Tap("0A1B", echo)) == Action("curse", {"card": "curse-echo"})
    other = {"game": "trapwords", "card": "curse-other", "name": "Silence"}
    assert GAME.control(table.state, Tap("0A1C", other)) == Action(
        "curse", {"card": "curse-other", "name": "Silence"}
    )
    assert GAME.control(table.state, Tap("0A1D", None)) is None
    relic = {"game": "trap-attack", "card": "shield", "name": "Shield"}
    assert GAME.control(table.state, Tap("0A1E", relic)) is None
