"""Deathtrap Dungeon rules, each test naming the rulebook section (rules/deathtrap-dungeon.txt)
or the ruling (../shared/notes/rulings.md) it checks."""

from __future__ import annotations

import pytest
from test_deathtrap_support import act, new, run

from companion.games.base import BadAction, Rejected
from companion.games.deathtrap_dungeon import GAME
from companion.games.deathtrap_dungeon.state import DEAL, OVER, PLAY


def refused(state, line: str, reason: str) -> None:
    with pytest.raises(Rejected, match=reason):
        GAME.apply(state, act(line))


def started(players: int = 4, **options: str):
    return run(new(players=str(players), **options), "pig player=1")


# --- section 2, ruling 2: the Exploding Pig ---------------------------------------------------


def test_pig_holder_discards_and_the_player_on_their_left_leads() -> None:
    state = run(new(), "pig player=4")
    assert (state.phase, state.turn, state.leader) == (PLAY, 1, 1)
    assert run(new(), "pig player=2").turn == 3


def test_pig_choose_option_the_holder_names_the_leader_and_must_name_one() -> None:
    state = new(pig="choose")
    refused(state, "pig player=2", "names who leads")
    assert run(state, "pig player=2 lead=2").turn == 2


def test_with_pig_left_a_lead_argument_is_ignored() -> None:
    assert run(new(), "pig player=2 lead=1").turn == 3


def test_nothing_but_the_pig_before_the_round_starts() -> None:
    state = new()
    refused(state, "play n=1 value=3", "Deal first")
    refused(state, "pass", "Deal first")
    refused(state, "killing_machine player=1", "Deal first")
    refused(started(), "pig player=1", "under way")


def test_a_seat_outside_the_table_is_malformed() -> None:
    with pytest.raises(BadAction, match="player=5"):
        GAME.apply(new(), act("pig player=5"))
    with pytest.raises(BadAction, match="player='x'"):
        GAME.apply(new(), act("pig player=x"))


# --- section 3, ruling 3: what beats the table -------------------------------------------------


def test_the_leader_puts_down_any_number_of_one_set() -> None:
    state = run(started(), "play n=3 value=4")
    assert (state.table.n, state.table.value, state.table.by) == (3, 4, 2)
    assert state.turn == 3


def test_same_number_and_strictly_higher_value_beats_the_table() -> None:
    state = run(started(), "play n=4 value=3")  # four Skeletons (3)
    assert run(state, "play n=4 value=5").table.by == 3  # four Warriors (5)
    refused(state, "play n=4 value=3", "worth more than 3")  # only equal
    refused(state, "play n=4 value=2", "worth more than 3")
    refused(state, "play n=3 value=9", "Put down 4 cards")


def test_wilds_join_any_set_and_alone_are_worth_zero() -> None:
    state = started()
    assert run(state, "play n=3 value=5 wild=2").table.wild == 2
    alone = run(state, "play n=2 value=0 wild=2")
    assert alone.table.value == 0
    assert run(alone, "play n=2 value=1").table.value == 1
    refused(state, "play n=2 value=4 wild=2", "worth 0")
    refused(state, "play n=2 value=0 wild=1", "only wilds")
    refused(state, "play n=2 value=0", "only wilds")
    refused(state, "play n=2 value=3 wild=3", "3 wilds cannot")


def test_pass_is_refused_on_an_empty_table_and_to_seats_not_on_turn() -> None:
    state = started()
    refused(state, "pass", "leader puts cards down")


def test_a_seat_that_passed_plays_again_after_a_new_play() -> None:
    # ruling 4: "passed since the last play"
    state = run(started(), "play n=1 value=2", "pass", "play n=1 value=3")
    assert state.passed == ()
    assert state.turn == 1
    state = run(state, "pass", "pass")
    assert state.turn == 3  # seat 3 passed before seat 4 played, and may now play again


# --- section 4, ruling 4: the end of a hand -------------------------------------------------


def test_hand_won_when_every_other_seat_passed_and_the_winner_leads() -> None:
    state = run(started(), "play n=2 value=3", "pass", "pass", "pass")
    assert state.table is None and state.passed == ()
    assert (state.turn, state.leader) == (2, 2)
    assert (state.start.why, state.start.by) == ("won", 2)


def test_lead_passes_left_past_seats_that_are_out() -> None:
    state = run(started(), "play n=2 value=3 out=yes")
    assert state.finished == (2,)
    state = run(state, "pass", "pass", "pass")
    assert state.turn == 3 and state.leader == 3
    # seat 3 is also out next: the lead then goes to 4, skipping nobody, then to 1
    state = run(state, "play n=1 value=1 out=yes", "pass")
    assert state.turn == 1 and state.passed == (4,)
    state = run(state, "pass")
    assert state.leader == 4


def test_turns_skip_seats_that_are_out() -> None:
    state = run(started(), "play n=1 value=1", "play n=1 value=2 out=yes", "pass")
    assert state.turn == 1  # seat 3 is out: after 4 comes 1
    state = run(state, "pass", "pass")
    assert state.table is None and state.turn == 4  # seat 3 won but is out: 4 leads


# --- section 6, ruling 5: The Killing Machine -----------------------------------------------


def test_killing_machine_stops_the_hand_out_of_turn_and_its_player_leads() -> None:
    state = run(started(), "play n=2 value=3", "killing_machine player=1")
    assert state.table is None and state.passed == ()
    assert (state.turn, state.leader) == (1, 1)
    assert state.start.why == "killing-machine"


def test_killing_machine_as_the_last_card_hands_the_lead_left() -> None:
    state = run(started(), "killing_machine player=4 out=yes")
    assert state.finished == (4,) and state.turn == 1


def test_killing_machine_by_a_seat_that_is_out_is_refused() -> None:
    state = run(started(), "play n=1 value=1 out=yes")
    refused(state, "killing_machine player=2", "Seat 2 is out")


# --- section 4 and 7, rulings 6 to 8: the round's end, points, titles, exchanges ------------


def finish_round(state, order: list[int]):
    """Each seat of ``order`` in turn leads a single card and goes out, the others pass."""
    for seat in order[:-1]:
        while state.turn != seat:
            if state.table is None:
                state = run(state, f"killing_machine player={seat}")
            else:
                state = run(state, "pass")
        state = run(state, "play n=1 value=1 out=yes")
        if state.phase != PLAY:
            break
        while state.table is not None:
            state = run(state, "pass")
    return state


def test_points_by_player_count_and_titles() -> None:
    state = finish_round(started(6), [3, 1, 5, 2, 6, 4])
    assert state.phase == DEAL and state.round == 2
    assert state.finished == (3, 1, 5, 2, 6, 4)
    assert state.history[-1] == (5, 3, 6, 1, 4, 2)  # 6 players: 6, 5, 4, 3, 2, 1 points
    assert dict(state.titles) == {3: "big-hero", 1: "hero", 6: "wimp", 4: "total-wimp"}


def test_exchanges_before_the_next_round() -> None:
    state = finish_round(started(5), [2, 4, 1, 5, 3])
    gives = [(e.giver, e.to, e.cards, e.highest) for e in state.exchanges]
    assert gives == [(3, 2, 2, True), (2, 3, 2, False), (5, 4, 1, True), (4, 5, 1, False)]


def test_last_seat_holding_cards_finishes_last_without_playing() -> None:
    state = finish_round(started(4), [1, 2, 3, 4])
    assert state.finished == (1, 2, 3, 4)
    assert state.turn is None and state.table is None


def test_four_rounds_then_the_most_points_win_and_ties_share() -> None:
    state = started(4)
    for number, order in enumerate(([1, 2, 3, 4], [2, 1, 3, 4], [1, 2, 4, 3], [2, 1, 4, 3]), 1):
        if number > 1:
            state = run(state, "pig player=1")
        state = finish_round(state, order)
    assert state.phase == OVER
    assert state.points == (14, 14, 6, 6)
    assert state.winner == (1, 2)  # ruling 8: no tiebreak
    refused(state, "pig player=1", "over")
    refused(state, "pass", "over")


def test_rounds_option() -> None:
    state = finish_round(started(4, rounds="1"), [1, 2, 3, 4])
    assert state.phase == OVER and state.winner == (1,)


# --- tapped cards build the play (ruling 9) ------------------------------------------------


def test_taps_build_one_set_with_wilds_and_green_plays_it() -> None:
    state = run(started(), "add card=orc value=2 uid=A1", "add card=wild uid=W1")
    state = run(state, "add card=orc value=2 uid=A2")
    building = state.building
    assert (building.set, building.value, building.n, building.wild) == ("orc", 2, 3, 1)
    refused(state, "add card=troll value=7 uid=T1", "One set at a time")
    refused(state, "add card=orc value=2 uid=A1", "already in this play")
    state = run(state, "play n=3 value=2 wild=1 set=orc")
    assert state.building is None and state.table.set == "orc"
    assert state.played == {"A1", "A2", "W1"}


def test_a_card_put_down_cannot_be_tapped_again_this_round() -> None:
    state = run(started(), "add card=orc value=2 uid=A1", "play n=1 value=2")
    refused(run(state, "pass", "pass", "pass"), "add card=orc value=2 uid=A1", "earlier this round")


def test_clear_and_pass_drop_the_tapped_cards() -> None:
    state = run(started(), "add card=orc value=2")
    assert run(state, "clear").building is None
    refused(run(state, "clear"), "clear", "No cards tapped")
    state = run(state, "play n=1 value=2", "add card=troll value=7", "pass")
    assert state.building is None


def test_killing_machine_goes_down_alone() -> None:
    state = run(started(), "add card=orc value=2")
    refused(state, "killing_machine player=2", "goes down alone")
    assert run(state, "killing_machine player=3").building is None


def test_malformed_actions_name_the_argument() -> None:
    state = started()
    for line, word in (
        ("play n=0 value=3", "n=0"),
        ("play n=2", "value"),
        ("play n=2 value=3 out=maybe", "out="),
        ("play n=2 value=3 colour=red", "colour"),
        ("add card=Orc value=2", "card="),
        ("shuffle", "shuffle"),
    ):
        with pytest.raises(BadAction, match=word):
            GAME.apply(state, act(line))
