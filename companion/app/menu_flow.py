"""Presses, and the box's own menus (game choice, options, the game menu, undo, records, dice
source) with what their answers do; a question of play that waits while the box's menu is over
it. Every function takes the step's ``Draft`` and changes only it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from companion.app import cards, phones, play
from companion.core.registry import Card
from companion.games import registry as games
from companion.games.base import Action, Ask, BadAction, Press, Reply
from companion.ui import menus, notice
from companion.ui import records as record_pages

if TYPE_CHECKING:
    from companion.app.step import Draft

RESUME = "resume:"  # a game list entry that takes up the game of that kind set aside
SET_ASIDE = "Set aside?"  # the question, asked with the game's (short) name in it
ASIDE, END = "aside:", "end:"  # its answers, before the game menu's entry they go on with
GAME_MENUS = ("session", "set_aside")  # the game menu and its question: left, play goes on


def on_press(d: Draft, button: str, long: bool) -> None:
    d.dismiss_toast()
    if button == "back":  # the box's own menu opens over a question of play: it waits
        cover_play_menu(d)
    if d.menu is not None:
        menu_press(d, button, long)
    elif button == "back":
        if d.session is None:
            open_game_menu(d)
        elif long:
            ask_undo(d)
        else:
            open_session_menu(d)
    elif d.session is not None:
        play.answer(d, d.session.rules.control(d.session.state, Press(button, long)))
    back_under_menu(d)


def cover_play_menu(d: Draft) -> None:
    """The box's own menu is about to open: a menu that is a part of play waits under it."""
    if play.in_play_menu(d):
        d.under_menu = (d.menu, d.session.state)
        d.menu = d.play_form = None


def back_under_menu(d: Draft) -> None:
    """The box's menu is gone: the question of play it covered comes back, if play is where
    it was (an undo or a new game took it away)."""
    waiting, d.under_menu = d.under_menu, None
    if waiting is None or d.menu is not None:
        d.under_menu = waiting
        return
    menu, state = waiting
    if d.session is not None and d.session.state is state:
        d.menu = d.play_form = menu


def open_game_menu(d: Draft) -> None:
    """The choice of game; the games set aside are offered first, the newest on top, each by
    a name that fits the line."""
    waiting = [n for n in reversed(d.world.waiting) if n in games.available()]
    names = [*(f"{RESUME}{n}" for n in waiting), *games.available()]
    titles = [*(f"Resume {games.short_title(n)}" for n in waiting)]
    titles += [games.title(n) for n in games.available()]
    phone_items, phone_keys = phones.phone_items(d)  # phones may pair before any game
    titles, names = [*titles, *phone_items], [*names, *phone_keys]
    d.menu = menus.ListMenu("Choose a game", titles, names, "pick_game")


def pause_play(d: Draft) -> None:
    """The box's menu opens: what the game does when its play stops around it (a turn timer
    pauses), submitted as an automatic step."""
    session = d.session
    action = session.rules.pause_action(session.state) if session else None
    if action is not None:
        play.submit(d, action, from_input=True, auto=True)


def resume_play(d: Draft) -> None:
    """The box's menu is left to play on: what the game does then (the timer runs again)."""
    session = d.session
    action = session.rules.resume_action(session.state) if session else None
    if action is not None:
        play.submit(d, action, from_input=True, auto=True)


def open_session_menu(d: Draft) -> None:
    pause_play(d)
    rules = d.session.rules
    items = ["Resume", "Undo last", "New game", "Other game"]
    keys = ["resume", "undo", "new_game", "switch_game"]
    if rules.uses_dice:  # a game without dice: no choice
        items.append("Dice: table" if d.table_dice else "Dice: box")
        keys.append("dice")
    if rules.keeps_records:
        items.append("Records")
        keys.append("records")
    if tuple(rules.catalog()):
        items.append("Enrol copies")
        keys.append("enrol_run")
    phone_items, phone_keys = phones.phone_items(d)
    items += phone_items
    keys += phone_keys
    d.menu = menus.ListMenu(rules.title, items, keys, "session")


def ask_undo(d: Draft) -> None:
    session = d.session
    last = session.last_by_person() if session else None
    if last is None:
        d.reject("nothing to undo")
        return
    what = notice.wrap(undo_label(session.labels[last]))
    # The step by its own words, never the question of play's (ok says "undo", not "yes": a
    # question open under it is not being answered). A long step's last lines share one.
    what = [*what[:2], " ".join(what[2:])] if len(what) > 2 else what
    d.menu = menus.Confirm("Undo?", tuple(what), menus.Command("undo"), yes="undo")


def undo_label(label: str) -> str:
    """What undo names: the step, without the question it put to the table ("AI casts Damage
    3 at Player 1: blocked or taken?" is undone as "AI casts Damage 3 at Player 1")."""
    head, colon, asked = label.rpartition(": ")
    return head if colon and head and asked.endswith("?") else label


def built(d: Draft, reply: Reply, form: Any) -> None:
    """What a finished form built: an action, or another menu to open. A menu that is a
    part of play stays as it was when that is refused."""
    if not (isinstance(form, menus.FormMenu) and form.ask.walk.in_play):
        play.answer(d, reply)
        return
    d.menu = None
    if isinstance(reply, Action):
        state = d.session.state
        if not play.submit(d, reply, from_input=True):
            if d.menu is None:
                d.menu = d.play_form = form
            elif isinstance(d.menu, menus.DiceEntry):  # the table's dice: it waits
                d.under_menu = (form, state)
        return
    if isinstance(reply, Ask) and len(reply.forms) == 1 and reply.forms[0].refused:
        d.menu = d.play_form = form
        d.reject(reply.forms[0].refused)
        return
    play.answer(d, reply)


def menu_press(d: Draft, button: str, long: bool) -> None:
    menu_command(d, d.menu.press(button, long))
    cards.take_waiting_copies(d)


def menu_command(d: Draft, command: menus.Command) -> None:
    kind, data = command.kind, command.data
    if kind == "stay":
        return
    from_play = d.menu is not None and d.menu is d.play_form
    menu_step(d, kind, data)
    if from_play and d.menu is not d.play_form:
        d.play_form = None
        cards.take_held_taps(d, answered=kind != "close")
    back_under_menu(d)


def menu_step(d: Draft, kind: str, data: dict) -> None:
    form = d.menu
    # The game menu, or its "Set aside?" question, left to play on: play goes on.
    left_session_menu = isinstance(form, menus.ListMenu) and form.on_pick in GAME_MENUS
    # An enrolment run is opened from the session menu: leaving it goes back to play.
    left_run = isinstance(form, menus.EnrolRun) or (isinstance(form, menus.Enrol) and not form.uid)
    d.menu = None
    play_on = kind == "close" or data.get("key") in ("resume", "dice", "stay")
    if (left_session_menu and play_on) or (left_run and kind == "close"):
        resume_play(d)
    if kind == "close":
        if d.session is None:
            open_game_menu(d)
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
    elif kind == "undo":
        play.undo(d)
    elif kind == "session":
        _session_entry(d, data["key"], data.get("asked", False))
    elif kind == "set_aside":
        _set_aside_answer(d, data["key"])
    elif kind == "phones":
        phones.phone_command(d, data["do"])
    elif kind == "form_done":
        play.submit(d, Action(data["name"], data["args"]), from_input=True)
    elif kind == "form_built":
        built(d, data["reply"], form)
    elif kind == "play_press":  # pages of play: ok or green go on as on the game screen
        session = d.session
        play.answer(d, session.rules.control(session.state, Press(data["button"], data["long"])))
    elif kind == "refused":
        if isinstance(form, menus.FormMenu) and form.ask.walk.in_play:
            d.menu = form  # refused as an action is: the menu stays as it was
        d.reject(data["reason"])
    elif kind == "dice_entered":
        play.submit(d, replace(data["action"], rolls=data["rolls"]), from_input=True)
    elif kind == "enrol":
        kinds = tuple(games.get(data["game"]).catalog())
        d.menu = menus.Enrol(data["uid"], data["game"], kinds)
    elif kind == "enrol_run":
        d.menu = data["run"]
        d.note(f"enrolling copies of {data['run'].kind.name}")
    elif kind == "enrol_copy":
        d.menu = data["run"]
        cards.enrol_copy(d, data["run"], data["uid"])
    elif kind == "enrol_done":
        card = Card(data["uid"], data["game"], data["card"], data["name"], data["fields"])
        cards.enrol(d, card)
        d.note(f"enrolled {card.uid} as {card.name}")
        d.play("card_ok")
        if not cards.play_card(d, card):  # the tap that asked for the enrolment counts
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
        [waits, "End it: to history", "Stay in the game"],
        [f"{ASIDE}{key}", f"{END}{key}", "stay"],
        "set_aside",
    )


def _set_aside_answer(d: Draft, answer: str) -> None:
    """The answer to "Set aside?": the game menu's entry goes on, the game in play to wait
    (or to end, when the next game takes its place); or back to play."""
    if answer == "stay":  # play went on already (menu_step)
        return
    d.ending = answer.startswith(END)
    _session_entry(d, answer.removeprefix(END).removeprefix(ASIDE), asked=True)


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
        open_game_menu(d)
    elif key == "records":
        book = record_pages.pages(session.rules.title, d.world.records, session.name)
        d.menu = menus.PageMenu(book)
    elif key == "enrol_run":
        d.menu = menus.Enrol("", session.name, tuple(session.rules.catalog()))
    elif key in ("pair_phone", "forget_phones"):
        phones.phone_command(d, key)
    elif key == "dice":
        d.table_dice = not d.table_dice
        where = "the table's dice" if d.table_dice else "the box"
        d.note(f"dice now come from {where}")
        d.toast_up(("Dice now from", where))
