"""What the Hostage Trap! box shows: whose turn, what the turn needs or allows, who sits out,
the timer on screen and LED, a claim that never names a hostage before it wins, and that every
key screen fits the OLED without a cut line."""

from __future__ import annotations

from test_hostage_trap_support import Table

from companion.games.base import Press
from companion.games.hostage_trap import GAME
from companion.games.seats import lights
from companion.ui.fonts import ELLIPSIS
from companion.ui.render import layout
from companion.ui.screen import Screen, fraction_color


def lines(table: Table) -> list[str]:
    return GAME.view(table.state)[0].text_lines()


def assert_fits(screen: Screen) -> None:
    assert len(screen.lines) <= (1 if screen.big else 3)
    for placed in layout(screen).texts:
        assert ELLIPSIS not in placed.text, (screen, placed)


def test_the_turn_screen_shows_the_seat_large_its_colour_and_the_draw_reminder() -> None:
    """Ruling 2: at the start of each turn the box reminds the player to draw up."""
    table = Table.new(players=5, hand=6)
    screen, led = GAME.view(table.state)
    assert screen.text_lines() == ["Hostage  T1", "1", "Draw to 6 + hostages", "G draw  R end turn"]
    assert led == lights(1)
    table.do("attack", target=4, result="hit")
    assert lines(table)[2] == "Draw from seat 4"
    table.do("draw", target=4)
    assert lines(table)[2:] == ["Can: ability", "ok more  R end turn"]
    table.do("ability", color="red")
    assert lines(table)[2] == "Done: R ends turn"


def test_seats_sitting_out_are_in_the_title_and_the_reminder_to_take_the_trap() -> None:
    table = Table.new(players=3)
    table.do("draw", target=2)
    table.do("trap", turns=2)
    assert lines(table)[0] == "T2  skip 1x2"
    table.end_turns(2)
    # The news goes in the title; the line keeps the seat's own reminder.
    assert lines(table)[:3] == ["Seat 1 sat out: 1 more", "2", "Draw to 5 + hostages"]
    table.do("ability", color="red")  # the seat acts: the news gives way to the turn numbers
    assert lines(table)[0] == "T5  skip 1x1"
    table.end_turns(2)
    assert lines(table)[0] == "Seat 1: take trap card"
    assert lines(table)[1:3] == ["2", "Draw to 5 + hostages"]  # seat 2's turn, its reminder
    table.end_turns(2)
    assert lines(table)[1:3] == ["1", "Take trap, to 5+hostages"]


def test_pages_show_the_turn_the_news_who_sits_out_and_how_to_win() -> None:
    table = Table.new(players=7)
    for _ in range(4):
        table.do("draw", target=7)
        table.do("trap", turns=2)
    pages = GAME.control(table.state, Press("down")).screens
    titles = [page.title for page in pages]
    assert titles == ["Turn 5: seat 5", "Sitting out", "Sitting out", "To win"]
    assert pages[0].lines == ("Draw to 5 + hostages", "Can: attack, draw,", "peek, ability")
    assert pages[1].lines == ("Seat 1: 2 turns", "Seat 2: 2 turns", "Seat 3: 2 turns")
    assert pages[2].lines == ("Seat 4: 2 turns",)
    for page in pages:
        assert_fits(page)


def test_the_timer_counts_down_on_screen_and_led_and_blinks_before_the_end() -> None:
    table = Table.new(players=3, turn_seconds=40)
    table.wait(10)
    screen, led = GAME.view(table.state)
    assert screen.big == "S1 30s"
    assert led.color == fraction_color(30 / 40) and led.pattern == "solid"
    table.wait(21)
    assert GAME.view(table.state)[1].pattern == "blink"
    table.do("pause")
    screen, led = GAME.view(table.state)
    assert screen.title == "T1  timer paused" and screen.footer == "G resume  R end turn"
    assert screen.lines == ("Draw to 5 + hostages",)  # the reminder stays
    assert led.pattern == "pulse"


def test_a_claim_being_tapped_shows_only_how_many_and_a_win_names_them() -> None:
    table = Table.new(players=4, hostages=3)
    table.do("show", player=3, color="purple")
    table.do("show", color="orange")
    screen, led = GAME.view(table.state)
    # The wait for the next tap, counted down large (15 s from the last tap).
    assert screen.text_lines() == ["Claim: seat 3", "15", "2 of 3 seen: tap more", "R done"]
    table.wait(4.5)
    assert GAME.view(table.state)[0].big == "11"
    assert "purple" not in str(GAME.public(table.state))
    assert led == lights(3, "pulse")
    table.do("show", color="pink")
    assert lines(table)[1:4] == ["Seat 3 wins!", "with 3 hostages", "purple orange pink"]


def test_key_screens_fit_without_a_cut_line() -> None:
    table = Table.new(players=7, hostages=7, turn_seconds=120)
    shown = [GAME.view(table.state)[0]]
    for _ in range(5):
        table.do("draw", target=7)
        table.do("trap", turns=9)
    shown.append(GAME.view(table.state)[0])
    table.wait(200)
    shown.append(GAME.view(table.state)[0])
    table.do("show", player=6, color="blue")
    shown.append(GAME.view(table.state)[0])
    table.wait(10)
    shown.append(GAME.view(table.state)[0])
    table.do("claim", player=6, hostages="blue,red,green,yellow,purple,orange,pink")
    shown.append(GAME.view(table.state)[0])
    for screen in shown:
        assert_fits(screen)


def test_the_draw_up_reminder_says_hostages_do_not_count() -> None:
    """Issue 42, point 4: every seat holds a hostage; the reminder says it is on top of the
    hand drawn up to, on the turn screen, the trap's take-back and the turn page alike."""
    table = Table.new(players=3, hand=7)
    screen = GAME.view(table.state)[0]
    assert screen.lines == ("Draw to 7 + hostages",)
    assert_fits(screen)
    page = GAME.control(table.state, Press("down")).screens[0]
    assert page.lines[0] == "Draw to 7 + hostages"
    table.do("draw", target=2)
    table.do("trap", turns=1)
    while not (table.state.turn == 1 and 1 in table.state.take_back):
        table.end_turns(1)  # seat 1 sits a turn out, then takes the trap back
    screen = GAME.view(table.state)[0]
    assert screen.lines == ("Take trap, to 7+hostages",)
    assert_fits(screen)
