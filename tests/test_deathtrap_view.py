"""Deathtrap Dungeon screens and the control map: every screen of 4 to 8 seats renders whole on
the 128x64 OLED, buttons and tapped cards become the right actions, menus and pages."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_deathtrap_support import new, run
from test_screen_support import uncut

from companion.games import seats
from companion.games.base import Action, Ask, Pages, Press, Tap
from companion.games.deathtrap_dungeon import GAME, view
from companion.games.deathtrap_dungeon.state import Table
from companion.ui import menus
from companion.ui.render import layout

PACK = GAME.pack


def screen(state):
    return GAME.view(state)[0]


def started(players: int = 4):
    return run(new(players=str(players)), "pig player=1")


def tap(card: str, uid: str = "04AA", **fields: int) -> Tap:
    return Tap(uid, {"game": "deathtrap-dungeon", "card": card, "name": card, **fields})


# --- screens ---------------------------------------------------------------------------------


def test_turn_screen_shows_the_seat_large_beside_the_seats_and_the_table_under_them() -> None:
    state = run(started(8), "play n=3 value=2 wild=1 set=orc", "pass", "pass")
    shown = screen(state)
    assert shown.big == "5"
    assert shown.lines == ("S2: 2 x Orc +1 wild",)
    assert shown.footer == "G play  R pass"
    assert shown.picture == ("seats", (8, 5, (3, 4), (), 2))
    plan = layout(shown)
    big = next(p for p in plan.texts if p.area == "big")
    assert plan.picture_box is not None and big.box[2] <= plan.picture_box[0]
    uncut(shown)
    assert GAME.view(state)[1] == seats.lights(5, "solid")


def _mark(out: tuple[int, ...], passed: tuple[int, ...] = ()) -> set[tuple[int, int]]:
    """The pixels the seats picture adds for seat 2 being out (or passed)."""
    from PIL import Image, ImageDraw

    from companion.ui.pictures import seats as draw_seats

    def drawn(data: tuple) -> set[tuple[int, int]]:
        image = Image.new("1", (88, 30))
        draw_seats(ImageDraw.Draw(image), (0, 0, 88, 30), data)
        return {(x, y) for x in range(88) for y in range(30) if image.getpixel((x, y))}

    return drawn((4, 1, passed, out, 0)) - drawn((4, 1, (), (), 0))


def test_a_seat_out_this_round_is_marked_done_not_crossed_out() -> None:
    """Issue 23, point 8: going out first is good news; an x under the seat read as
    "eliminated". The mark is a tick: its top-left corner is empty, its top-right drawn."""
    mark = _mark(out=(2,))
    left, top = min(x for x, _ in mark), min(y for _, y in mark)
    right = max(x for x, _ in mark)
    assert (left, top) not in mark and (right, top) in mark
    assert mark != _mark(out=(), passed=(2,))


def test_the_end_of_a_hand_says_who_won_and_leads() -> None:
    state = run(started(), "play n=1 value=3", "pass", "pass", "pass")
    assert screen(state).lines == ("S2 won the hand: lead",)
    state = run(started(), "play n=1 value=3 out=yes", "pass", "pass", "pass")
    assert screen(state).lines == ("S2 won, is out: S3 leads",)
    assert screen(state).big == "3"
    state = run(started(), "killing_machine player=4")
    assert screen(state).lines == ("Killing Machine S4",)


def test_the_words_name_the_seat_that_leads_as_the_big_digit_does() -> None:
    """Issue 42, point 9: "Pig S1: lead" while seat 2 led, "S2 won, is out: lead" while seat 4
    led. Every hand's first screen names the leader in words, the seat the big digit shows."""
    state = started()
    assert screen(state).lines == ("Pig S1: S2 leads",) and screen(state).big == "2"
    state = run(started(), "play n=1 value=3 out=yes", "play n=1 value=4 out=yes")
    state = run(state, "pass", "pass")  # seat 3 won the hand but is out: seat 4 leads
    assert screen(state).big == "4" and screen(state).lines == ("S3 won, is out: S4 leads",)
    state = run(started(8), "killing_machine player=5 out=yes")
    assert screen(state).big == "6" and screen(state).lines == ("Killing Machine: S6 leads",)
    for players in range(4, 9):
        uncut(screen(run(new(players=str(players)), f"pig player={players}")))


def test_tapped_play_blinks_in_the_seat_colour_and_red_clears() -> None:
    state = run(started(), "add card=orc value=2", "add card=wild")
    shown, lights = GAME.view(state)
    assert shown.lines == ("Play? 1 x Orc +1 wild",)
    assert shown.footer == "G play  R clear"
    assert lights.pattern == "blink"


@pytest.mark.parametrize("players", range(4, 9))
def test_every_turn_screen_of_every_table_renders_whole(players: int) -> None:
    longest = max(PACK.sets, key=lambda s: len(s.name))
    for n, wild, seat in itertools.product((1, 9, 12), (0, 1, 2), range(1, players + 1)):
        if wild > n:
            continue
        state = run(new(players=str(players)), "pig player=1")
        table = Table(n, longest.value, seat, wild, longest.id)
        passed = tuple(s for s in range(1, players + 1) if s != seat)[:-1]
        state = state.__class__(
            **{**state.__dict__, "table": table, "passed": passed, "turn": seat}
        )
        uncut(screen(state))
        state = run(state, f"add card={longest.id} value={longest.value}", "add card=wild")
        uncut(screen(state))


def test_deal_screens_results_and_exchanges_render_whole_for_eight() -> None:
    state = started(8)
    for seat in (1, 2, 3, 4, 5, 6, 7):
        while state.turn != seat:
            state = run(state, "pass" if state.table else f"killing_machine player={seat}")
        state = run(state, "play n=1 value=1 out=yes")
        while state.phase == "play" and state.table is not None:
            state = run(state, "pass")
    assert state.phase == "deal"
    uncut(screen(state))
    assert screen(state).lines[0] == "R1: S1 big hero"
    pages = view.pages(state, PACK)
    for page in pages:
        uncut(page)
    swaps = [p for p in pages if p.title.startswith("Swap")]
    # Between rounds: no special card is given, and the cards pass face down (in secret).
    assert [p.title for p in swaps] == ["Swap 1/2, in secret", "Swap 2/2, in secret"]
    assert swaps[0].lines == (
        "Seat 8 gives seat 1",
        "2 highest, no specials;",
        "seat 1 gives back any 2",
    )
    assert swaps[1].lines == (
        "Seat 7 gives seat 2",
        "highest, no specials;",
        "seat 2 gives back any 1",
    )
    results = [line for p in pages if p.title.startswith("Round 1") for line in p.lines]
    assert results[0] == "1. S1 Big hero +8" and results[-1] == "8. S8 Total wimp +1"
    assert results[3] == "4. S4 +5"


def test_game_over_screen_and_standings() -> None:
    state = run(new(rounds="1"), "pig player=1")
    for _ in range(3):
        state = run(state, "play n=1 value=1 out=yes")
        while state.phase == "play" and state.table is not None:
            state = run(state, "pass")
    assert state.phase == "over"
    shown = screen(state)
    uncut(shown)
    assert shown.lines[0] == "Seat 2 wins!"
    assert shown.footer == "^v standings  back: menu"  # issue 42, point 14: how to go on
    pages = GAME.control(state, Press("down"))
    assert isinstance(pages, Pages) and pages.screens[0].lines[0] == "Seat 2 wins!"


def test_the_log_of_the_end_says_wins_for_one_seat() -> None:
    """Issue 42, point 13: "game over: seat 3 win"."""
    from test_deathtrap_support import act

    from companion.games.base import Log

    state = run(new(rounds="1"), "pig player=1")
    logs: list[str] = []
    while state.phase != "over":
        line = "pass" if state.table is not None else "play n=1 value=1 out=yes"
        outcome = GAME.apply(state, act(line))
        state = outcome.state
        logs += [e.text for e in outcome.effects if isinstance(e, Log)]
    assert "game over: seat 2 wins" in logs


# --- buttons -------------------------------------------------------------------------------


def test_green_submits_the_tapped_play_and_a_long_green_goes_out() -> None:
    state = run(started(), "add card=orc value=2 uid=1", "add card=wild uid=2")
    expected = {"n": 2, "value": 2, "wild": 1, "set": "orc"}
    assert GAME.control(state, Press("green")) == Action("play", expected)
    assert GAME.control(state, Press("green", long=True)) == Action(
        "play", {**expected, "out": "yes"}
    )
    assert GAME.control(state, Press("red")) == Action("clear")


def test_without_taps_green_asks_for_the_play_with_the_buttons() -> None:
    state = run(started(), "play n=2 value=3")
    ask = GAME.control(state, Press("green"))
    assert isinstance(ask, Ask)
    form = ask.forms[0]
    assert form.action == "play" and form.args == {"n": 2}
    keys = [f.key for f in form.fields]
    assert keys == ["value", "wild", "out"]
    value = form.fields[0]
    assert value.choices[value.start] == "4"  # the first set that beats 3
    assert value.choices[0] == "4"  # issue 30 point 11: nothing that cannot beat the table
    assert GAME.control(state, Press("red")) == Action("pass")
    lead = GAME.control(started(), Press("green")).forms[0]
    assert [f.key for f in lead.fields] == ["n", "value", "wild", "out"]


def _wild_question(state, n: str | None = None, value: str | None = None) -> menus.FormMenu:
    """The button form after answering the count with ``n`` and the set with ``value`` (the
    form's first choice of set when None)."""
    menu = menus.FormMenu(GAME.control(state, Press("green")))
    menu, _ = menu.start()
    if n is not None:
        assert menu.screen().title == "How many cards?"
        field = menu.form.fields[0]
        while field.choices[menu.cursor] != n:
            menu, _ = menu.press("down", False)
        menu, _ = menu.press("ok", False)
    if value is not None:
        while menu._field().choices[menu.cursor] != value:
            menu, _ = menu.press("down", False)
    menu, _ = menu.press("ok", False)  # the set
    return menu


def _wild_choices(state, n: str | None = None) -> tuple[str, ...]:
    menu = _wild_question(state, n)
    assert menu.screen().title.startswith("Wilds among ")
    return menu._field().choices


def test_the_button_form_offers_no_more_wilds_than_cards() -> None:
    """Issue 16: a 1-card play cannot hold 2 wilds; with a set named, at least one card of
    the set is in the play (issue 23, point 8): the form offers 0..cards-1."""
    assert _wild_choices(started(), "2") == ("0", "1")
    assert _wild_choices(started(), "5") == ("0", "1", "2")  # the pack holds 2 wilds
    assert _wild_choices(run(started(), "play n=3 value=3")) == ("0", "1", "2")
    assert _wild_choices(run(started(), "play n=2 value=3")) == ("0", "1")


def test_the_wild_question_says_how_many_cards_the_play_has() -> None:
    """Issue 23, point 8."""
    assert _wild_question(started(), "3").screen().title == "Wilds among 3 cards?"
    table = run(started(), "play n=2 value=3")
    assert _wild_question(table).screen().title == "Wilds among 2 cards?"


def test_a_play_of_wilds_only_asks_no_wild_count() -> None:
    """Issue 23, point 8: after "Wilds only" the form offered 0 wilds (a play the rules
    refuse); now every card is a wild and the next question is the last-cards one."""
    menu = _wild_question(started(), "2", value="0")
    assert menu.screen().title == "Last cards?"
    menu, command = menu.press("ok", False)
    assert command.kind == "form_built"
    assert command.data["reply"] == Action("play", {"n": "2", "value": "0", "wild": 2, "out": "no"})
    single = _wild_question(started(), "1")  # one card of a set: no wild can be among it
    assert single.screen().title == "Last cards?"


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 4),
    st.lists(st.sampled_from(["up", "down", "ok", "back"]), max_size=30),
)
def test_a_play_entered_with_the_buttons_is_one_the_rules_take(table_n, presses):
    """Whatever the table holds and however the form is answered (or stepped back through),
    the play it builds has 0 <= wild <= n, only wilds exactly with value 0."""
    state = started() if table_n == 0 else run(started(), f"play n={table_n} value=1")
    menu = menus.FormMenu(GAME.control(state, Press("green")))
    menu, _ = menu.start()
    for button in presses:
        shown = menu.screen()
        if shown.title.startswith("Wilds among "):
            bound = int(menu.values.get("n", table_n or 0))
            assert shown.title == f"Wilds among {bound} cards?"
            cards = max(s.cards for s in PACK.sets if str(s.value) == menu.values["value"])
            assert [int(c) for c in menu._field().choices] == list(
                range(max(0, bound - cards), min(bound - 1, PACK.wilds) + 1)
            )
        menu, command = menu.press(button, False)
        if command.kind == "form_built":
            action = command.data["reply"]
            n, wild = int(action.args["n"]), int(action.args["wild"])
            assert action.name == "play" and 0 <= wild <= n
            assert (wild == n) == (int(action.args["value"]) == 0)
            break
        assert command.kind != "form_done"
        if command.kind == "close":
            break


def _set_choices(state, n: str | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The "Which set?" question's values and names (after the count ``n`` on a lead)."""
    menu = menus.FormMenu(GAME.control(state, Press("green")))
    menu, _ = menu.start()
    if n is not None:
        field = menu.form.fields[0]
        while field.choices[menu.cursor] != n:
            menu, _ = menu.press("down", False)
        menu, _ = menu.press("ok", False)
    assert menu.screen().title == "Which set?"
    field = menu._field()
    return field.choices, tuple(field.shown(i) for i in range(len(field.choices)))


def test_the_button_form_offers_only_plays_that_beat_the_table() -> None:
    """Issue 30 point 11, as the rulings promise ("only plays the rules take"): on a table only
    sets worth more, never "Wilds only" (worth 0); on a lead only sets (and wilds) that can
    make the count; when nothing can beat the table the entry says so at once."""
    values, names = _set_choices(run(started(), "play n=2 value=7"))
    assert values == ("8", "9", "10") and "Wilds only" not in names
    assert _set_choices(run(started(), "play n=1 value=0 wild=1"))[0][0] == "1"
    lead, lead_names = _set_choices(started(), "3")  # 3 cards: 2 wilds cannot make them
    assert "Wilds only" not in lead_names and lead[0] == "1"
    assert _set_choices(started(), "2")[1][0] == "Wilds only"
    most = str(PACK.largest_set + PACK.wilds)  # 8: only with both wilds
    assert _wild_choices(started(), most) == (str(PACK.wilds),)
    top = run(started(), "play n=1 value=10")
    ask = GAME.control(top, Press("green"))
    assert ask.forms[0].refused == "nothing beats 1 worth 10: pass"
    assert GAME.control(top, Press("ok")).forms[0].refused == ask.forms[0].refused
    for table_n in range(1, 6):
        for table_value in range(0, 11):
            if table_value == 0 and table_n > PACK.wilds:
                continue
            wild = table_n if table_value == 0 else 0
            state = run(started(), f"play n={table_n} value={table_value} wild={wild}")
            form = GAME.control(state, Press("green")).forms[0]
            if form.refused:
                continue
            for value in form.questions({})[0].choices:
                assert int(value) > table_value


def test_ok_opens_the_seat_menu_with_no_pass_for_the_leader() -> None:
    """Issue 23, point 8: the leader puts cards down, so the menu offers no Pass."""
    menu = GAME.control(started(), Press("ok"))
    assert [f.label for f in menu.forms] == ["Play cards", "Killing Machine"]
    answer = GAME.control(run(started(), "play n=1 value=3"), Press("ok"))
    assert [f.label for f in answer.forms] == ["Play cards", "Pass", "Killing Machine"]


def test_pig_is_asked_in_the_deal_with_the_leader_when_the_holder_chooses() -> None:
    ask = GAME.control(new(pig="choose"), Press("green"))
    assert [f.key for f in ask.forms[0].fields] == ["player", "lead"]
    assert GAME.control(new(), tap("exploding-pig")).forms[0].fields[0].key == "player"
    assert GAME.control(started(), tap("exploding-pig")) is None


# --- taps ----------------------------------------------------------------------------------


def test_a_tapped_set_card_or_wild_joins_the_play_with_its_tag() -> None:
    state = started()
    assert GAME.control(state, tap("orc", "04A1")) == Action(
        "add", {"card": "orc", "value": 2, "uid": "04A1"}
    )
    enrolled = GAME.control(state, tap("orc", "04A1", value=4))
    assert enrolled.args["value"] == 4  # the value set at enrolment wins
    assert GAME.control(state, tap("red-lotus", "04B2")) == Action(
        "add", {"card": "wild", "uid": "04B2"}
    )
    assert GAME.control(new(), tap("orc")) is None  # not during the deal


def test_a_tapped_killing_machine_asks_which_seat_starting_with_the_seat_on_turn() -> None:
    state = run(started(6), "play n=1 value=2", "pass")
    ask = GAME.control(state, tap("killing-machine"))
    player = ask.forms[0].fields[0]
    assert player.key == "player" and player.choices[player.start] == "4"
    assert ask.forms[0].fields[1].key == "out"


def _fields_after_set(state, value: str) -> list[str]:
    """The keys the button form asks once the set ``value`` is chosen (the table fixes n)."""
    form = GAME.control(state, Press("green")).forms[0]
    return [f.key for f in form.questions({"value": value})]


def test_wilds_put_down_this_round_are_not_offered_again() -> None:
    """Issue 42, point 5: both wilds went down in one play; the next seat is offered none,
    nor is a later lead of the round ("Wilds only" too); the next round has both again."""
    state = run(started(), "play n=3 value=2 wild=2 set=orc")
    assert _fields_after_set(state, "3") == ["value", "out"]  # no wild question
    one = run(started(), "play n=3 value=2 wild=1 set=orc")
    assert _wild_choices(one) == ("0", "1")  # one wild is left in the pack's hands
    cleared = run(state, "pass", "pass", "pass")  # seat 1 wins the hand and leads again
    assert cleared.table is None
    menu = menus.FormMenu(GAME.control(cleared, Press("green")))
    menu, _ = menu.start()
    assert menu.form.fields[0].choices[-1] == str(PACK.largest_set)  # no wild to add
    assert (
        "0" not in GAME.control(cleared, Press("green")).forms[0].questions({"n": "1"})[1].choices
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=4))
def test_the_wilds_offered_leave_out_those_down_this_round(wilds: list[int]) -> None:
    """Leads of 3 cards with some wilds, each hand won by its leader: the next lead is offered
    at most the pack's wilds less every wild put down so far this round."""
    state = started(8)
    down = 0
    for wild in wilds:
        if down + wild > PACK.wilds:
            break
        leader = state.turn
        state = run(state, f"play n=3 value=2 wild={wild} set=orc", *["pass"] * 7)
        down += wild
        assert state.table is None and state.turn == leader
        form = GAME.control(state, Press("green")).forms[0]
        offered = form.questions({"n": "3", "value": "2"})
        asked = [f for f in offered if f.key == "wild"]
        most = max((int(c) for c in asked[0].choices), default=0) if asked else 0
        assert most == min(2, PACK.wilds - down)
