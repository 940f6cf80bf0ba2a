"""One footer convention for every menu (README, "Menus"): the same words for the same
buttons everywhere, green doing what ok does unless the footer names G, red always doing
what back does, and no menu's text cut."""

from dataclasses import replace

import pytest

from companion.games import registry as games
from companion.games.base import Action, Ask, CardKind, DieLabel, Field, Form, Pages
from companion.ui import menus
from companion.ui.fonts import ELLIPSIS
from companion.ui.render import layout
from companion.ui.screen import Screen

KIND = CardKind(
    "relic",
    "Ancient Ceremony Plate",
    fields=("value", "combo"),
    ranges=((1, 5), (1, 3)),
    short="Ceremony Plate",
)


def _with_kind(menu):
    return replace(menu, kind=KIND)


def _asking(run):
    return replace(run, asking=("0004A1B2C3", "Invisibility Cape"))


def _editing(menu):
    return replace(menu, editing=True)


def _many():
    menu = menus.FormMenu(
        Ask("Claim", (Form("Claim", "claim", (Field("h", "Hostages", ("r", "g"), many=True),)),))
    )
    started, _ = menu.start()
    return started


def _menus():
    out = [
        menus.ListMenu("Choose a game", ("Dice", "Trapwords"), ("dice", "trapwords"), "pick_game"),
        menus.Confirm("Undo?", ("Take back:", "AI moves 2"), menus.Command("undo")),
        menus.Enrol("0004A1B2C3", "trap-attack", (KIND,)),
        _with_kind(menus.Enrol("0004A1B2C3", "trap-attack", (KIND,))),
        menus.Enrol("", "trap-attack", (KIND,)),
        menus.EnrolRun(
            "trap-attack", KIND, {"value": 3, "combo": 1}, count=2, said="added 0004A1B2C3"
        ),
        _asking(menus.EnrolRun("trap-attack", KIND, {"value": 3, "combo": 1})),
        menus.DiceEntry((6,), Action("roll")),
        menus.DiceEntry(
            (4, 6), Action("ai_turn"), (DieLabel("AI move die"), DieLabel("AI action die"))
        ),
        menus.FormMenu(Ask("Attack", (Form("Damage", "attack"), Form("Push", "attack")))),
        _many(),
        menus.PageMenu(Pages((Screen("Scores", ("P1 12",)), Screen("Scores", ("AI 9",))))),
        menus.PageMenu(Pages((Screen("Scores", ("P1 12",)),))),
    ]
    for name in games.available():
        rules = games.get(name)
        out.append(menus.OptionsMenu(name, rules.title, tuple(rules.options)))
        if rules.options:
            out.append(_editing(menus.OptionsMenu(name, rules.title, tuple(rules.options))))
    return out


@pytest.mark.parametrize("menu", _menus(), ids=lambda m: type(m).__name__)
def test_every_footer_uses_the_one_vocabulary_in_order(menu):
    footer = menu.screen().footer
    entries = footer.split("  ")
    buttons = [entry.split(" ", 1)[0] for entry in entries]
    order = list(menus.FOOTER_WORDS)
    assert buttons == sorted(buttons, key=order.index), footer
    for entry in entries:
        button, verb = entry.split(" ", 1)
        assert verb.split()[0] in menus.FOOTER_WORDS[button], footer
    assert len(entries) <= 2, footer


@pytest.mark.parametrize("menu", _menus(), ids=lambda m: type(m).__name__)
@pytest.mark.parametrize("long", [False, True])
def test_red_is_back_and_green_is_ok_unless_named(menu, long):
    def after(button):
        pressed, command = menu.press(button, long)
        return command, pressed.screen() if command == menus.STAY else None

    assert after("red") == after("back")
    if " G " not in f" {menu.screen().footer}":
        assert after("green") == after("ok")


@pytest.mark.parametrize("menu", _menus(), ids=lambda m: type(m).__name__)
def test_no_menu_text_is_cut(menu):
    assert all(ELLIPSIS not in placed.text for placed in layout(menu.screen()).texts)


@pytest.mark.parametrize("game", games.available())
def test_no_card_of_any_catalog_is_cut_in_the_enrol_list(game):
    """Drawn by Pillow's basic layout engine on every system (companion/ui/fonts.py)."""
    kinds = tuple(games.get(game).catalog())
    for cursor in range(len(kinds)):
        menu = menus.Enrol(uid="0004A1B2C3", game=game, kinds=kinds, cursor=cursor)
        assert all(ELLIPSIS not in placed.text for placed in layout(menu.screen()).texts)
