"""The control map and the screens: one press of green runs the AI's turn, every step is one
instruction, and the players' menu reaches every action."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_trap_attack_support import Table

from companion.games import registry
from companion.games.base import Action, BadAction, Press, Rejected, Tap
from companion.games.trap_attack import GAME
from companion.games.trap_attack.forms import menu_entries
from companion.ui import menus
from companion.ui.screen import BLUE, GREEN, PURPLE, RED, YELLOW, Lights


def test_one_press_of_green_runs_the_ai_turn_and_names_each_step():
    table = Table()
    assert table.screen()[-1] == "G AI turn  R menu"
    table.dice(3, 3)
    assert table.press("green") == Action("ai_turn")
    assert table.screen() == [
        "Relic row: refill",  # the AI bought (issue 30, point 7)
        "AI moves 4: 30 -> 26",
        "AI takes right relic",
        "P1: fill 3+6, move 1",  # player 1's turn starts
        "G AI turn  R menu",
    ]


def test_pending_card_tap_it_or_pick_its_effect():
    table = Table()
    table.dice(1, 6)
    table.press("green")
    assert table.screen()[2:4] == ["Draw top action card", "and tap it"]
    assert GAME.view(table.state)[1].color == PURPLE
    assert table.tap("shield") == Action("card", {"id": "shield"})
    assert table.pub["pending"] == "card"
    table.press("down")  # opens the list of effects
    assert table.screen()[0] == "AI's card"
    while table.screen()[2] != "< Heal 2 >":
        table.press("down")
    assert table.press("ok") == Action("card", {"id": "heal-2"})
    assert table.pub["pending"] is None


def test_pending_block_green_blocked_red_taken_as_the_footer_says():
    table = Table()
    table.do("ai_turn", 1, 4)
    table.do("card", id="damage-2")
    screen, lights = GAME.view(table.state)
    assert screen.footer == "G blocked  R taken"
    assert (lights.color, lights.pattern) == (BLUE, "blink")  # player 1 must answer
    assert table.press("red") == Action("take")
    assert table.pub["players"]["1"]["life"] == 4
    table.do("ai_turn", 1, 4)
    table.do("card", id="damage-2")
    assert table.press("green") == Action("blocked")
    assert table.pub["players"]["1"]["life"] == 4


def test_up_down_choose_who_an_ai_attack_hits_with_several_players():
    table = Table({"players": "2", "ai": "on"})
    table.do("turn")
    table.do("ai_turn", 1, 4)
    table.do("card", id="paralysis")
    assert "^v other player" in table.screen()
    assert table.press("down") == Action("aim", {"player": "2"})
    table.press("red")
    assert table.pub["players"]["2"]["paralyzed"] is True
    assert table.pub["players"]["1"]["paralyzed"] is False


def test_the_led_shows_whose_turn_it_is_and_who_must_answer():
    table = Table({"players": "3", "ai": "on"})
    seen = []
    for _ in range(4):
        lights = GAME.view(table.state)[1]
        seen.append((table.pub["turn"], lights.color, lights.pattern))
        table.do(*(("ai_turn", 1, 1) if table.pub["turn"] == "ai" else ("turn",)))
    assert seen == [
        ("1", BLUE, "solid"),
        ("2", GREEN, "solid"),
        ("3", YELLOW, "solid"),
        ("ai", PURPLE, "solid"),
    ]
    table.do("play", card="damage-2", target="3")  # player 1 attacks player 3
    assert GAME.view(table.state)[1] == Lights(YELLOW, "blink")
    table.do("take")
    table.do("ai_turn", 1, 4)
    assert GAME.view(table.state)[1] == Lights(PURPLE, "blink")  # the AI's card is awaited
    table.do("card", id="damage-4")
    table.press("down")  # the AI's attack aimed at player 2 instead
    assert GAME.view(table.state)[1] == Lights(GREEN, "blink")
    table.press("red")  # taken: player 2 has 2 life left
    assert GAME.view(table.state)[1] == Lights(BLUE, "solid")  # the AI's turn is over
    table.do("damage", player="2", amount=2)
    assert GAME.view(table.state)[1] == Lights(RED, "blink")  # a knock-out


def _menu_to(table: Table, label: str) -> None:
    table.press("red")
    labels = [e.label for e in menu_entries(table.state)]
    for _ in range(labels.index(label)):
        table.press("down")


def test_players_menu_attack_the_ai_with_a_picked_effect():
    table = Table()
    _menu_to(table, "Attack the AI")
    table.press("ok")
    while table.screen()[2] != "< Push back 2 >":
        table.press("down")
    table.dice(5)
    assert table.press("green") == Action("attack", {"kind": "push", "by": "1", "amount": 2})
    assert table.pub["last_roll"]["action"] == "cast"  # face 5: not blocked


def test_players_menu_correct_the_ai_position():
    table = Table()
    _menu_to(table, "AI position")
    table.press("ok")
    assert table.screen()[2] == "< 30 >"
    table.press("up")  # the list runs the other way round: the boat side
    assert table.screen()[2] == "< 30 with crystal >"
    table.press("ok")
    assert (table.pub["ai"]["position"], table.pub["ai"]["has_crystal"]) == (30, True)


def test_red_steps_back_a_question_and_then_closes():
    table = Table()
    _menu_to(table, "Damage a pawn")
    table.press("ok")
    table.press("ok")  # player 1
    assert table.screen()[1] == "Damage"
    table.press("red")
    assert table.screen()[1] == "Who?"
    table.press("red")
    assert table.pub["menu"] is None
    assert table.screen()[-1] == "G AI turn  R menu"  # back on the game screen


def test_every_menu_entry_ends_in_an_action_the_rules_understand():
    """Walking each entry with the default answers never produces a malformed action."""
    for options in ({}, {"players": "3"}, {"players": "2", "ai": "on"}):
        for index in range(len(menu_entries(Table(options).state))):
            table = Table(options)
            table.press("red")
            for _ in range(index):
                table.press("down")
            for _ in range(12):
                try:
                    table.press("ok")  # a malformed action would raise BadAction here
                except Rejected:
                    break
                if table.pub["menu"] is None:
                    break
            assert table.pub["menu"] in (None, "form", "menu")


def test_tapped_attack_card_in_solo_is_cast_at_the_ai_and_counted():
    table = Table()
    table.dice(6)
    assert table.tap("damage-2") == Action("attack", {"card": "damage-2", "by": "1"})
    assert table.pub["ai"]["life"] == 4
    with pytest.raises(Rejected, match="already cast an attack"):
        table.tap("push-1")


def test_tapped_attack_card_with_several_opponents_asks_the_target():
    table = Table({"players": "3"})
    table.tap("push-2")
    assert table.screen()[1] == "At whom?"
    table.press("down")
    assert table.press("ok") == Action("play", {"card": "push-2", "by": "1", "target": "3"})
    assert table.pub["pending"] == "block"


def test_tapped_relic_files_its_enrolled_value_for_the_right_owner():
    table = Table()
    assert table.tap("relic", value=2, combo=5) == Action(
        "relic", {"player": "1", "value": 2, "combo": 5}
    )
    table.do("ai_turn", 1, 3)  # the AI buys a relic: the next relic tapped is the AI's
    assert table.tap("relic", value=4, combo=1) == Action(
        "relic", {"player": "ai", "value": 4, "combo": 1}
    )
    assert table.tap("relic", value=6, combo=5).args["player"] == "1"
    assert table.pub["scores"]["1"]["relics"] == 11


def test_tapped_scoring_card_without_a_value_asks_for_it_once_the_race_is_over():
    table = Table()
    with pytest.raises(Rejected, match="values are asked when the race is over"):
        table.tap("loot")  # loot stays face down during the race
    table.do("scoring")
    table.tap("loot")
    assert table.screen()[:2] == ["Loot P1", "Loot value"]
    table.press("up")
    table.press("ok")
    assert table.pub["scores"]["1"]["loot"] == 2


def test_during_the_race_the_menu_asks_no_relic_or_loot_value():
    table = Table()
    labels = [e.label for e in menu_entries(table.state)]
    assert "Relic" not in labels and "Battle loot" not in labels
    with pytest.raises(Rejected, match="values are asked when the race is over"):
        table.do("ask", form="loot")
    with pytest.raises(Rejected, match="values are asked when the race is over"):
        table.do("ask", form="relic", player="ai")
    table.do("scoring")
    labels = [e.label for e in menu_entries(table.state)]
    assert "Relic" in labels and "Battle loot" in labels  # to correct an entry


def test_knockout_of_a_player_gives_the_loot_tap_to_the_attacker():
    table = Table()
    table.do("ai_turn", 1, 4)
    table.do("card", id="damage-4")
    table.do("take")
    table.do("ai_turn", 1, 4)
    table.do("card", id="damage-3")
    table.do("take")
    assert "AI: take a loot card" in table.screen()
    assert GAME.view(table.state)[0].inverted is True
    assert table.tap("loot", value=3) == Action("loot", {"player": "ai", "value": 3})


def test_cards_of_other_games_and_unknown_cards_are_not_taken():
    table = Table()
    assert GAME.control(table.state, _tap(None)) is None
    assert GAME.control(table.state, _tap({"game": "trapwords", "card": "curse"})) is None
    assert GAME.control(table.state, _tap({"game": "trap-attack", "card": "nope"})) is None


def _tap(entry):
    return Tap("0A", entry)


def test_relic_and_loot_values_stay_off_the_screen_until_the_race_is_over():
    """Victory condition, Important note: no peeking at relic or loot values mid-race."""
    table = Table()
    table.do("relic", player="1", value=17, combo=3)
    table.do("loot", player="1", value=4)
    during = " ".join(table.screen())
    assert "17" not in during and "21" not in during
    table.do("winner", player="ai")
    table.do("finish", player="1", crystal="no")
    table.do("held", player="1", relics=1, loot=1)
    table.do("coins", player="1", n=0)
    assert "P1 21" in " ".join(table.screen())
    table.press("up")  # the last row: the AI
    assert table.screen()[0] == "Score AI"
    table.press("up")
    assert table.screen() == [
        "Score Player 1",
        "Race 0  Relics 17",
        "Loot 4  Coins 0",
        "Total 21",
        "^v page  R out",
    ]


def test_control_of_unknown_buttons_does_nothing_harmful():
    """back is the box's own (its menu, undo): were it ever handed over, no action comes of it."""
    table = Table()
    table.press("red")
    assert not isinstance(GAME.control(table.state, Press("back")), Action)


def test_menu_moves_are_no_actions_and_an_unknown_form_is_a_bad_action():
    table = Table()
    table.do("menu")
    assert table.pub["menu"] == "menu"
    with pytest.raises(BadAction):  # walking a menu is the app's, never a game action
        table.do("pick", index=0)
    with pytest.raises(BadAction):
        table.do("ask", form="teleport")


def test_without_opponents_an_attack_card_is_not_needed():
    table = Table({"ai": "off"})
    assert table.tap("damage-1") is None
    with pytest.raises(BadAction):
        table.do("ask", form="target", card="shield")


def test_screens_met_in_play_fit_the_oled_without_being_cut():
    """The real renderer draws every screen seen over seeded button-and-card sessions."""
    from companion.ui.fonts import ELLIPSIS
    from companion.ui.render import layout

    events = ["up", "down", "ok", "red", *["green"] * 5]
    cards = ["@damage-2", "@shield", "@paralysis", "@relic", "@loot", "@invisibility-cape"]
    seen = set()
    for seed in range(30):
        rng = random.Random(seed)
        options = {"players": rng.choice("123"), "ai": "on"}
        table = Table(options, seed=seed)
        for _ in range(40):
            event = rng.choice(events + cards)
            with contextlib.suppress(Rejected):
                table.tap(event[1:]) if event.startswith("@") else table.press(event)
            screen = GAME.view(table.state)[0]
            if screen in seen:
                continue
            seen.add(screen)
            for placed in layout(screen).texts:
                assert not placed.text.endswith(ELLIPSIS), screen.text_lines()
    assert len(seen) > 100


def test_a_scoring_card_enrolled_with_a_value_the_rules_refuse_asks_for_it():
    """The Enrol menu starts numbers at 0: a relic left at combo 0 must not be lost."""
    table = Table()
    table.do("scoring")
    assert table.tap("relic", value=2, combo=0) is None  # no action yet: a question
    assert table.pub["menu"] == "form"
    assert table.screen()[:3] == ["Relic P1", "Combo number", "< 1 >"]  # the value stays hidden
    table.press("up")
    table.press("ok")
    assert table.journal[-1] == Action("relic", {"player": "1", "value": "2", "combo": "2"})
    table.tap("loot", value=0)
    assert table.screen()[:2] == ["Loot P1", "Loot value"]


def test_an_item_with_several_players_asks_whose_it_is():
    """Action Cards: items may be used in an opponent's turn; the limit is each player's own."""
    table = Table({"players": "2"})
    table.do("damage", player="2", amount=3)
    assert table.tap("heal-2") is None  # no action yet: a question
    assert table.screen()[1:3] == ["Who plays it?", "< Player 1 >"]  # the turn's player
    table.press("up")
    assert table.press("ok") == Action("play", {"card": "heal-2", "by": "2"})
    assert (table.pub["players"]["2"]["life"], table.pub["played"][0]["by"]) == (5, "2")
    table.tap("shield")
    table.press("ok")  # player 1's own item this turn is still allowed
    assert [p["by"] for p in table.pub["played"]] == ["2", "1"]


def test_an_item_with_one_player_needs_one_tap():
    table = Table()
    assert table.tap("heal-1") == Action("play", {"card": "heal-1", "by": "1"})


def test_the_ai_names_the_heal_or_forward_card_it_casts():
    table = Table()
    table.do("ai_turn", 1, 4)
    table.tap("forward-2")
    assert table.screen()[1:3] == ["AI casts Forward 2", "AI moves 2: 28 -> 26"]
    table.do("attack", 6, kind="damage", amount=3)
    table.do("ai_turn", 1, 4)
    table.tap("heal-2")
    assert table.screen()[1:3] == ["AI casts Heal 2", "AI heals: 3 -> 5"]


def test_the_first_player_roll_reads_as_who_rolled_what():
    table = Table({"players": "3", "ai": "on"})
    table.do("first_player", 5, 2, 5, 1)
    assert table.screen()[1:4] == ["P1:5 P2:2 P3:5 AI:1", "Tie: roll again", "P1 P3"]


def test_the_menu_offers_the_first_player_roll_only_before_the_first_turn_passes():
    table = Table({"players": "2"})
    assert "First player roll" in [e.label for e in menu_entries(table.state)]
    table.do("first_player", 1, 4)  # player 2 starts
    assert "First player roll" in [e.label for e in menu_entries(table.state)]
    table.press("green")  # player 2's turn is over
    assert table.pub["turn"] == "1"
    assert "First player roll" not in [e.label for e in menu_entries(table.state)]


def test_the_options_menu_names_the_default_board():
    board = next(o for o in GAME.options if o.name == "board")
    assert f"{board.label}: {board.default}" == "Board: default"
    assert "dice" not in {o.name for o in GAME.options}  # the box's own dice setting rules


# --- the options form (issue 42, point 15) ------------------------------------------------------


def _ai_plays(values: dict[str, str]) -> bool:
    return values["ai"] == "on" or (values["ai"] == "auto" and values["players"] == "1")


def test_the_options_form_leaves_out_the_ais_options_with_no_ai_pawn() -> None:
    """Two players and the AI pawn left to "auto": no AI plays, so no AI route nor AI move;
    the AI pawn on brings them back, the cursor staying on the option changed."""
    form = menus.OptionsMenu("trap-attack", "Trap Attack", registry.options("trap-attack"))
    assert [o.name for o in form.options] == ["players", "ai_route", "ai_move", "ai", "board"]
    form, _ = form.press("ok", False)  # players 1 -> 2
    assert [o.name for o in form.options] == ["players", "ai", "board"]
    form, _ = form.press("down", False)
    form, _ = form.press("ok", False)  # AI pawn auto -> on
    assert form.values["ai"] == "on"
    assert [o.name for o in form.options] == ["players", "ai_route", "ai_move", "ai", "board"]
    assert form.options[form.cursor].name == "ai"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["up", "down", "ok"]), max_size=30))
def test_the_ais_options_are_offered_exactly_when_the_ai_plays(presses: list[str]) -> None:
    form = menus.OptionsMenu("trap-attack", "Trap Attack", registry.options("trap-attack"))
    for button in presses:
        form, _ = form.press(button, False)
        names = [o.name for o in form.options]
        assert ("ai_route" in names) == ("ai_move" in names) == _ai_plays(form.values)
        assert 0 <= form.cursor < len(names)
    form, start = form.press("green", False)
    options = GAME.check_options(start.data["options"])
    assert (options["ai"] == "on") == _ai_plays(form.values)
