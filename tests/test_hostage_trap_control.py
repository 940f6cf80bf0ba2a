"""Buttons and card taps in Hostage Trap!: green draws, red ends the turn, ok opens the seat's
menu, up/down the pages; tapped attack, defence, trap and hostage cards become the actions the
contract names, and a tapped hostage is never named."""

from __future__ import annotations

from test_hostage_trap_support import Table

from companion.games.base import Action, Ask, Pages, Press, Tap
from companion.games.hostage_trap import GAME
from companion.ui.menus import FormMenu


def tap(table: Table, kind: str, **fields: int):
    return GAME.control(
        table.state, Tap("04AABBCC", {"game": "hostage-trap", "card": kind, **fields})
    )


def walk(ask: Ask, *buttons: str) -> Action | str:
    """Answer a game menu with buttons, as the app's FormMenu does: the action it builds or
    the reason it refuses."""
    menu = FormMenu(ask)
    menu, command = menu.start()
    for button in buttons:
        if command.kind != "stay":
            break
        menu, command = menu.press(button, False)
    if command.kind == "refused":
        return command.data["reason"]
    assert command.kind == "form_done", command
    return Action(command.data["name"], command.data["args"])


def test_green_draws_from_the_seat_picked_or_from_the_attacked_one() -> None:
    table = Table.new(players=4)
    ask = GAME.control(table.state, Press("green"))
    assert isinstance(ask, Ask)
    assert walk(ask, "down", "ok") == Action("draw", {"target": "3"})
    table.do("attack", target=4, result="hit")
    assert GAME.control(table.state, Press("green")) == Action("draw", {"target": "4"})
    table.do("draw", target=4)
    assert isinstance(GAME.control(table.state, Press("green")), Ask)  # the seat's menu


def test_red_ends_the_turn_or_the_claim_being_tapped() -> None:
    table = Table.new()
    table.do("draw", target=2)
    assert GAME.control(table.state, Press("red")) == Action("next")
    table.do("show", player=2, color="blue")
    assert GAME.control(table.state, Press("red")) == Action("shown")


def test_red_before_the_draw_asks_first() -> None:
    """Issue 30 point 8: the draw is part of every turn (rulings 2-3), so ending a turn with no
    card drawn asks: draw now, or end the turn anyway (back: the turn goes on)."""
    table = Table.new(players=4)
    ask = GAME.control(table.state, Press("red"))
    assert isinstance(ask, Ask) and ask.title == "No card drawn"
    assert [f.label for f in ask.forms] == ["Draw a card", "End turn anyway"]
    assert walk(ask, "down", "ok") == Action("next")
    assert walk(ask, "ok", "down", "ok") == Action("draw", {"target": "3"})
    table.do("attack", target=4, result="hit")  # a hit: the draw is still to come
    ask = GAME.control(table.state, Press("red"))
    assert walk(ask, "ok", "ok") == Action("draw", {"target": "4"})


def _labels(table: Table) -> list[str]:
    return [form.label for form in GAME.control(table.state, Press("ok")).forms]


def test_the_seat_menu_builds_each_action_and_offers_only_what_the_turn_still_allows() -> None:
    """Issue 30 point 8: what the rules would refuse this turn is not offered."""
    table = Table.new(players=3)
    menu = GAME.control(table.state, Press("ok"))
    labels = [form.label for form in menu.forms]
    assert labels == [
        "Draw a card",
        "Attack",
        "Look at a hand",
        "Hostage ability",
        "Claim a win",
        "End turn, no draw",
    ]
    assert all(form.refused is None for form in menu.forms)
    assert walk(menu, "down", "ok", "ok", "down", "ok") == Action(
        "attack", {"target": "2", "result": "failed"}
    )
    assert walk(menu, "down", "down", "ok", "ok") == Action("peek", {"target": "2"})
    assert walk(menu, "down", "down", "down", "ok", "down", "ok") == Action(
        "ability", {"color": "red"}
    )
    claim = walk(menu, "up", "up", "ok", "down", "ok", "ok", "down", "ok", "down", "ok", "green")
    assert claim == Action("claim", {"player": "2", "hostages": "blue,red,green"})
    table.do("attack", target=2, result="hit")
    assert _labels(table) == [
        "Draw a card",
        "Hostage ability",
        "Claim a win",
        "End turn, no draw",
    ]
    table.do("ability", color="blue")
    table.do("draw", target=2)
    assert _labels(table) == ["Drew a trap", "Claim a win", "End turn"]
    menu = GAME.control(table.state, Press("ok"))
    assert walk(menu, "ok", "down", "down", "ok", "down", "ok") == (
        Action("trap", {"turns": "2", "ends": "no"})
    )
    table.do("trap", turns=2, ends="no")
    assert _labels(table) == ["Claim a win", "End turn"]


def test_a_timed_game_pauses_from_the_seat_menu_and_green_resumes() -> None:
    table = Table.new(turn_seconds=30)
    table.wait(1)
    menu = GAME.control(table.state, Press("ok"))
    assert menu.forms[-1].action == "pause"
    table.do("pause")
    assert GAME.control(table.state, Press("green")) == Action("resume")


def test_up_and_down_open_the_pages() -> None:
    table = Table.new()
    down = GAME.control(table.state, Press("down"))
    up = GAME.control(table.state, Press("up"))
    assert isinstance(down, Pages) and down.start == 0
    assert up.start == len(up.screens) - 1


def test_a_tapped_trap_files_itself_with_its_turns_or_asks_them() -> None:
    table = Table.new()
    assert tap(table, "trap", turns=2) == Action("trap", {"turns": "2", "ends": "yes"})
    assert tap(table, "trap-on", turns=1) == Action("trap", {"turns": "1", "ends": "no"})
    table.do("draw", target=2)
    ask = tap(table, "trap")  # a demo card: no turns enrolled
    assert walk(ask, "down", "ok") == Action("trap", {"turns": "1", "ends": "yes"})


def test_a_tapped_attack_asks_whom_and_how_and_a_defence_files_a_blocked_attack() -> None:
    table = Table.new()
    assert walk(tap(table, "attack"), "ok", "ok") == Action(
        "attack", {"target": "2", "result": "hit"}
    )
    assert walk(tap(table, "defence"), "down", "ok") == Action(
        "attack", {"result": "failed", "target": "3"}
    )
    table.do("draw", target=2)
    assert isinstance(tap(table, "defence"), Pages)
    assert walk(tap(table, "attack")) == "an attack comes before the draw"


def test_a_tapped_hostage_asks_only_whose_it_is_then_joins_the_claim() -> None:
    table = Table.new(players=4)
    table.end_turns(2)
    ask = tap(table, "hostage-blue")
    question = ask.forms[0].fields[0]
    # issue 30 point 17: the question asks who claims (the seat on turn offered first)
    assert question.label == "Who claims?" and question.start == 2
    assert "blue" not in repr((ask.title, [f.label for f in ask.forms], question))
    assert walk(ask, "ok") == Action("show", {"color": "blue", "player": "3"})
    table.do("show", player=3, color="blue")
    assert tap(table, "hostage-red") == Action("show", {"color": "red"})
    assert GAME.secret_card({"card": "hostage-red"}) == "A hostage card"
    assert GAME.secret_card({"card": "attack"}) is None


def test_cards_of_other_games_are_not_this_games() -> None:
    table = Table.new()
    event = Tap("04AABBCC", {"game": "trap-attack", "card": "damage-2"})
    assert GAME.control(table.state, event) is None


def test_the_catalog_has_a_hostage_per_colour_attacks_defences_and_traps_with_turns() -> None:
    kinds = {kind.id: kind for kind in GAME.catalog()}
    assert {"hostage-blue", "hostage-pink", "attack", "defence", "trap", "trap-on"} <= set(kinds)
    assert kinds["trap"].fields == ("turns",) and kinds["trap"].ranges == ((0, 9),)
    assert kinds["hostage-blue"].fields == ()
