"""Trap Attack rules, each test naming the rulebook section (shared/rules/trap-attack.txt) or
the ruling (shared/notes/rulings.md, Trap Attack) it checks."""

from __future__ import annotations

import pytest
from test_trap_attack_support import Table

from companion.games.base import Action, BadAction, Log, Rejected
from companion.games.trap_attack import GAME

NO_EFFECT_ITEMS = (
    "ancient-ceremony-plate",
    "invisibility-cape",
    "reflective-energy",
    "shield",
    "swap-effect",
)


def ai(table: Table) -> dict:
    return table.pub["ai"]


def player(table: Table, p: str = "1") -> dict:
    return table.pub["players"][p]


# --- Solo Mode: the AI's turn --------------------------------------------------------------


def test_solo_mode_ai_moves_one_free_space_plus_the_movement_die():
    table = Table()
    out = table.do("ai_turn", 3, 1)
    assert ai(table)["position"] == 26
    assert table.pub["last_roll"] == {"move": 3, "action": "block", "spaces": 4, "action_face": 1}
    assert "AI moves 4: 30 -> 26" in [e.text for e in out.effects if hasattr(e, "text")]
    assert "AI moves 4: 30 -> 26" in table.screen()


@pytest.mark.parametrize(
    ("ai_move", "faces", "spaces"), [("d4", (4, 6), 3), ("d4-only", (4, 6), 2), ("d3", (3, 6), 3)]
)
def test_ruling_2_movement_options(ai_move, faces, spaces):
    table = Table({"ai_move": ai_move})
    assert GAME.dice_for(table.state, Action("ai_turn")) == faces
    table.do("ai_turn", 2, 1)
    assert ai(table)["position"] == 30 - spaces


@pytest.mark.parametrize(("face", "reading"), [(1, "block"), (2, "block"), (3, "relic")])
def test_solo_mode_block_does_nothing_on_its_own_turn_and_relic_buys_the_rightmost(face, reading):
    table = Table()
    table.do("ai_turn", 1, face)
    assert table.pub["last_roll"]["action"] == reading
    assert table.pub["pending"] is None
    assert table.pub["turn"] == "1"  # the AI's turn is over
    assert ai(table)["relics"] == (1 if reading == "relic" else 0)
    if reading == "relic":
        assert "AI buys the rightmost relic, free" in table.logs


@pytest.mark.parametrize("face", [4, 5, 6])
def test_solo_mode_cast_card_asks_for_the_top_action_card(face):
    table = Table()
    table.do("ai_turn", 1, face)
    assert table.pub["last_roll"]["action"] == "cast"
    assert table.pub["pending"] == "card"
    assert table.pub["turn"] == "ai"
    assert "Draw top action card" in table.screen()
    with pytest.raises(Rejected):
        table.do("ai_turn", 1, 1)


@pytest.mark.parametrize("item", NO_EFFECT_ITEMS)
def test_solo_mode_exceptions_no_effect_items_are_discarded_and_another_drawn(item):
    table = Table()
    table.do("ai_turn", 1, 4)
    table.do("card", id=item)
    table.do("card", id="shield")
    assert table.pub["pending"] == "card"
    assert table.pub["discarded"] == 2
    assert any("No effect" in line for line in table.screen())
    assert ai(table)["life"] == 6 and player(table)["life"] == 6


def test_ruling_6_attack_cards_target_the_player_who_blocks_or_takes():
    table = Table()
    table.do("ai_turn", 1, 4)
    table.do("card", id="damage-3")
    assert table.pub["pending"] == "block"
    assert "attack" in table.sounds
    assert table.screen()[-1] == "G blocked  R taken"
    table.do("take")
    assert player(table)["life"] == 3
    assert table.pub["pending"] is None and table.pub["turn"] == "1"
    table.do("ai_turn", 1, 4)
    table.do("card", id="damage-4")
    table.do("blocked")
    assert player(table)["life"] == 3
    assert table.sounds[-1] == "block"


def test_ruling_6_push_and_paralysis_cards_on_the_player():
    table = Table()
    table.do("ai_turn", 1, 4)
    table.do("card", id="push-3")
    table.do("take")
    assert "Player 1 goes back 3 spaces" in table.logs
    table.do("ai_turn", 1, 4)
    table.do("card", id="paralysis")
    table.do("take")
    assert player(table)["paralyzed"] is True


def test_ruling_6_heal_and_forward_items_apply_to_the_ai():
    table = Table()
    table.do("attack", 6, kind="damage", amount=4)
    assert ai(table)["life"] == 2
    table.do("ai_turn", 1, 4)  # 30 -> 28
    table.do("card", id="heal-3")
    assert ai(table)["life"] == 5
    table.do("ai_turn", 1, 4)  # 28 -> 26
    table.do("card", id="heal-6")
    assert ai(table)["life"] == 6  # Players: life never above 6
    table.do("ai_turn", 1, 4)  # 26 -> 24
    table.do("card", id="forward-3")
    assert ai(table)["position"] == 21
    assert table.pub["pending"] is None


# --- Solo Mode: Block, and the effects of offensive cards -------------------------------------


@pytest.mark.parametrize("face", [1, 2])
def test_solo_mode_block_cancels_a_players_attack_two_faces_in_six(face):
    table = Table()
    table.do("attack", face, kind="damage", amount=4)
    assert ai(table)["life"] == 6
    assert table.pub["last_roll"]["action"] == "block"
    assert "block" in table.sounds


def back_to_player_1(table: Table) -> None:
    """Player 1's turn ends and the AI plays its own (it moves 2, then Block): one attack per
    turn, so the next needs a new turn of player 1. No one may pass the AI's turn."""
    table.do("turn")
    table.do("ai_turn", 1, 1)


def test_dealing_damage_pushing_backwards_and_paralysis_hit_the_ai():
    table = Table()
    table.do("ai_turn", 4, 1)  # 30 -> 25
    table.do("attack", 3, kind="damage", amount=2)
    assert ai(table)["life"] == 4
    back_to_player_1(table)  # 25 -> 23
    table.do("attack", 5, kind="push", amount=3)
    assert ai(table)["position"] == 26
    back_to_player_1(table)
    table.do("attack", 6, kind="paralysis")
    assert ai(table)["paralyzed"] is True


def test_attack_amounts_come_from_the_catalog():
    table = Table()
    with pytest.raises(BadAction):
        table.do("attack", 6, kind="damage", amount=5)
    with pytest.raises(BadAction):
        table.do("attack", 6, kind="push", amount=4)
    with pytest.raises(BadAction):
        table.do("attack", 6, kind="fire")


# --- Paralysis Effect / ruling 3 --------------------------------------------------------------


def test_paralysis_effect_a_paralyzed_ai_skips_movement_but_still_acts_for_one_turn():
    table = Table()
    table.do("attack", 6, kind="paralysis")
    assert GAME.dice_for(table.state, Action("ai_turn")) == (6,)
    table.do("ai_turn", 3)
    assert ai(table)["position"] == 30
    assert table.pub["last_roll"] == {
        "move": None,
        "action": "relic",
        "spaces": None,
        "action_face": 3,
    }
    assert ai(table)["paralyzed"] is False
    assert GAME.dice_for(table.state, Action("ai_turn")) == (4, 6)


def test_paralysis_effect_a_paralyzed_ai_discards_a_move_forward_card_and_draws_again():
    table = Table()
    table.do("attack", 6, kind="paralysis")
    table.do("ai_turn", 5)  # no move; Cast card
    table.do("card", id="forward-2")
    assert ai(table)["position"] == 30
    assert table.state.pending == "card"
    assert table.pub["discarded"] == 1
    assert "Paralyzed: discard it" in table.screen()
    assert not any("AI moves" in line for line in table.logs)
    table.do("card", id="heal-1")  # the next card works as usual
    assert table.state.pending is None


def test_paralysis_effect_reaching_the_ai_in_its_own_turn_stops_its_next_move():
    table = Table()
    table.do("ai_turn", 2, 5)  # 30 -> 27, Cast card: its card waits
    table.do("paralyze", player="ai")  # a reflected card, say
    table.do("card", id="forward-1")  # this turn's movement is not stopped
    assert ai(table)["position"] == 26
    assert ai(table)["paralyzed"] is True  # the turn ended, the paralysis stays
    assert GAME.dice_for(table.state, Action("ai_turn")) == (6,)
    table.do("ai_turn", 1)  # the next AI turn: no move, then it wears off
    assert ai(table)["position"] == 26
    assert ai(table)["paralyzed"] is False


def test_game_play_an_attack_from_the_menu_counts_against_the_turns_limit():
    table = Table()
    table.do("attack", 6, kind="damage", amount=1)
    with pytest.raises(Rejected, match="already cast an attack this turn"):
        GAME.dice_for(table.state, Action("attack", {"kind": "push", "amount": 1}))
    with pytest.raises(Rejected, match="already cast an attack this turn"):
        table.do("attack", 6, kind="push", amount=1)
    with pytest.raises(Rejected, match="already cast an attack this turn"):
        table.tap("damage-2")
    assert ai(table)["life"] == 5
    back_to_player_1(table)
    table.do("attack", 6, kind="push", amount=1)  # a new turn, a new attack


def test_paralysis_effect_a_player_is_paralyzed_through_their_next_turn_only():
    table = Table({"players": "2"})
    table.do("paralyze", player="2")  # during player 1's turn
    table.do("turn")  # player 2's turn: still paralyzed
    assert player(table, "2")["paralyzed"] is True
    assert table.screen()[1:4] == ["Player 2's turn", "P2 paralyzed:", "no move this turn"]
    assert table.logs[-1] == "Player 2 is paralyzed: no move this turn"
    table.do("turn")  # player 2's turn ended
    assert player(table, "2")["paralyzed"] is False


def test_paralysis_effect_the_ai_paralyzes_the_solo_player_whose_turn_is_lost_at_once():
    """Issue 23, point 2: the player's coming turn is the one lost, and it comes right away:
    while it is that turn, nothing says "next turn"."""
    table = Table()
    table.do("ai_turn", 1, 4)
    table.do("card", id="paralysis")
    out = table.do("take")
    assert table.pub["turn"] == "1"
    said = [e.text for e in out.effects if isinstance(e, Log)]
    assert said == ["Player 1 takes the Paralysis", "Player 1 is paralyzed: no move this turn"]
    assert table.screen()[1:3] == ["P1 paralyzed:", "no move this turn"]
    assert not any("next turn" in line for line in [*said, *table.screen()])


def test_paralysis_effect_the_ai_paralyzes_a_player_whose_turn_is_not_next():
    table = Table({"players": "2", "ai": "on"})
    table.do("turn")
    table.do("turn")  # the AI's turn
    table.do("ai_turn", 1, 4)
    table.do("card", id="paralysis")
    table.do("aim", player="2")
    table.do("take")  # player 1 plays first: player 2's lost turn is the next one
    assert table.pub["turn"] == "1"
    assert table.logs[-1] == "Player 2 is paralyzed: no move next turn"
    table.do("turn")
    assert table.logs[-1] == "Player 2 is paralyzed: no move this turn"


def test_paralysis_effect_a_paralyzed_player_cannot_move_by_a_forward_card():
    """Issue 23, point 1: a paralyzed pawn cannot move at all, as for the AI's own card."""
    table = Table()
    table.do("ai_turn", 1, 4)
    table.do("card", id="paralysis")
    table.do("take")  # player 1's turn comes, paralyzed
    with pytest.raises(Rejected, match="Player 1 is paralyzed: no move this turn"):
        table.do("play", card="forward-2")
    with pytest.raises(Rejected, match="Player 1 is paralyzed"):
        table.tap("forward-1")
    assert table.pub["played"] == []  # the item was not used up
    table.do("play", card="heal-1")  # another item still may be used
    table.do("ai_turn", 1, 1)  # player 1's next turn: free to move again
    table.do("play", card="forward-2")
    assert "Player 1 plays Forward 2: 2 spaces forward" in table.logs


def test_paralysis_effect_a_player_paralyzed_for_their_next_turn_cannot_move_before_it():
    table = Table({"players": "2"})
    table.do("paralyze", player="1")  # in player 1's own turn: this turn's moves stay
    table.do("play", card="forward-1", by="1")
    table.do("turn")  # player 2's turn: player 1 waits paralyzed
    with pytest.raises(Rejected, match="Player 1 is paralyzed"):
        table.do("play", card="forward-1", by="1")


# --- Players / General Rules: knock-outs ------------------------------------------------------


def test_players_unconscious_ai_goes_back_two_full_life_and_the_attacker_earns_loot():
    table = Table()
    table.do("ai_turn", 4, 1)  # 30 -> 25
    table.do("attack", 6, kind="damage", amount=4)
    back_to_player_1(table)  # 25 -> 23
    table.do("attack", 6, kind="damage", amount=2)
    assert ai(table)["life"] == 6
    assert ai(table)["position"] == 25
    assert player(table)["loot"] == 1
    assert "knockout" in table.sounds
    assert "Player 1 earns a battle loot card" in table.logs
    assert any("loot" in line for line in table.screen())


def test_players_unconscious_player_loot_goes_to_the_attacker_or_else_the_ai():
    table = Table({"players": "2", "ai": "on"})
    table.do("damage", player="1", amount=6, by="2")
    assert player(table, "1")["life"] == 6
    assert player(table, "2")["loot"] == 1
    table.do("damage", player="1", amount=6)
    assert ai(table)["loot"] == 1
    table.do("damage", player="1", amount=6, by="none")
    assert (player(table, "2")["loot"], ai(table)["loot"]) == (1, 1)


def test_players_heal_never_exceeds_six():
    table = Table()
    table.do("damage", player="1", amount=2)
    table.do("heal", player="1", amount=5)
    assert player(table)["life"] == 6


def test_players_important_note_knocked_out_after_the_shortcut_goes_back_the_way_it_came():
    table = Table({"ai_route": "shortcut"})
    table.do("set_ai", position=20)
    table.do("damage", player="ai", amount=6, by="none")
    assert ai(table)["position"] == 26  # 20 -> 25 (the shortcut) -> 26, not the mine path
    table = Table()
    table.do("set_ai", position=20)
    table.do("damage", player="ai", amount=6, by="none")
    assert ai(table)["position"] == 22


def test_knocked_out_never_walks_past_the_start_or_back_over_the_crystal():
    table = Table()
    table.do("damage", player="ai", amount=6, by="none")
    assert ai(table)["position"] == 30
    table.do("set_ai", position=1, crystal="yes")
    table.do("attack", 6, kind="push", amount=3)
    assert (ai(table)["position"], ai(table)["has_crystal"]) == (0, True)


# --- After getting the Crystal / ruling 5 -----------------------------------------------------


def test_after_getting_the_crystal_it_stops_movement_heals_two_and_turns_the_ai_back():
    table = Table()
    table.do("set_ai", position=2)
    table.do("attack", 6, kind="damage", amount=3)
    table.do("ai_turn", 4, 1)  # would walk 5, stops on the crystal
    assert ai(table)["position"] == 0
    assert table.pub["last_roll"]["spaces"] == 2
    assert "AI moves 2: 2 -> 0" in table.logs
    assert ai(table)["has_crystal"] is True
    assert ai(table)["life"] == 5
    assert "crystal" in table.sounds
    table.do("ai_turn", 2, 1)
    assert ai(table)["position"] == 3  # walking back up toward the boat


def test_after_getting_the_crystal_the_boat_ends_the_race_without_an_exact_roll():
    table = Table()
    table.do("set_ai", position=29, crystal="yes")
    table.do("ai_turn", 4, 5)
    assert table.pub["winner"] == "ai"
    assert ai(table)["at_boat"] is True
    assert table.pub["pending"] is None  # the race ended before the action die counted
    assert table.pub["last_roll"] == {"move": 4, "action": None, "spaces": 2, "action_face": 5}
    assert "race_end" in table.sounds
    with pytest.raises(Rejected, match="race is over"):
        table.do("ai_turn", 1, 1)


def test_ruling_9_the_owner_corrects_the_ai_position():
    table = Table({"ai_route": "shortcut"})
    table.do("set_ai", position=14, life=3)
    assert (ai(table)["position"], ai(table)["life"]) == (14, 3)
    with pytest.raises(Rejected, match="not on the AI's shortcut route"):
        table.do("set_ai", position=22)
    table.do("set_ai", position=0)
    assert ai(table)["has_crystal"] is True
    with pytest.raises(BadAction):
        table.do("set_ai", position=31)


# --- How to Play: Starting up; Game Play: turns and the per-turn limits -----------------------


def test_starting_up_the_highest_pawn_roll_plays_first_and_ties_roll_again():
    table = Table({"players": "3", "ai": "on"})
    assert GAME.dice_for(table.state, Action("first_player")) == (6, 6, 6, 6)
    table.do("first_player", 5, 2, 5, 1)
    assert table.pub["first_tie"] == ["1", "3"]
    assert GAME.dice_for(table.state, Action("first_player")) == (6, 6)
    table.do("first_player", 2, 4)
    assert table.pub["turn"] == "3"
    assert table.pub["first_tie"] == []


@pytest.mark.parametrize(("first", "rolls"), [("turn", (5, 2)), ("ai_turn", (2, 5))])
def test_starting_up_the_first_player_roll_is_refused_once_the_first_turn_has_passed(first, rolls):
    """Issue 23, point 4: the roll for who starts belongs before the race."""
    table = Table()
    table.do("first_player", 3, 3)  # a tie: roll again, still before the race
    table.do("first_player", *rolls)  # player 1 starts (and passes), or the AI starts (plays)
    table.do(first, *((1, 1) if first == "ai_turn" else ()))
    passed = "the first player is settled: the race's first turn has passed"
    with pytest.raises(Rejected, match=passed):  # refused before anyone rolls
        GAME.dice_for(table.state, Action("first_player"))
    with pytest.raises(Rejected, match=passed):
        table.do("first_player", 6, 1)
    assert table.journal[-1].name == first


def test_game_flow_turns_cycle_through_the_players_and_the_ai():
    table = Table({"players": "2", "ai": "on"})
    seen = []
    for _ in range(4):
        if table.pub["turn"] == "ai":
            table.do("ai_turn", 1, 1)  # the AI plays its turn: no one passes it
        else:
            table.do("turn")
        seen.append(table.pub["turn"])
    assert seen == ["2", "ai", "1", "2"]
    assert table.sounds.count("turn") == 3


def test_game_play_important_rule_solo_one_attack_and_one_item_per_turn():
    table = Table()
    table.do("attack", 6, kind="damage", amount=1, card="damage-1")
    with pytest.raises(Rejected, match="already cast an attack this turn"):
        table.do("attack", 6, kind="damage", amount=1, card="damage-1")
    table.do("play", card="heal-1")
    with pytest.raises(Rejected, match="already used an item this turn"):
        table.do("play", card="shield")
    table.do("ai_turn", 1, 1)  # a new turn of player 1 follows
    table.do("attack", 6, card="push-1")
    table.do("play", card="shield")
    assert len(table.pub["played"]) == 2


def test_game_play_important_rule_three_players_one_attack_per_opponent():
    table = Table({"players": "3"})
    table.do("play", card="damage-1", target="2")
    table.do("take")
    table.do("play", card="push-2", target="3")
    table.do("blocked")
    with pytest.raises(Rejected, match="already attacked Player 2 this turn"):
        table.do("play", card="paralysis", target="2")
    with pytest.raises(BadAction, match="target=P"):
        table.do("play", card="paralysis")
    assert player(table, "2")["life"] == 5


def test_action_cards_attacks_only_in_ones_own_turn_items_any_time():
    table = Table({"players": "2"})
    with pytest.raises(Rejected, match="only in their own turn"):
        table.do("play", card="damage-1", by="2")
    table.do("play", card="shield", by="2")
    assert table.pub["played"] == [{"by": "2", "group": "item", "target": None}]


def test_ruling_11_a_damage_entry_by_a_player_is_their_attack_one_a_turn_on_each_pawn():
    table = Table({"players": "2"})
    table.do("damage", player="2", amount=1, by="1")
    for _ in range(2):  # the second and third entry of the same turn
        with pytest.raises(Rejected, match="Player 1 has already cast an attack this turn"):
            table.do("damage", player="2", amount=1, by="1")
    assert player(table, "2")["life"] == 5
    assert table.pub["played"] == [{"by": "1", "group": "attack", "target": "2"}]
    table.do("damage", player="2", amount=1, by="none")  # a correction is nobody's attack
    table.do("turn")
    table.do("turn")  # player 1's next turn: a new attack is allowed
    table.do("damage", player="2", amount=1, by="1")
    assert player(table, "2")["life"] == 3


def test_ruling_11_a_played_card_and_a_damage_entry_share_one_limit_per_opponent():
    table = Table({"players": "3"})
    table.do("play", card="damage-1", by="1", target="2")
    table.do("take")
    with pytest.raises(Rejected, match="already attacked Player 2"):
        table.do("damage", player="2", amount=1, by="1")
    table.do("damage", player="3", amount=1, by="1")  # another opponent: its own attack
    with pytest.raises(Rejected, match="already attacked Player 3"):
        table.do("play", card="damage-2", by="1", target="3")
    with pytest.raises(BadAction, match="cannot attack themselves"):
        table.do("damage", player="1", amount=1, by="1")


def test_ruling_11_a_players_hit_on_the_ai_goes_through_attack_and_its_block_roll():
    table = Table()
    table.do("attack", 5, kind="damage", amount=1)
    with pytest.raises(Rejected, match="already cast an attack"):
        table.do("attack", 5, kind="damage", amount=1)
    with pytest.raises(Rejected, match="'Attack the AI': the AI rolls to block it"):
        table.do("damage", player="ai", amount=1, by="1")
    assert ai(table)["life"] == 5
    # The menu's Damage form, aimed at the AI, offers only a hit by nobody (a correction).
    table.do("ask", form="damage", player="ai")
    table.press("ok")  # the amount: 1
    assert table.screen()[1:3] == ["Hit by?", "< Nobody >"]
    table.press("ok")
    assert ai(table)["life"] == 4
    assert table.pub["players"]["1"]["loot"] == 0


# --- Victory condition / Scoring --------------------------------------------------------------


def test_victory_condition_the_relic_example_two_plus_six_plus_a_combo_is_eleven():
    table = Table()
    table.do("relic", player="1", value=2, combo=4)
    back_to_player_1(table)  # one relic a turn
    table.do("relic", player="1", value=6, combo=4)
    assert table.pub["scores"]["1"]["relics"] == 11


def test_relic_cards_one_bought_a_turn_by_each_player_tapped_or_entered():
    """Issue 23, point 3: "only one Relic card ... per turn"; the end's entries are no purchase."""
    table = Table({"players": "2"})
    table.do("relic", player="1", value=2, combo=4)
    with pytest.raises(Rejected, match="Player 1 has already bought a relic this turn"):
        table.do("relic", player="1", value=6, combo=4)
    with pytest.raises(Rejected, match="Player 1 has already bought a relic this turn"):
        table.tap("relic", value="6", combo="4")
    table.do("relic", player="2", value=1, combo=1)  # another player's purchase is their own
    table.do("play", card="shield")  # the relic is no action card: the item limit is untouched
    table.do("turn")
    table.do("turn")  # player 1's next turn: a new purchase
    table.tap("relic", value="6", combo="4")
    assert len(table.state.entry("1").relics) == 2
    table.do("scoring")  # after the race the relics are entries for the count, any number
    table.do("relic", player="1", value=3, combo=5)
    table.do("relic", player="1", value=4, combo=5)
    assert len(table.state.entry("1").relics) == 4


def test_victory_condition_race_points_winner_30_crystal_holders_their_space_else_0():
    table = Table({"players": "3"})
    table.do("finish", player="2", space=15, crystal="yes")
    table.do("finish", player="3", space=12, crystal="no")
    table.do("winner", player="1")
    scores = table.pub["scores"]
    assert [scores[p]["race"] for p in "123"] == [30, 15, 0]
    assert "ai" not in scores  # no AI pawn with three players


def test_scoring_the_minimum_race_point_is_one_with_the_crystal():
    table = Table()
    table.do("finish", player="1", space=0, crystal="yes")
    assert table.pub["scores"]["1"]["race"] == 1


def test_victory_condition_loot_values_and_one_point_per_unused_coin():
    table = Table()
    table.do("loot", player="1", value=3)
    table.do("loot", player="1", value=4)
    table.do("coins", player="1", n=2)
    table.do("coins", player="1", n=3)  # a correction, not an addition
    assert table.pub["scores"]["1"] == {"race": 0, "relics": 0, "loot": 7, "coins": 3, "total": 10}
    with pytest.raises(Rejected, match="no coins"):
        table.do("coins", player="ai", n=1)


def test_scoring_the_ai_score_is_computed_from_its_own_position_once_the_race_is_over():
    table = Table()
    table.do("ai_turn", 1, 3)  # the AI buys a relic
    table.do("set_ai", position=17, crystal="yes")
    table.do("relic", player="ai", value=5, combo=1)
    table.do("winner", player="1")
    assert table.pub["scores"]["ai"] == {
        "race": 17,
        "relics": 5,
        "loot": 0,
        "coins": 0,
        "total": 22,
    }
    assert table.pub["scores"]["1"]["race"] == 30


def test_scoring_ties_are_shown_as_ties():
    table = Table()
    table.do("set_ai", position=10, crystal="yes")
    table.do("finish", player="1", space=10, crystal="yes")
    table.do("scoring")
    table.do("held", player="1", relics=0, loot=0)
    table.do("coins", player="1", n=0)
    assert table.pub["leaders"] == ["1", "ai"]
    assert "Tie: P1 AI" in table.screen()


def test_scoring_before_final_scores_the_box_asks_each_ai_relic_and_loot_card():
    table = Table()
    table.do("ai_turn", 1, 3)  # 30 -> 28, the AI buys a relic
    table.do("damage", player="1", amount=6)  # the AI knocks player 1 out: it earns loot
    table.do("winner", player="ai")
    # Player 1 first: finish space, cards held, coins; then the AI's cards.
    assert table.pub["asking"] == {"entry": "finish", "player": "1"}
    assert table.pub["leaders"] == []
    table.do("finish", player="1", crystal="no")
    table.do("held", player="1", relics=0, loot=0)
    table.do("coins", player="1", n=0)
    assert table.pub["asking"] == {"entry": "relic", "player": "ai"}
    assert table.screen()[:2] == ["Relic AI 1/1", "Relic value"]
    table.do("relic", player="ai", value=4, combo=1)
    with pytest.raises(Rejected, match="the AI bought 1 relic, all entered"):
        table.do("relic", player="ai", value=4, combo=1)
    assert table.screen()[:2] == ["Loot AI 1/1", "Loot value"]
    table.do("loot", player="ai", value=2)
    with pytest.raises(Rejected, match="the AI earned 1 loot card, all entered"):
        table.do("loot", player="ai", value=2)
    assert table.pub["asking"] is None
    assert table.pub["leaders"] == ["ai"]
    assert table.pub["scores"]["ai"]["total"] == 36
    assert "Best: AI" in table.screen()


def test_scoring_the_race_end_walks_through_finish_cards_relics_loot_and_coins():
    table = Table()
    table.do("scoring")
    assert table.pub["scores"]["1"]["total"] == 0
    assert "Best" not in " ".join(table.screen())  # no winner shown before the entries
    asked = []
    answers = {
        "finish": {"crystal": "yes", "space": 12},
        "held": {"relics": 2, "loot": 1},
        "relic": {"value": 3, "combo": 1},
        "loot": {"value": 4},
        "coins": {"n": 2},
    }
    while table.pub["asking"] is not None:
        entry, who = table.pub["asking"]["entry"], table.pub["asking"]["player"]
        asked.append(entry)
        assert table.pub["menu"] == "form"  # the question is on screen, no menu walk
        table.do(entry, player=who, **answers[entry])
    assert asked == ["finish", "held", "relic", "relic", "loot", "coins"]
    assert table.pub["scores"]["1"] == {
        "race": 12,
        "relics": 9,
        "loot": 4,
        "coins": 2,
        "total": 27,
    }
    with pytest.raises(Rejected, match="Player 1 holds 2 relics, all entered"):
        table.do("relic", player="1", value=3, combo=1)


def test_scoring_a_question_put_aside_comes_back_with_green():
    table = Table()
    table.do("scoring")
    table.press("red")  # close the question: the scores say what is missing
    assert table.screen()[1:3] == ["Before the scores:", "Player 1: finish"]
    assert table.press("down") is None  # no one's score to look at yet
    table.press("green")
    assert table.screen()[0] == "Finish P1"


def test_scoring_is_usable_on_its_own_and_then_play_stops():
    table = Table({"players": "2"})
    table.do("relic", player="2", value=3, combo=1)
    table.do("scoring")
    assert table.pub["race_over"] is True and table.pub["winner"] is None
    assert set(table.pub["scores"]) == {"1", "2"}
    with pytest.raises(Rejected, match="race is over"):
        table.do("turn")
    table.do("loot", player="1", value=2)  # entries go on
    assert table.pub["scores"]["1"]["total"] == 2


def test_one_race_winner_only():
    table = Table()
    table.do("winner", player="1")
    with pytest.raises(Rejected, match="already has a winner"):
        table.do("winner", player="ai")


def test_ruling_8_relic_entries_never_exceed_the_deck_in_whatever_order_they_come():
    table = Table({"players": "2"})
    for n in range(20):
        table.do("relic", player="1" if n < 18 else "2", value=1, combo=1 + n // 2)
        table.do("turn")  # one relic a turn
    for who in ("1", "2"):
        with pytest.raises(Rejected, match="the game has 20 relic cards: Player"):
            table.do("relic", player=who, value=1, combo=1)
    table.do("scoring")
    # the count can still be answered, and only within what is left of the deck
    with pytest.raises(Rejected, match="Player 2 can have 2 at most"):
        table.do("held", player="2", relics=3, loot=0)
    table.do("ask", form="held", player="2")
    assert table.screen()[1:3] == ["Relic cards held", "< 2 >"]
    table.press("down")  # numbers go down with down: 2 -> 1 -> 0 -> back to the top, 2
    table.press("down")
    table.press("down")
    assert table.screen()[2] == "< 2 >"


def test_ruling_8_a_count_said_first_bounds_everyone_elses_entries():
    table = Table()  # solo: the AI's bought relics are cards of the deck too
    table.do("ai_turn", 1, 3)  # Buy relic
    with pytest.raises(Rejected, match="the game has 20 relic cards: Player 1 can have 19"):
        table.do("held", player="1", relics=20, loot=0)
    table.do("held", player="1", relics=19, loot=16)
    for n in range(19):
        table.do("relic", player="1", value=1, combo=1 + n // 2)  # two cards a combo number
        back_to_player_1(table)  # one relic a turn
    with pytest.raises(Rejected, match="Player 1 holds 19 relics, all entered"):
        table.do("relic", player="1", value=1, combo=10)


# --- malformed input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "rolls"),
    [
        ("fly", {}, ()),
        ("ai_turn", {}, (5, 1)),  # a d4 has no 5
        ("ai_turn", {}, (1,)),
        ("relic", {"player": "4", "value": 2, "combo": 1}, ()),
        ("relic", {"player": "1", "value": 2}, ()),
        ("loot", {"player": "1", "value": 9}, ()),
        ("damage", {"player": "1", "amount": "lots"}, ()),
        ("finish", {"player": "1", "crystal": "maybe", "space": 3}, ()),
        ("ai_turn", {"rolled": "1,4"}, (1, 4)),  # faces come as rolls, never as an argument
        ("attack", {"kind": "damage", "amout": 3}, (6,)),  # a typo is not quietly amount=1
        ("ai_turn", {"id": "now"}, (1, 4)),
    ],
)
def test_malformed_actions_are_bad_actions(name, args, rolls):
    table = Table()
    with pytest.raises(BadAction):
        GAME.apply(table.state, Action(name, args, rolls))


def test_card_ids_outside_the_catalog_are_bad_actions():
    table = Table()
    table.do("ai_turn", 1, 4)
    with pytest.raises(BadAction, match="unknown action card"):
        table.do("card", id="fireball")
    with pytest.raises(BadAction):
        table.do("card")


@pytest.mark.parametrize(
    "options",
    [{"players": "4"}, {"ai_route": "tunnel"}, {"ai_move": "d6"}, {"colour": "red"}],
)
def test_bad_options_name_themselves(options):
    key = next(iter(options))
    with pytest.raises(BadAction, match=key):
        GAME.check_options(options)


def test_options_defaults_and_the_ai_plays_alone_with_one_player():
    assert GAME.check_options({}) == {
        "players": 1,
        "ai_route": "long",
        "ai_move": "d4",
        "ai": "on",
        "board": "default",
    }
    assert GAME.check_options({"board": ""})["board"] == "default"  # games saved before
    assert GAME.check_options({"players": "2"})["ai"] == "off"
    table = Table({"players": "2"})
    with pytest.raises(Rejected, match="no AI"):
        table.do("ai_turn", 1, 1)


def test_the_words_of_a_heal_a_push_and_an_entry_after_the_race():
    """Issue 42, point 13: "heals 1: life 6 -> 6", "back 1 spaces", and a relic or loot entered
    for the count after the race said its value was hidden until the race is over."""
    table = Table()
    table.do("play", card="heal-1")  # player 1 at full life
    assert table.logs[-1] == "Player 1 heals 1: life already full (6)"
    assert "P1 life full: 6" in table.screen()
    table.do("ai_turn", 1, 4)
    table.do("card", id="push-1")
    table.do("take")
    assert "Player 1 goes back 1 space" in table.logs
    assert "P1: back 1 space" in table.screen()
    table.do("scoring")
    table.do("relic", player="1", value=4, combo=2)
    assert table.logs[-1] == "Relic 4, combo 2 entered for Player 1"
    table.do("loot", player="1", value=3)
    assert table.logs[-1] == "Loot 3 entered for Player 1"
    assert not any("hidden" in line for line in table.logs[-2:])
