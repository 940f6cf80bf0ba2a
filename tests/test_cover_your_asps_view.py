"""What the Cover Your Asps box shows (every screen fits whole) and how buttons and card taps
map to actions, menus and pages."""

from __future__ import annotations

import pytest
from cover_your_asps_support import Table
from hypothesis import given, settings
from hypothesis import strategies as st
from test_screen_support import uncut

from companion.games import seats
from companion.games.base import Action, Ask, Pages, Press, Tap
from companion.games.cover_your_asps import GAME
from companion.games.cover_your_asps.view import doubles_pages, pages
from companion.ui import menus
from companion.ui.screen import Screen


def _fits(screen: Screen) -> None:
    assert len(screen.lines) <= 3, screen
    uncut(screen)


def shown(table: Table) -> list[str]:
    screen, _ = GAME.view(table.state)
    _fits(screen)
    return screen.text_lines()


def press(table: Table, button: str):
    return GAME.control(table.state, Press(button))


def test_the_turn_screen_names_the_seat_large_in_its_colour_with_its_phase():
    table = Table.new(players=3)
    table.end_turn()
    assert shown(table) == ["Asps  R1 V1", "2", "Build: plank roll", "G plank  R end turn"]
    assert GAME.view(table.state)[1] == seats.lights(2)


def test_a_seat_that_has_escaped_this_round_is_told_it_builds_on():
    """Rulings 4: one treasure a seat a round; green offers no "built" report it would refuse."""
    table = Table.new(players=2)
    table.to_the_vault()
    table.around()
    table.escape()
    table.end_turn()
    assert shown(table) == ["Asps  R1 V1", "1", "Build on, collect R2", "G plank  R end turn"]
    table.must("plank", 2, 5)
    assert shown(table)[-1] == "ok menu  R end turn"
    menu = press(table, "ok")
    assert isinstance(menu, Ask)
    assert menu.forms[0].refused == "Seat 1 has escaped this round: build on, collect in round 2"


def test_green_makes_the_roll_the_phase_needs():
    table = Table.new()
    assert press(table, "green") == Action("plank")
    table.built()
    table.around()
    assert press(table, "green") == Action("enter")
    assert shown(table)[2:] == ["Collect: entry roll", "G enter  R end turn"]
    table.must("enter", 2, 6)
    assert shown(table)[1:] == ["2  6", "Seat 1: enter on 2/6", "G entered R end turn"]
    assert press(table, "green") == Action("entered")
    table.must("entered")
    table.end_turn()
    table.end_turn()
    assert press(table, "green") == Action("move")
    table.must("move", 5)
    assert shown(table)[1:3] == ["5", "Seat 1: move 5"]
    assert press(table, "red") == Action("next")


def test_draw_planking_says_draw():
    table = Table.new(planking="draw")
    assert shown(table)[-1] == "G draw  R end turn"  # the setup screen
    table.end_turn()
    assert shown(table)[2:] == ["Build: draw a plank", "G draw  R end turn"]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("face", range(1, 7))
def test_a_double_lists_what_it_allows_for_this_many_players(players, face):
    table = Table.new(players=players)
    table.must("plank", face, face)
    lines = shown(table)
    assert lines[1] == f"Double {face}-{face}, either"
    assert lines[2] == "any plank or 1 off"
    extra = {1: 2, 2: 2, 3: 2, 4: 2, 5: 3, 6: 4}[face]
    assert (len(lines) == 5) == (players >= extra)


def test_an_entry_double_enters_anywhere():
    table = Table.new()
    table.built()
    table.around()
    table.must("enter", 5, 5)
    assert shown(table)[1:3] == ["5  5", "Double: enter any plank"]


def test_the_vault_and_escape_checklists_name_the_seat_on_the_right():
    """The scorpion is placed by the seat on the right; the escaping seat puts the pillar in
    the antechamber of the seat on its right (rulings 9)."""
    table = Table.new(players=4)
    table.to_the_vault()
    assert shown(table)[1:] == [
        "Step off the vault",
        "Take a treasure card",
        "Seat 4: a scorpion",
        "^v more  R end turn",
    ]
    assert press(table, "green") is None
    table.around()
    table.must("move", 2)
    table.must("escaped")
    assert shown(table)[1:4] == ["Scorpion off, +1 card", "Uncover one pit", "Seat 4 gets a pillar"]
    page = pages(table.state).screens[1]
    _fits(page)
    assert (page.title, page.lines) == (
        "After the escape",
        ("Seat 1 puts a pillar", "in Seat 4's", "antechamber"),
    )


def test_after_a_report_the_screen_says_what_changed_and_green_offers_no_more():
    """The stale footers of issue 16: after "entered" and after "built" nothing is left for
    green this turn; the screen shows the report, not the roll it followed."""
    table = Table.new()
    table.must("plank", 2, 5)
    assert shown(table)[-1] == "G report  R end turn"
    table.must("built")
    assert shown(table)[1:] == ["1", "Built: enter next", "ok menu  R end turn"]
    assert press(table, "green") is None
    table.around()
    table.must("enter", 6, 5)
    table.must("entered")
    assert shown(table)[1:] == ["1", "Raider in: move next", "ok menu  R end turn"]
    assert press(table, "green") is None
    assert press(table, "red") == Action("next")


def test_after_a_roll_that_cannot_lead_to_a_report_green_offers_nothing():
    """A plank roll while collecting covers a pit; it reaches neither the vault nor the door."""
    table = Table.new()
    table.built()
    table.around()
    table.must("plank", 1, 3)
    assert shown(table)[-1] == "ok menu  R end turn"
    assert press(table, "green") is None


def test_ok_opens_the_seats_menu_with_the_phase_report_first_and_reasons_for_the_rest():
    table = Table.new()
    menu = press(table, "ok")
    assert isinstance(menu, Ask) and menu.title == "Seat 1"
    assert [f.action for f in menu.forms] == ["built", "plank", "card", "next"]
    refused = {f.action: f.refused for f in menu.forms}
    assert refused["built"] == "building to the vault needs a plank (or a card) this turn"
    table.must("plank", 1, 2)
    menu = press(table, "ok")
    refused = {f.action: f.refused for f in menu.forms}
    assert refused["built"] is None
    assert "end the turn" in refused["plank"]


def test_up_and_down_show_the_round_the_vault_the_seats_and_the_doubles():
    table = Table.new(players=4)
    book = press(table, "down")
    assert isinstance(book, Pages)
    first = next(s for s in book.screens if s.title == "Asps  R1 V1")  # after the setup's
    assert first.lines == ("Round 1: level, no step", "Treasure left: 12", "Next: Seat 2")
    titles = [s.title for s in book.screens]
    assert "Seat 3 (green)" in titles
    assert "Double 6-6, 4p" in titles
    for screen in book.screens:
        _fits(screen)


def test_every_doubles_page_fits_for_every_table():
    for players in (2, 3, 4):
        for screen in doubles_pages(players):
            _fits(screen)
    assert doubles_pages(2)[-2].lines[0] == "Needs 4+ players:"


def test_a_tapped_action_card_names_itself_and_is_played_by_the_seat_on_turn():
    table = Table.new()
    card = {"game": "cover-your-asps", "card": "action", "name": "Sandstorm"}
    action = GAME.control(table.state, Tap("0A0B", card))
    assert action == Action("card", {"name": "Sandstorm"})
    table.must(action.name, **action.args)
    assert shown(table)[1:3] == ["1", "Sandstorm"]


def test_a_treasure_card_tap_before_the_end_is_not_needed():
    table = Table.new()
    card = {"game": "cover-your-asps", "card": "treasure", "name": "Treasure card", "points": 4}
    assert GAME.control(table.state, Tap("0A0B", card)) is None


def _over() -> Table:
    table = Table.new(players=2)
    table.raid()
    table.raid()
    for step in (table.build, table.enter):
        step()
        step()
    table.reach_vault()
    table.reach_vault()
    return table


def test_the_end_asks_for_the_next_entry_then_shows_the_standings():
    table = _over()
    assert shown(table) == [
        "Asps  game over",
        "Last treasure taken",
        "Seat 1: points?",
        "a sum, or tap cards",
        "G enter  ok menu",
    ]
    assert pages(table.state).screens[0].lines[0] == "Seat 1: not counted"
    ask = press(table, "green")
    assert isinstance(ask, Ask)
    form = ask.forms[0]
    assert (form.action, form.args) == ("treasure", {"player": 1})
    assert form.fields[0].choices[0] == "3" and form.fields[0].choices[-1] == "30"
    table.must("treasure", player=1, points=20)
    table.must("treasure", player=2, points=11)
    assert shown(table) == [
        "Asps  final",
        "Seat 1 wins!",
        "1. Seat 1  20 pts",
        "2. Seat 2  11 pts",
        "G edit  ^v standings",
    ]
    assert press(table, "green").title == "The count"
    standings = pages(table.state).screens[0]
    assert standings.title == "Standings"


def test_the_count_screen_says_which_way_each_seat_is_counted():
    """Issue 23, point 5: a sum, or the cards one by one."""
    table = _over()
    assert shown(table)[1:4] == ["Last treasure taken", "Seat 1: points?", "a sum, or tap cards"]
    table.must("treasure", player=1, add=6, card="0A01")
    assert shown(table)[1:4] == ["Counting by cards", "Seat 1: 1 of 3 cards", "6 points so far"]
    assert press(table, "green").forms[0].action == "treasure"  # a sum still replaces them
    table.must("treasure", player=1, points=20)
    assert shown(table)[1:3] == ["Last treasure taken", "Seat 2: points?"]
    table.must("treasure", player=2, add=6, card="0A02")
    seat_pages = {s.title.split(" (")[0]: s.lines for s in pages(table.state).screens}
    assert seat_pages["Seat 1"][0] == "Count: a sum"
    assert seat_pages["Seat 2"][0] == "Count: 1 of 3 cards"


def test_a_tie_asks_for_the_tiebreak_of_the_tied_seats():
    table = _over()
    table.must("treasure", player=1, points=9)
    table.must("treasure", player=2, points=9)
    assert shown(table)[2] == "Seat 1: planks left?"
    ask = press(table, "green")
    assert ask.forms[0].action == "planks"


def test_a_treasure_tap_asks_whose_card_starting_with_a_seat_not_yet_counted():
    table = _over()
    card = {"game": "cover-your-asps", "card": "treasure", "name": "Gold", "points": 6}
    ask = GAME.control(table.state, Tap("0A0B", card))
    form = ask.forms[0]
    assert form.args == {"card": "0A0B", "add": 6}
    assert [f.key for f in form.fields] == ["player"]
    assert form.fields[0].start == 0
    table.must("treasure", player=2, add=6, card="0A0B")
    again = GAME.control(table.state, Tap("0A0E", card))
    assert again.forms[0].fields[0].start == 1  # the seat the last card went to
    table.must("treasure", player=2, points=9)  # its sum: seat 2 takes no more cards
    after_sum = GAME.control(table.state, Tap("0A0D", card))
    assert after_sum.forms[0].fields[0].start == 0  # seat 1, not yet counted
    bare = GAME.control(table.state, Tap("0A0C", {"game": "cover-your-asps", "card": "treasure"}))
    assert [f.key for f in bare.forms[0].fields] == ["add", "player"]


def test_a_treasure_card_already_counted_is_refused_at_the_tap_before_any_question():
    """Issue 30 point 11: the same card is never counted twice; the tap says so at once,
    without asking its points and whose it is first."""
    table = _over()
    bare = {"game": "cover-your-asps", "card": "treasure"}
    table.must("treasure", player=1, add=6, card="0A0B")
    for card in (bare, {**bare, "points": 6}):
        ask = GAME.control(table.state, Tap("0A0B", card))
        assert isinstance(ask, Ask) and len(ask.forms) == 1
        assert ask.forms[0].refused == "that card is already counted for Seat 1"
        assert ask.forms[0].fields == ()


def test_solo_screens_and_buttons():
    table = Table.new(players=1)
    assert shown(table) == [
        "Asps  solo",
        "Lay a random plank",
        "near the middle, then",
        "fill the chamber",
        "G roll  R end game",
    ]
    assert press(table, "green") == Action("plank")
    table.must("plank", 4, 4)
    assert shown(table)[1:] == ["4  4", "4 next to 4", "G roll ok laid R end"]
    assert press(table, "ok") == Action("placed")
    table.must("placed")
    assert shown(table)[2:] == ["1 roll, 1 plank", "G roll  R end game"]
    ending = press(table, "red")
    assert [f.action for f in ending.forms] == ["won", "lost"]
    table.must("won")
    assert shown(table) == ["Asps  solo won", "Chamber full!", "1 roll, 1 plank", "^v pages"]
    assert press(table, "green") is None


def test_solo_pages_show_the_setup_and_no_doubles_table():
    """Rulings 8: no doubles in solo; the random plank near the middle comes first."""
    table = Table.new(players=1)
    book = press(table, "down")
    titles = [s.title for s in book.screens]
    assert "Solo setup" in titles
    assert not any("ouble" in s.title or "ouble" in " ".join(s.lines) for s in book.screens)
    for screen in book.screens:
        _fits(screen)


def test_solo_plank_words_say_the_rule_and_no_plank_fits_means_lost_everywhere():
    """Issue 30 point 7: a plank with one rolled number is laid next to one showing the other
    (either way round); a roll that cannot be laid is rolled again, and "no plank fits" is
    only ever the lost game (the end menu, the lost screen and the pages agree)."""
    table = Table.new(players=1)
    table.must("plank", 2, 5)
    assert shown(table)[1:3] == ["2  5", "2 next to 5 or 5 to 2"]
    book = press(table, "down")
    planks = next(s for s in book.screens if s.title == "Solo planks")
    assert planks.lines == ("Lay a plank showing", "one number next to", "one with the other")
    texts = [line for s in book.screens for line in s.lines]
    fits = [line for line in texts if "plank fits" in line.lower()]
    assert fits and all(line == "No plank fits: lost" for line in fits)
    assert any("roll again" in line for line in texts)
    ending = press(table, "red")
    assert [f.label for f in ending.forms][1] == "No plank fits: lost"
    table.must("lost")
    assert shown(table)[1] == "No plank fits"  # the lost game, as the menu said


@pytest.mark.parametrize(("players", "treasure"), [(2, 6), (3, 9), (4, 12)])
def test_the_setup_is_on_the_first_screen_and_pages_until_the_first_turn(players, treasure):
    """Issue 30 point 7: before the first roll the table sets up: treasure cards, 5 pit covers
    for each raider, 4 pillars in the chamber; the pages behind up/down spell it out."""
    table = Table.new(players=players)
    screen = shown(table)
    assert screen == [
        "Asps  setup",
        f"{treasure} treasure cards",
        "5 pit covers each",
        "4 pillars in chamber",
        "G plank  R end turn",
    ]
    assert press(table, "green") == Action("plank")
    book = press(table, "down")
    setup = [s for s in book.screens if s.title.startswith("Setup")]
    assert len(setup) >= 2
    words = " ".join(line for s in setup for line in s.lines)
    assert "shortest" in words and "2 action" in words and "entrance" in words
    for page in setup:
        _fits(page)
    table.must("plank", 2, 5)
    assert shown(table)[0] == "Asps  R1 V1"
    table.end_turn()
    assert shown(table)[:3] == ["Asps  R1 V1", "2", "Build: plank roll"]
    assert not any(s.title.startswith("Setup") for s in press(table, "down").screens)


def test_the_vault_swap_is_said_when_a_round_ends():
    """Issue 30 point 7: the last escape of a round ends it; the next turn's first screen says
    to swap in the next vault (not when the tallest stays)."""
    table = Table.new(players=2)
    for step in (table.build, table.enter, table.reach_vault):
        step()
        step()
    table.escape()
    table.must("move", 3)
    table.must("escaped")
    table.end_turn()
    assert shown(table) == [
        "Asps  R2 V2",
        "Swap in the middle",
        "vault: one step up",
        "Then Seat 1's turn",
        "G plank  R end turn",
    ]
    assert GAME.view(table.state)[1] == seats.lights(1)
    table.must("plank", 2, 5)
    assert "Swap" not in " ".join(shown(table))
    tallest = Table.new(players=2, vault=3)
    tallest.raid()
    assert "Swap" not in " ".join(shown(tallest))


def test_table_dice_are_named():
    table = Table.new()
    names = [d.name for d in GAME.dice_labels(table.state, Action("plank"))]
    assert names == ["Die 1", "Die 2"]
    assert [d.name for d in GAME.dice_labels(table.state, Action("move"))] == ["Move die"]


def test_the_catalog_offers_action_cards_and_treasure_cards_with_points_in_range():
    kinds = {k.id: k for k in GAME.catalog()}
    assert set(kinds) == {"action", "treasure"}
    assert kinds["treasure"].fields == ("points",)
    assert kinds["treasure"].field_range(0) == (1, 10)


# --- the options form ----------------------------------------------------------------------


def _form() -> menus.OptionsMenu:
    return menus.OptionsMenu(GAME.name, GAME.title, tuple(GAME.options))


def test_the_solo_options_form_shows_only_what_applies():
    """Rulings 8: one player has no vault, no tiebreak and the solo planking."""
    form = _form()
    assert [row.strip() for row in form.screen().lines][:1] == ["> Players: 2"]
    assert [o.name for o in form.options] == ["players", "vault", "planking", "tiebreak", "collect"]
    for _ in range(3):  # 2 -> 3 -> 4 -> 1
        form, _ = form.press("ok", False)
    assert form.values["players"] == "1"
    assert form.screen().lines == ("> Players: 1",)
    form, _ = form.press("down", False)
    assert form.screen().lines == ("> Players: 1",)
    form, start = form.press("green", False)
    assert start.data == {"game": "cover-your-asps", "options": {"players": "1"}}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["up", "down", "ok"]), max_size=30))
def test_the_options_form_always_offers_what_applies_and_starts_a_valid_game(presses):
    form = _form()
    for button in presses:
        form, _ = form.press(button, False)
        names = [o.name for o in form.options]
        solo = form.values["players"] == "1"
        assert names == (
            ["players"] if solo else ["players", "vault", "planking", "tiebreak", "collect"]
        )
        assert 0 <= form.cursor < len(names)
        assert len(form.screen().lines) == min(3, len(names))
    form, start = form.press("green", False)
    options = GAME.check_options(start.data["options"])
    assert set(start.data["options"]) == {o.name for o in form.options}
    assert options["players"] == int(form.values["players"])


def test_the_race_reading_is_a_plain_option_of_the_table_game():
    """Issue 42, point 6: "Collect: per-round" by default, "Collect: race" one press away."""
    form = _form()
    for _ in range(4):
        form, _ = form.press("down", False)
    assert form.screen().lines[-1].strip() == "> Collect: per-round"
    form, _ = form.press("ok", False)
    assert form.values["collect"] == "race"
    form, start = form.press("green", False)
    assert start.data["options"]["collect"] == "race"
    assert GAME.check_options(start.data["options"])["collect"] == "race"
