"""Issue 30 (table trust, fifth look): what a table met in Trap Attack. The AI never loses its
turn, a combo number is on two relics only, a relic bought without a tag is recorded, the
reminders a table expects at a turn's start and at the relic row, and the words of the menus."""

from __future__ import annotations

import pytest
from test_screen_support import uncut
from test_trap_attack_support import Table

from companion.games.base import Action, Rejected
from companion.games.trap_attack.forms import menu_entries
from companion.ui.screen import Screen

# --- 1. the AI never loses its turn --------------------------------------------------------------

WITH_AI = [{}, {"players": "2", "ai": "on"}, {"players": "3", "ai": "on"}]


@pytest.mark.parametrize("options", WITH_AI)
def test_next_turn_on_the_ais_turn_is_refused_and_the_ai_still_plays(options):
    table = Table(options=options)
    while table.pub["turn"] != "ai":
        table.do("turn")
    before = table.state
    with pytest.raises(Rejected, match="AI's turn"):
        table.do("turn")
    assert table.state == before
    table.do("ai_turn", 2, 1)  # the AI plays: free space + movement die, then its action die
    assert table.pub["last_roll"]["move"] == 2 and table.pub["ai"]["position"] == 27


def test_the_menus_next_turn_on_the_ais_turn_says_why_it_is_refused():
    table = Table()
    table.do("turn")
    entry = next(e for e in menu_entries(table.state) if e.label == "Next turn")
    assert entry.refused and "AI's turn" in entry.refused
    table.press("red")  # the players' menu
    table.press("down")
    assert "> Next turn" in table.screen()
    with pytest.raises(Rejected, match="AI's turn"):
        table.press("ok")
    assert table.pub["turn"] == "ai"


def test_green_on_the_ais_turn_plays_it():
    table = Table(options={"players": "2", "ai": "on"})
    table.do("turn")
    table.do("turn")
    assert table.pub["turn"] == "ai"
    table.dice(1, 1)
    assert table.press("green") == Action("ai_turn")
    assert table.pub["turn"] == "1"


# --- 2. each combo number is on exactly two relic cards -----------------------------------------


def test_a_third_relic_with_one_combo_number_is_refused_whoever_enters_it():
    table = Table(options={"players": "2", "ai": "on"})
    table.do("scoring")
    table.do("held", player="1", relics=2, loot=0)
    table.do("relic", player="1", value=2, combo=5)
    table.do("relic", player="1", value=6, combo=5)
    table.do("held", player="2", relics=1, loot=0)
    before = table.state
    with pytest.raises(Rejected, match="combo 5"):
        table.do("relic", player="2", value=3, combo=5)
    assert table.state == before
    table.do("relic", player="2", value=3, combo=4)
    assert table.pub["scores"]["1"]["relics"] == 11  # one combo: 2 + 6 + 3


def test_the_relic_question_offers_only_combo_numbers_still_free():
    table = Table()
    table.do("scoring")
    table.do("finish", player="1", crystal="no")
    table.do("held", player="1", relics=3, loot=0)
    table.do("relic", player="1", value=1, combo=1)
    table.do("relic", player="1", value=1, combo=1)
    assert table.screen()[:2] == ["Relic P1 3/3", "Relic value"]
    table.press("ok")  # the value
    assert table.screen()[1:3] == ["Combo number", "< 2 >"]  # combo 1 is on two relics
    table.press("down")
    assert table.screen()[2] == "< 10 >"  # round the end: 1 is not offered


# --- 18. the log's words -------------------------------------------------------------------------


def test_a_finish_without_the_crystal_reads_whole_in_the_log():
    table = Table()
    table.do("scoring")
    table.do("finish", player="1", crystal="no")
    assert "Player 1 finished without the crystal" in table.logs
    table.do("finish", player="1", crystal="yes", space=12)
    assert "Player 1 finished on space 12 with the crystal" in table.logs


# --- 3. a relic bought during the race, recorded without tags ----------------------------------


def test_the_race_menu_records_a_relic_bought_one_a_turn():
    table = Table()
    labels = [e.label for e in menu_entries(table.state)]
    assert "Relic bought" in labels
    table.press("red")
    while "> Relic bought" not in table.screen():
        table.press("down")
    assert table.press("ok") == Action("relic", {"player": "1"})
    assert table.screen()[1:3] == ["P1 bought a relic", "value: after the race"]
    assert {"by": "1", "group": "relic", "target": None} in table.pub["played"]
    with pytest.raises(Rejected, match="already bought a relic this turn"):
        table.do("relic", player="1")
    table.dice(1, 1)
    table.do("ai_turn")
    table.do("relic", player="1")  # a new turn: another purchase
    assert table.state.entry("1").relics == ((None, None), (None, None))


def test_the_demo_decks_relic_card_records_a_purchase_during_the_race():
    table = Table()
    assert table.tap("relic") == Action("relic", {"player": "1"})  # no value enrolled
    assert not any("values are asked" in line for line in table.screen())
    with pytest.raises(Rejected, match="already bought a relic this turn"):
        table.tap("relic")


def test_a_relic_bought_without_a_tag_has_its_value_asked_after_the_race():
    table = Table()
    table.do("relic", player="1")
    table.do("scoring")
    table.do("finish", player="1", crystal="no")
    assert table.screen()[:3] == ["Cards P1", "Relic cards held", "< 1 >"]  # counted
    table.press("ok")
    table.press("ok")  # no loot
    assert table.screen()[0] == "Relic P1 1/1"
    table.do("relic", player="1", value=5, combo=2)
    assert table.state.entry("1").relics == ((5, 2),)  # the purchase filled in, not a second
    with pytest.raises(Rejected, match="Player 1 holds 1 relic, all entered"):
        table.do("relic", player="1", value=3, combo=3)


def test_with_several_players_the_menu_asks_who_bought_the_relic():
    table = Table(options={"players": "2", "ai": "on"})
    table.do("turn")
    table.do("ask", form="bought")
    assert table.screen()[:3] == ["Relic bought", "Who bought it?", "< Player 2 >"]
    table.press("ok")
    assert table.state.entry("2").relics == ((None, None),)


def test_the_ais_relics_are_counted_by_the_box_not_by_a_blind_entry():
    table = Table()
    table.do("ai_turn", 1, 3)  # the AI buys
    with pytest.raises(Rejected, match="AI's relics are counted"):
        table.tap("relic")  # the card it bought, with no tag value


# --- 7. reminders at a turn's start and at the relic row ----------------------------------------


def test_a_players_turn_starts_with_the_hand_and_the_free_move():
    table = Table(options={"players": "2", "ai": "on"})
    assert table.screen()[1:4] == ["P1:6 P2:1 AI:1", "Player 1 starts", "P1: fill 3+6, move 1"]
    table.do("turn")
    assert table.screen()[1:4] == ["Player 2's turn", "Fill 3 cards 6 skulls", "Free move: 1 space"]


def test_after_the_ais_turn_the_solo_player_is_reminded_and_the_relic_row_refilled():
    table = Table()
    table.do("ai_turn", 3, 3)  # the AI buys the rightmost relic
    assert table.screen()[:4] == [
        "Relic row: refill",
        "AI moves 4: 30 -> 26",
        "AI takes right relic",
        "P1: fill 3+6, move 1",
    ]
    table.do("attack", 1, kind="damage", amount=1)  # anything else: the title is the game's again
    assert table.screen()[0] == "Trap Attack  P1"


def test_a_round_in_which_nobody_bought_ends_by_cycling_the_relic_row():
    table = Table()
    table.do("ai_turn", 1, 1)  # Block: nobody bought a relic this round
    assert table.screen()[0] == "Relic row: cycle"
    table.do("relic", player="1")  # player 1 buys in the next round
    table.do("ai_turn", 1, 1)
    assert table.screen()[0] == "Trap Attack  P1"  # someone bought: no cycle


def test_with_several_players_the_row_cycles_when_the_round_comes_back_to_its_first_seat():
    table = Table(options={"players": "2"})
    table.do("turn")
    assert table.screen()[0] == "Trap Attack  P2"  # the round is not over
    table.do("turn")
    assert table.screen()[0] == "Relic row: cycle"
    table.do("relic", player="1")
    table.do("turn")
    table.do("turn")
    assert table.screen()[0] == "Trap Attack  P1"


def test_a_paralyzed_player_is_reminded_of_the_hand_but_not_the_free_move():
    table = Table()
    table.do("ai_turn", 1, 4)
    table.do("card", id="paralysis")
    table.do("take")
    shown = " ".join(table.screen())
    assert "no move" in shown and "Free move" not in shown and "move 1" not in shown
    assert "fill 3+6" in shown.lower()


# --- 17. the words of the menus and the scores ---------------------------------------------------


def test_the_players_menu_and_its_questions_follow_the_footer_convention():
    table = Table()
    table.press("red")
    # red steps back; back opens the box's menu: red is named (issue 42, point 14)
    assert table.screen()[-1] == "ok pick  R out"
    table.do("ask", form="damage")
    assert table.screen()[-1] == "^v change  ok next"
    table.press("ok")
    table.press("ok")
    assert table.screen()[-1] == "^v change  ok done"  # the last question


def test_the_ais_card_picker_does_not_repeat_its_title():
    table = Table()
    table.do("ai_turn", 1, 4)
    table.press("down")
    title, label = table.screen()[:2]
    assert title == "AI's card" and label != title


def test_the_scores_green_is_named_for_what_it_does_and_red_edits():
    table = Table()
    table.do("scoring")
    table.do("finish", player="1", crystal="no")
    table.do("held", player="1", relics=0, loot=0)
    table.do("coins", player="1", n=2)
    assert table.pub["asking"] is None
    # the final screen says back opens the game menu, the pages how to leave them (issue 42,
    # point 14); "fix" for "edit" to make the room
    assert table.screen()[-1] == "G detail  R fix  back: menu"
    uncut(Screen("x", (), footer=table.screen()[-1]))
    table.press("green")
    assert table.screen()[0] == "Score Player 1"
    assert table.screen()[-1] == "^v page  R out"
    table.press("red")
    table.press("red")
    assert table.screen()[0] == "Menu"  # the corrections


def test_the_ai_status_line_says_it_holds_the_crystal_in_words():
    table = Table()
    table.do("set_ai", position=3, crystal="yes")
    table.do("attack", 1, kind="damage", amount=1)
    assert "AI 3+crystal  life 6" in table.screen()


def test_a_players_attack_waiting_for_blocked_or_taken_is_named_in_the_refusal() -> None:
    """Issue 42, point 12: three players and no AI: player 1's attack on player 2 waits for
    blocked or taken. A second attack (played, tapped or asked for) and the bookkeeping
    forms are refused naming that, never "the AI's card"; once taken, play goes on."""
    table = Table({"players": "3"})
    table.do("play", card="damage-1", by="1", target="2")
    assert table.state.pending == "block"
    waiting = "Player 2 must say blocked or taken first"
    with pytest.raises(Rejected, match=waiting):
        table.do("play", card="push-1", by="1", target="3")
    with pytest.raises(Rejected, match=waiting):
        table.tap("push-1")
    for form in ("damage", "heal", "paralyze", "bought"):
        with pytest.raises(Rejected, match=waiting):
            table.do("ask", form=form)
    table.do("take")
    table.do("play", card="push-1", by="1", target="3")
    assert table.state.threat is not None and table.state.threat.target == "3"


def test_whose_turn_and_its_start_are_reachable_after_three_lines_of_news() -> None:
    """Issue 42, point 3: the AI's card knocks player 1 out as the round ends with no relic
    bought: the news and the relic row take every line of the screen. Up/down still show whose
    turn it is and what its start asks, then the news."""
    table = Table()
    table.do("damage", player="1", amount=5)
    table.do("ai_turn", 1, 4)  # moves, then casts
    table.do("card", id="damage-1")
    table.do("take")  # player 1 knocked out, the AI's turn over: the round ends
    screen, _ = table.view()
    assert screen.title == "Relic row: cycle"
    assert len(screen.lines) == 3 and not any("fill" in line.lower() for line in screen.lines)
    table.press("down")
    page, _ = table.view()
    assert page.title == "Player 1's turn"
    assert page.lines[:2] == ("Fill 3 cards 6 skulls", "Free move: 1 space")
    assert "Fill 3 cards 6 skulls" in uncut(page)  # drawn whole on the OLED
    table.press("down")
    news, _ = table.view()
    assert (news.title, news.lines) == (screen.title, screen.lines)
    table.press("red")  # red leaves the pages: the game screen again
    assert table.menu is None
