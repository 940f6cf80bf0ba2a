"""What the Trapwords box shows (screen, LED, dungeon picture) and how buttons and cards map to
actions."""

from __future__ import annotations

import random

import pytest
from test_trapwords_support import Table

from companion.games.base import Action, BadAction, Press, Tap
from companion.games.trapwords import GAME
from companion.games.trapwords.data import TABLES
from companion.games.trapwords.report import report_lines
from companion.ui.render import layout
from companion.ui.screen import RED, WHITE, fraction_color

AREAS = ("title", "footer", "big", "line")

TEAM_A = TABLES.team_colours["A"]
TEAM_B = TABLES.team_colours["B"]


def shown(table: Table) -> tuple[list[str], tuple[float, float, float], str]:
    screen, lights = GAME.view(table.state)
    assert len(screen.lines) <= 3
    assert all(len(line) <= 21 for line in (*screen.lines, screen.footer))
    return screen.text_lines(), lights.color, lights.pattern


def test_round_start_names_the_monster_says_how_many_traps_and_who_goes_first() -> None:
    table = Table.new()
    lines, colour, _ = shown(table)
    assert lines == [
        "Trapwords  R1",
        "Dragon in room 7",
        "A writes 3, B 3",
        "A gives clues first",
        "ok start  ^v map",
    ]
    assert colour == TEAM_A
    nasty = Table.new(monster="vampire", nasty="on", rooms="2,4,6,8,10")
    assert shown(nasty)[0][1] == "Nasty Vampire: 10"


def test_up_or_down_between_turns_flips_to_the_dungeon_picture() -> None:
    table = Table.new(start_mode="pickup")
    table.play_round("correct", "trap")
    screen, _ = GAME.view(table.state)
    assert screen.picture is None
    assert table.press("ok")  # past the round's report
    assert shown(table)[0][1:4] == ["Reveal curse: A", "A writes 3, B 4", "Pass torches: B first"]
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
    assert lines == ["Trapwords  R1", "40", "A: 5 guesses left", "G got  R no  ok pause"]
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
    assert shown(table)[0][1:4] == ["A: trapword said", "Discard curse of 3", "Troll to room 3"]
    table.press("ok")
    # both teams are in the monster's room: both are named (issue 42, point 13)
    assert shown(table)[0][1] == "A and B vs Troll"
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
        ["Trapwords  R8", "The Dragon wins", "8 rounds are over", "^v map  back: menu"],
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
    assert GAME.control(table.state, Press("ok")) == Action("resume", {"paused": "yes"})


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


# --- the round's report ------------------------------------------------------------------------


def test_after_a_round_the_report_says_how_the_turn_ended_and_what_to_move() -> None:
    table = Table.new(start_mode="pickup")
    table.play_round("correct", "timeout")
    screen, lights = GAME.view(table.state)
    assert screen.text_lines() == [
        "End of round 1",
        "B: time is up",
        "A to room 4",
        "ok next  ^v map",
    ]
    assert screen.inverted  # time up: the alert look
    assert lights.color == TEAM_B  # B is behind: B gives clues first in round 2
    assert table.public["page"] == "report"
    assert GAME.control(table.state, Press("ok")) == Action("next")
    assert GAME.control(table.state, Press("green")) == Action("next")
    assert table.press("ok")
    assert table.public["page"] == "round"
    assert not GAME.view(table.state)[0].inverted
    assert GAME.control(table.state, Press("ok")) == Action("start")


@pytest.mark.parametrize(
    ("results", "setup", "moves"),
    [
        (("correct", "correct"), {}, ["A and B to room 4"]),
        (("trap", "trap"), {}, ["Dragon to room 6", "Curse 6 to room 5"]),
        (("trap", "trap"), {"curses": "none"}, ["Dragon to room 6"]),
        (
            ("trap", "trap"),
            {"curses": "4,5,6"},
            ["Dragon to room 6", "Curse 6 to room 5", "Curse 5 to room 4", "Curse 4 to room 3"],
        ),
        (("trap", "trap"), {"curses": "3,4"}, ["Discard curse of 3", "Dragon to room 6"]),
        (
            ("trap", "trap"),
            {"curses": "3,6"},
            ["Discard curse of 3", "Dragon to room 6", "Curse 6 to room 5"],
        ),
    ],
)
def test_report_moves(results: tuple[str, str], setup: dict[str, str], moves: list[str]) -> None:
    table = Table.new(start_mode="pickup", **setup)
    table.play_round(*results)
    assert report_lines(table.state, table.state.report)[1:] == tuple(moves)


def test_a_long_report_runs_over_pages_and_ok_turns_them() -> None:
    table = Table.new(start_mode="pickup", curses="3,6")
    table.play_round("trap", "trap")
    assert shown(table)[0] == [
        "End of round 1  1/2",
        "B: trapword said",
        "Discard curse of 3",
        "Dragon to room 6",
        "ok next  ^v map",
    ]
    assert table.press("ok")
    assert shown(table)[0] == ["End of round 1  2/2", "Curse 6 to room 5", "ok next  ^v map"]
    assert table.public["page"] == "report"
    assert table.press("ok")
    assert table.public["page"] == "round"


def test_the_report_names_every_curse_the_mummys_included() -> None:
    table = Table.new(start_mode="pickup", monster="mummy", rooms="3,4,5")
    assert table.public["curse_rooms"] == [4, 4]  # two curses, both beside the second room
    table.play_round("trap", "trap")
    assert report_lines(table.state, table.state.report)[1:] == (
        "Mummy to room 4",
        "2 curses 4 to room 3",
    )
    table.press("ok")
    table.play_round("trap", "trap")
    assert report_lines(table.state, table.state.report)[1:] == (
        "Discard 2 curses of 3",
        "Mummy to room 3",
    )
    table.press("ok")
    table.play_round("trap", "trap")  # both fight the Mummy, which brings a curse
    assert report_lines(table.state, table.state.report)[1:] == (
        "No one moves",
        "Discard Mummy's curse",
    )


def test_report_when_teams_part_and_when_no_one_moves() -> None:
    table = Table.new(start_mode="pickup", monster="troll")
    table.play_round("correct", "trap")  # A to 4; B stays in 3 (and the curse of 4 waits for A)
    table.press("ok")
    table.play_round("trap", "correct")  # B first (behind): B fails, A guesses
    assert list(GAME.view(table.state)[0].lines[1:]) == ["A to room 5", "Discard curse of 4"]
    table.press("ok")
    table.play_round("correct", "correct")
    assert list(GAME.view(table.state)[0].lines[1:]) == ["A to 6, B to 4"]
    table = Table.new(start_mode="pickup", monster="troll")
    for _ in range(4):
        table.play_round("trap", "trap")
    table.press("ok")
    table.play_round("trap", "trap")  # both fought the Troll and failed: it stays
    assert list(GAME.view(table.state)[0].lines[1:]) == ["No one moves"]


def test_start_also_leaves_the_report_and_next_is_refused_elsewhere() -> None:
    table = Table.new(start_mode="pickup")
    assert not table.do("next")
    table.play_round("correct", "trap")
    assert table.do("start")  # `do start` as in the replay contract: straight into the turn
    assert table.state.report is None
    assert not table.do("next")
    assert table.rejected == ["there is no round report to move past"] * 2


def test_from_the_map_ok_starts_even_with_the_report_unread() -> None:
    table = Table.new(start_mode="pickup")
    table.play_round("correct", "trap")
    table.press("down")
    assert table.public["page"] == "map"
    assert GAME.control(table.state, Press("ok")) == Action("start")
    table.press("up")
    assert table.public["page"] == "report"


# --- paused: what the buttons give says so -----------------------------------------------------


def test_actions_given_while_paused_carry_the_mark() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    assert GAME.control(table.state, Press("red")) == Action("wrong")
    table.press("ok")
    paused = {"paused": "yes"}
    assert GAME.control(table.state, Press("red")) == Action("wrong", paused)
    assert GAME.control(table.state, Press("green")) == Action("correct", paused)
    assert GAME.control(table.state, Press("red", long=True)) == Action("fail", paused)
    table.press("red", long=True)
    assert GAME.control(table.state, Press("red")) == Action("keep", paused)
    echo = {"game": "trapwords", "card": "curse-echo", "name": "Echo"}
    assert GAME.control(table.state, Tap("0A1B", echo)) == Action(
        "curse", {"card": "curse-echo", "paused": "yes"}
    )


def test_a_wrong_guess_after_a_power_cut_folds_to_the_same_paused_turn() -> None:
    table = Table.new(start_mode="pickup", seconds=30)
    table.do("start", at=0.0)
    table.wait(6.5)  # ticks are not journaled: the last journaled action is the start
    table.state = GAME.restore(table.fold())  # the power comes back 100 s later
    table.timers.clear()
    table.now = 106.5
    assert table.press("red")
    assert table.journal[-1] == Action("wrong", {"paused": "yes"}, at=106.5)
    assert table.fold() == table.state
    assert table.public["timer"] == {"remaining": 30.0, "running": False, "limit": 30.0}
    assert table.press("ok")  # resume
    assert table.fold() == table.state
    assert table.timers["timeout"][0] == pytest.approx(136.5)


def test_a_bad_paused_mark_is_a_bad_action() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    with pytest.raises(BadAction, match="paused='no'"):
        GAME.apply(table.state, Action("wrong", {"paused": "no"}))


# --- every screen fits the OLED ----------------------------------------------------------------

FIT_SETUPS = (
    {"start_mode": "pickup", "monster": "vampire", "nasty": "on", "rooms": "2,4,6,8,10"},
    {"start_mode": "official", "monster": "mummy", "nasty": "on", "tiebreak": "on"},
    {"start_mode": "clue", "monster": "troll", "rooms": "3,4,5,6,7", "curses": "3,4,5,6"},
    {"start_mode": "pickup", "monster": "demon", "rooms": "10,20,30,40,50,60,99", "seconds": "125"},
)
FIT_INPUTS = (
    *(Press("ok"),) * 4,
    *(Press("green"),) * 3,
    *(Press("red"),) * 3,
    Press("red", long=True),
    Press("up"),
    Press("down"),
    Tap("0A1B", {"game": "trapwords", "card": "curse-word-of-terror", "name": "Word of Terror"}),
    Tap("0A1C", {"game": "trapwords", "card": "curse-other", "name": "Mute"}),
)


def every_screen() -> set:
    """The screens of many button-driven games, each once."""
    rng = random.Random(5)
    screens = set()
    for setup in FIT_SETUPS:
        for _ in range(12):
            table = Table.new(**setup)
            for _ in range(250):
                action = GAME.control(table.state, rng.choice(FIT_INPUTS))
                if action is not None:
                    table.do(action.name, **dict(action.args))
                table.wait(rng.choice((0.0, 0.4, 2.0, 9.0, 40.0)))
                screens.add(GAME.view(table.state)[0])
    return screens


def test_every_screen_fits_whole_without_cutting_a_word() -> None:
    screens = every_screen()
    assert len(screens) > 200
    pages = {screen.title.split("  ")[0] for screen in screens}
    assert pages >= {"Trapwords", "End of round 1"}
    for screen in screens:
        if screen.big is not None or screen.picture is not None:
            assert len(screen.lines) <= 1, screen
        assert len(screen.lines) <= 3, screen
        plan = layout(screen)
        texts = {area: [p.text for p in plan.texts if p.area == area] for area in AREAS}
        assert texts["line"] == list(screen.lines), screen
        assert texts["title"] == [screen.title]
        assert texts["footer"] == [screen.footer]
        assert texts["big"] == ([screen.big] if screen.big is not None else [])
        if screen.picture is not None:
            assert plan.picture_box is not None, screen


@pytest.mark.parametrize("options", [{}, {"monster": "mummy", "rooms": "3,4,5"}])
def test_word_of_terror_in_the_first_room_says_so_on_screen(options) -> None:
    """Issue 23, point 6: a room's curse or the Mummy's, the screen says to discard it."""
    table = Table.new(start_mode="pickup", **options)
    for _ in range(2):
        table.play_round("trap", "trap")
    while table.state.report is not None:  # past the end-of-round pages
        assert table.press("ok")
    others = ("curse-flood", "curse-echo", "curse-petrification")
    for card in others[: table.state.curses_to_name - 1]:  # the Word of Terror comes last
        assert table.do("curse", card=card)
    assert table.do("curse", card="curse-word-of-terror")
    lines, _, _ = shown(table)
    assert lines[1] == "No effect: discard it"


def test_the_mummys_curse_curses_the_teams_fighting_it_and_is_named() -> None:
    """Issue 42, point 1: the Mummy's new curse applies to the teams fighting it, and the
    screens name it as they name a room's curse."""
    table = Table.new(start_mode="pickup", monster="mummy", rooms="3,4,5")
    for _ in range(3):  # the Mummy walks 5 -> 4 -> 3; the third round's is fought in room 3
        table.play_round("trap", "trap")
        table.press("ok")
    assert table.state.battling == ("A", "B")
    assert table.public["cursed"] == ["A", "B"]  # drawn but not yet revealed: it applies
    assert table.do("curse", card="curse-echo")
    assert table.public["cursed"] == ["A", "B"]
    lines = shown(table)[0]
    assert "Curse: Echo" in lines
    table.do("start")
    assert "B cursed vs Mummy: 5" in shown(table)[0]  # B gives clues first in round 4


def test_a_void_curse_of_the_mummys_curses_no_one() -> None:
    table = Table.new(start_mode="pickup", monster="mummy", rooms="3,4,5")
    for _ in range(3):
        table.play_round("trap", "trap")
        table.press("ok")
    assert table.do("curse", card="curse-word-of-terror")  # the first room: no effect
    assert table.public["cursed"] == []
    table.do("start")
    assert "B vs Mummy: 5 left" in shown(table)[0]
