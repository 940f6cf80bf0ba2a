"""Presses, and the box's own menus (game choice, options, the game menu, undo, records, dice
source) with what their answers do; a question of play that waits while the box's menu is over
it. Every function takes the step's ``Draft`` and changes only it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from companion.app import box_menus, cards, phones, play, seat_menus
from companion.app.box_menus import RESUME
from companion.core.registry import Card
from companion.games import registry as games
from companion.games.base import BadAction, Press
from companion.ui import menus, notice

if TYPE_CHECKING:
    from companion.app.draft import Draft

SET_ASIDE = "Set aside?"  # the question, asked with the game's (short) name in it
ASIDE, END = "aside:", "end:"  # its answers, before the game menu's entry they go on with
# the game menu, its question and its players' menus: left, play goes on
GAME_MENUS = ("session", "set_aside", *seat_menus.KINDS)


def on_press(d: Draft, button: str, long: bool) -> None:
    d.dismiss_toast()
    if button == "back":  # the box's own menu opens over a question of play: it waits
        play.cover_play_menu(d)
    if d.menu is not None:
        menu_press(d, button, long)
    elif button == "back":
        if d.session is None:
            box_menus.open_game_menu(d)
        elif long:
            ask_undo(d)
        else:
            box_menus.open_session_menu(d)
    elif d.session is not None:
        play.answer(d, d.session.rules.control(d.session.state, Press(button, long)))
    play.back_under_menu(d)


def ask_undo(d: Draft) -> None:
    session = d.session
    last = session.last_by_person() if session else None
    if last is None:
        d.reject("nothing to undo")
        return
    what = _named(undo_label(session.labels[last]))
    # The step by its own words, never the question of play's (ok says "undo", not "yes": a
    # question open under it is not being answered). A long step's last lines share one.
    what = [*what[:2], " ".join(what[2:])] if len(what) > 2 else what
    d.menu = menus.Confirm("Undo?", tuple(what), menus.Command("undo"), yes="undo")
    # The question stops the game's clock as the game menu does (a long back comes straight
    # here): no turn runs out behind it, and "no" runs it on from where it stood.
    play.pause_play(d)


def _named(label: str) -> list[str]:
    """The step in the three lines a question has: a label longer than that is named without
    its last clauses (after a comma: what the table was told to do next, "..., discard it and
    draw another"), as long as words are left; a label of one clause keeps them all."""
    text = label
    while True:
        lines = notice.wrap(text)
        head, comma, _ = text.rpartition(", ")
        if len(lines) <= 3 or not comma or not head:
            return lines
        text = head


def undo_label(label: str) -> str:
    """What undo names: the step, without the question it put to the table ("AI casts Damage
    3 at Player 1: blocked or taken?" is undone as "AI casts Damage 3 at Player 1")."""
    head, colon, asked = label.rpartition(": ")
    return head if colon and head and asked.endswith("?") else label


def menu_press(d: Draft, button: str, long: bool) -> None:
    menu, command = d.menu.press(button, long)  # menus are frozen: the menu as it leaves it
    if d.menu is d.play_form:  # still the question of play it was
        d.play_form = menu
    d.menu = menu
    menu_command(d, command)
    cards.take_waiting_copies(d)


def menu_command(d: Draft, command: menus.Command) -> None:
    kind, data = command.kind, command.data
    if kind == "stay":
        return
    from_play = d.menu is not None and d.menu is d.play_form
    menu_step(d, kind, data)
    play.after_answer(d, from_play, kind)


def menu_step(d: Draft, kind: str, data: dict) -> None:
    form = d.menu
    if d.remote and kind in ("pick_game", "session") and data["key"] in phones.ONLY_ON_THE_BOX:
        phones.phone_command(d, data["key"])  # refused on a phone: the menu stays as it was
        return
    # The game menu, or its "Set aside?" question, left to play on: play goes on.
    left_session_menu = isinstance(form, menus.ListMenu) and form.on_pick in GAME_MENUS
    # An enrolment run is opened from the session menu: leaving it goes back to play.
    left_run = isinstance(form, menus.EnrolRun) or (isinstance(form, menus.Enrol) and not form.uid)
    # "Undo?" answered no: play goes on, its clock from where the question stopped it.
    left_undo = isinstance(form, menus.Confirm) and form.on_yes.kind == "undo"
    d.menu = None
    play_on = kind == "close" or data.get("key") in ("resume", "dice", "stay")
    if (left_session_menu and play_on) or ((left_run or left_undo) and kind == "close"):
        play.resume_play(d)
    if kind == "close":
        if d.session is None:
            box_menus.open_game_menu(d)
    elif kind == "pick_game" and data["key"] in ("pair_phone", "forget_phones"):
        phones.phone_command(d, data["key"])
    elif kind == "pick_game" and data["key"].startswith(RESUME):
        play.take_up(d, data["key"].removeprefix(RESUME))
    elif kind == "pick_game":
        d.menu = options_menu(data["key"])
    elif kind == "start":
        try:
            play.new_game(d, data["game"], data["options"], set_aside=True)
        except BadAction as err:  # options that do not go together: the form says why
            d.menu = form
            d.reject(str(err))
        else:
            seat_menus.at_start(d)  # names known: who sits where, first (issue 48)
    elif kind == "undo":
        play.undo(d)
    elif kind == "session":
        _session_entry(d, data["key"], data.get("asked", False))
    elif kind == "set_aside":
        _set_aside_answer(d, data["key"])
    elif kind in seat_menus.KINDS:
        seat_menus.step(d, kind, data)
    elif kind == "phones":
        phones.phone_command(d, data["do"])
    elif kind in ("form_done", "form_built", "refused"):  # a form of play answered
        play.form_step(d, kind, data, form)
    elif kind == "play_press":  # pages of play: ok or green go on as on the game screen
        session = d.session
        play.answer(d, session.rules.control(session.state, Press(data["button"], data["long"])))
    elif kind == "dice_entered":
        play.submit(d, replace(data["action"], rolls=data["rolls"]), from_input=True)
    elif kind == "enrol":
        kinds = tuple(games.get(data["game"]).catalog())
        d.menu = menus.Enrol(data["uid"], data["game"], kinds)
    elif kind == "enrol_run":
        d.menu = data["run"]
        d.note(f"enrolling copies of {data['run'].kind.name}")
    elif kind == "enrol_copy":
        d.menu = cards.enrol_copy(d, data["run"], data["uid"])
    elif kind == "enrol_done":
        card = Card(data["uid"], data["game"], data["card"], data["name"], data["fields"])
        cards.enrol(d, card)
        d.note(f"enrolled {card.uid} as {card.name}")
        d.play("card_ok")
        if not play.play_card(d, card):  # the tap that asked for the enrolment counts
            d.toast_up(("Enrolled:", card.name))


def options_menu(name: str) -> menus.OptionsMenu:
    """A game's options before it starts, from the games' data: the game is imported when
    it is played, not when its options are shown."""
    return menus.OptionsMenu(name, games.title(name), games.options(name))


def ask_set_aside(d: Draft, key: str) -> None:
    """Before another game can take the place of one in play: ask, naming it, whether it
    waits in the game list (one of its kind waiting already goes to history), ends now (to
    history) or stays in play."""
    waits = "Wait (old one ends)" if d.session.name in d.world.waiting else "Keep it waiting"
    d.menu = menus.ListMenu(
        f"{SET_ASIDE.removesuffix('?')} {games.short_title(d.session.name)}?",
        (waits, "End it: to history", "Stay in the game"),
        (f"{ASIDE}{key}", f"{END}{key}", "stay"),
        "set_aside",
    )


def _set_aside_answer(d: Draft, answer: str) -> None:
    """The answer to "Set aside?", done as it is given (issue 42, point 10: backing out of
    what follows does not bring the game back): it waits, or ends to history; then the game
    menu's entry goes on. Or back to play."""
    if answer == "stay":  # play went on already (menu_step)
        return
    session = d.session
    kept = play.set_aside_now(d, ending=answer.startswith(END))
    if answer.removeprefix(END).removeprefix(ASIDE) == "new_game":  # the same game, anew
        options = tuple(session.rules.options)
        raw = dict(session.raw_options)
        d.menu = menus.OptionsMenu(session.name, session.rules.title, options, raw)
    else:  # the list shows it waiting (it is waiting from this step on)
        box_menus.open_game_menu(d, also_waiting=(session.name,) if kept else ())


def _session_entry(d: Draft, key: str, asked: bool = False) -> None:
    """An entry of the game menu chosen."""
    session = d.session
    if key in ("new_game", "switch_game") and not asked and play.worth_keeping(session):
        ask_set_aside(d, key)
    elif key == "undo":
        ask_undo(d)
    elif key == "new_game":
        rules = session.rules
        d.menu = menus.OptionsMenu(
            session.name, rules.title, tuple(rules.options), dict(session.raw_options)
        )
    elif key == "switch_game":
        box_menus.open_game_menu(d)
    elif key == "records":
        from companion.ui import records as record_pages  # only when asked for: not at start

        book = record_pages.pages(session.rules.title, d.world.records, session.name)
        if not session.rules.keeps_records:
            book = replace(book, screens=())
        top = seat_menus.player_page(d)  # the players with most wins (issue 48)
        if top is not None:
            book = replace(book, screens=(top, *book.screens))
        d.menu = menus.PageMenu(book)
    elif key == "players":
        seat_menus.open_seats(d)
    elif key == "enrol_run":
        d.menu = menus.Enrol("", session.name, tuple(session.rules.catalog()))
    elif key in ("pair_phone", "forget_phones"):
        phones.phone_command(d, key)
    elif key == "dice":
        d.table_dice = not d.table_dice
        where = "the table's dice" if d.table_dice else "the box"
        d.note(f"dice now come from {where}")
        d.toast_up(("Dice now from", where))
