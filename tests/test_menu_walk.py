"""The menu kit's hooks for a game whose menus differ from the kit's defaults: questions that
follow from earlier answers, answers that make the action in code, and how a ``Walk`` moves."""

from __future__ import annotations

from companion.ui.forms import Ask, Field, Form, Pages, Walk
from companion.ui.menus import FormMenu, PageMenu
from companion.ui.screen import Screen

NUMBERS = tuple(str(n) for n in range(0, 13))


def _numbers_menu(walk: Walk) -> FormMenu:
    form = Form("Pick", "pick", (Field("n", "Number", NUMBERS, start=2),))
    menu = FormMenu(Ask("Pick", (form,), walk))
    menu, _ = menu.start()
    return menu


def test_the_default_walk_is_unchanged_down_moves_on_and_a_long_press_stops_at_the_end():
    menu = _numbers_menu(Walk())
    menu, _ = menu.press("down", False)
    assert menu.cursor == 3
    menu, _ = menu.press("up", True)
    assert menu.cursor == 0  # five back from 3, held at the top


def test_up_raises_a_number_and_a_long_press_in_a_long_list_goes_round():
    menu = _numbers_menu(Walk(up_raises=True, long_after=10, long_wraps=True))
    menu, _ = menu.press("up", False)
    assert menu.showing().question.shown(menu.cursor) == "3"
    menu, _ = menu.press("down", True)
    assert menu.cursor == (3 - 5) % len(NUMBERS)  # round the end
    short = Form("Pick", "pick", (Field("n", "Number", ("1", "2", "3")),))
    small = FormMenu(Ask("Pick", (short,), Walk(up_raises=True, long_after=10)))
    small, _ = small.start()
    small, _ = small.press("up", True)  # a short list: a long press is one step
    assert small.cursor == 1


def test_later_questions_follow_earlier_answers_and_the_answers_build_the_reply():
    def more(answers):
        first = Field("crystal", "Crystal?", ("yes", "no"))
        return (
            (first, Field("space", "Space", NUMBERS))
            if answers.get("crystal") != "no"
            else (first,)
        )

    built = []
    form = Form("Finish", "finish", more({}), {"player": "1"}, more=more, build=built.append)
    menu = FormMenu(Ask("Finish", (form,)))
    menu, _ = menu.start()
    menu, _ = menu.press("down", False)  # no
    menu, done = menu.press("ok", False)
    assert done.kind == "form_built"
    assert built == [{"player": "1", "crystal": "no"}]


def test_back_keeps_the_answer_it_had_when_the_walk_says_so():
    fields = (Field("a", "A", ("x", "y", "z")), Field("b", "B", ("p", "q")))
    for keeps, cursor in ((True, 2), (False, 0)):
        menu = FormMenu(Ask("Two", (Form("Two", "two", fields),), Walk(back_keeps=keeps)))
        menu, _ = menu.start()
        menu, _ = menu.press("down", False)
        menu, _ = menu.press("down", False)
        menu, _ = menu.press("ok", False)
        assert menu.showing().question.key == "b"
        menu, _ = menu.press("red", False)
        assert (menu.showing().question.key, menu.cursor) == ("a", cursor)


def test_showing_names_the_list_the_question_and_the_page():
    ask = Ask("Menu", (Form("One", "one"), Form("Two", "two", (Field("k", "K?", ("a",)),))))
    menu = FormMenu(ask)
    assert (menu.showing().kind, menu.showing().labels) == ("list", ("One", "Two"))
    menu, _ = menu.press("down", False)
    menu, _ = menu.press("ok", False)
    assert (menu.showing().kind, menu.showing().question.label) == ("question", "K?")
    pages = PageMenu(Pages((Screen("P1"), Screen("P2")), 1))
    assert (pages.showing().kind, pages.showing().title) == ("pages", "P2")


def test_pages_in_play_hand_ok_on_to_the_game_and_close_only_on_red():
    one = PageMenu(Pages((Screen("Only"),), walk=Walk(in_play=True)))
    assert one.press("down", False)[1].kind == "stay"  # one page: it stays
    assert one.press("green", False)[1].data == {"button": "green", "long": False}
    assert one.press("red", False)[1].kind == "close"
    plain = PageMenu(Pages((Screen("Only"),)))
    assert plain.press("down", False)[1].kind == "close"  # the kit's default: any other closes
