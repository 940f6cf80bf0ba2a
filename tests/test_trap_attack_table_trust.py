"""Issue 30 (table trust, fifth look): what a table met in Trap Attack. The AI never loses its
turn, a combo number is on two relics only, a relic bought without a tag is recorded, the
reminders a table expects at a turn's start and at the relic row, and the words of the menus."""

from __future__ import annotations

import pytest
from test_trap_attack_support import Table

from companion.games.base import Action, Rejected
from companion.games.trap_attack.forms import menu_entries

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
    with pytest.raises(Rejected, match="counts the AI's relics"):
        table.tap("relic")  # the card it bought, with no tag value
