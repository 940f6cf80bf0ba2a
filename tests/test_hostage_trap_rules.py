"""Hostage Trap! rules, each cited: the rulebook's sections (rules/hostage-trap.txt: "How Turns
Work", "Traps", "Attacking", "Hostages", the win) and the readings in rulings.md ("ruling N")."""

from __future__ import annotations

import pytest
from test_hostage_trap_support import Table

from companion.games.base import Action, BadAction
from companion.games.hostage_trap import GAME


def test_options_have_the_contracts_names_defaults_and_bounds() -> None:
    assert GAME.check_options({}) == {
        "players": 4,
        "hand": 5,
        "hostages": 3,
        "spares": "aside",
        "turn_seconds": 0,
    }
    given = {"players": "7", "hand": "7", "hostages": "7", "turn_seconds": "45"}
    assert GAME.check_options(given) == {
        "players": 7,
        "hand": 7,
        "hostages": 7,
        "spares": "aside",
        "turn_seconds": 45,
    }
    bad_values = (("players", "2"), ("players", "8"), ("hand", "4"), ("hostages", "8"))
    for key, bad in (*bad_values, ("spares", "discarded")):
        with pytest.raises(BadAction, match=key):
            GAME.check_options({key: bad})
    with pytest.raises(BadAction, match="turn_seconds"):
        GAME.check_options({"turn_seconds": "ten"})
    with pytest.raises(BadAction, match="seats"):
        GAME.check_options({"seats": "3"})


def test_seat_1_plays_first_and_turns_go_clockwise() -> None:
    """Ruling 1 (seat 1 starts) and the contract's Seats: after the last seat comes 1."""
    table = Table.new(players=3)
    assert table.public["turn"] == 1
    table.end_turns(3)
    assert table.public["turn"] == 1
    assert table.public["turn_no"] == 4


def test_a_turn_holds_one_draw() -> None:
    """Ruling 3: at most one draw a turn."""
    table = Table.new()
    assert table.do("draw", target=2)
    assert not table.do("draw", target=3)
    assert table.rejected == ["one draw a turn"]
    assert table.public["drew"] is True


def test_an_attack_comes_before_the_draw_and_only_one_a_turn() -> None:
    """Attacking: an attack is played before drawing; ruling 3."""
    table = Table.new()
    table.do("draw", target=2)
    assert not table.do("attack", target=2, result="hit")
    table.end_turns(1)
    assert table.do("attack", target=3, result="hit")
    assert not table.do("attack", target=4, result="hit")
    assert table.rejected == ["an attack comes before the draw", "one attack a turn"]


def test_after_a_hit_the_draw_is_from_the_attacked_seat() -> None:
    """Attacking: you cannot attack one player and then draw from a different player's hand."""
    table = Table.new()
    table.do("attack", target=3, result="hit")
    assert table.public["attack"] == 3
    assert not table.do("draw", target=2)
    assert table.rejected == ["after the attack, draw from seat 3"]
    assert table.do("draw", target=3)
    assert table.public["attack"] is None


def test_a_failed_attack_ends_the_turn() -> None:
    """Attacking: if an attack fails, your turn ends and you do not draw."""
    table = Table.new()
    assert table.do("attack", target=2, result="failed")
    assert table.public["turn"] == 2
    assert table.public["attack"] is None


def test_looking_at_a_hand_replaces_the_whole_turn() -> None:
    """How Turns Work: instead of a turn, discard 3 to see a hand; ruling 3."""
    table = Table.new()
    assert table.do("peek", target=3)
    assert table.public["turn"] == 2
    table.do("draw", target=1)
    assert not table.do("peek", target=3)
    table.end_turns(1)
    table.do("attack", target=1, result="hit")
    assert not table.do("peek", target=1)
    assert table.rejected == ["looking at a hand replaces the whole turn"] * 2


def test_one_hostage_ability_a_turn_at_any_point() -> None:
    """Hostages: one ability per turn, at any point of the turn; ruling 5. Colours are words."""
    table = Table.new()
    assert table.do("draw", target=2)
    assert table.do("ability", color="Blue")
    assert table.logs[-1] == "Seat 1 uses the blue hostage's ability"
    assert not table.do("ability", color="teal")
    assert table.rejected == ["one hostage ability a turn"]
    table.end_turns(1)
    assert table.do("ability", color="teal")
    with pytest.raises(BadAction, match="color"):
        GAME.apply(table.state, Action("ability", {"color": "two words"}))


def test_no_seat_draws_from_itself_and_a_seat_must_be_at_the_table() -> None:
    table = Table.new(players=3)
    assert not table.do("draw", target=1)
    assert table.rejected == ["choose another seat than your own"]
    for bad in ("4", "0", "x", "٣"):
        with pytest.raises(BadAction, match="target"):
            GAME.apply(table.state, Action("draw", {"target": bad}))


def test_a_trap_costs_its_taker_turns_and_the_box_reminds_it_to_take_the_card() -> None:
    """Traps: the trap ends the turn; a trap lasting turns stays out until they have passed,
    then goes into the hand; ruling 4 (the box counts, skips and reminds)."""
    table = Table.new(players=3)
    assert not table.do("trap", turns=2)
    assert table.rejected == ["a trap counts only when drawn this turn"]
    table.do("draw", target=2)
    assert table.do("trap", turns=2)
    assert table.public["turn"] == 2
    assert table.public["held"] == {"1": 2}
    table.end_turns(2)  # seat 3 ends: seat 1 sits out, seat 2 plays
    assert table.public["turn"] == 2
    assert table.public["turn_no"] == 5  # the lost turn counts
    assert table.public["held"] == {"1": 1}
    assert table.public["notice"] == ["Seat 1 sat out: 1 more"]
    table.end_turns(2)
    assert table.public["held"] == {}
    assert table.public["take_trap"] == [1]
    assert "Seat 1 sits out its last turn: take the trap card into your hand" in table.logs
    table.end_turns(1)
    assert table.public["turn"] == 3
    table.end_turns(1)
    assert table.public["turn"] == 1  # seat 1 plays again, reminded until its turn ends
    table.end_turns(1)
    assert table.public["take_trap"] == []


def test_a_trap_that_lets_the_turn_go_on_and_a_trap_of_no_turns() -> None:
    """Traps: the turn ends unless the trap says otherwise; one trap per draw."""
    table = Table.new(players=3)
    table.do("draw", target=2)
    assert table.do("trap", turns=1, ends="no")
    assert table.public["turn"] == 1
    assert table.public["held"] == {"1": 1}
    assert not table.do("trap", turns=1)
    assert table.rejected == ["this turn's draw is already filed as a trap"]
    table.end_turns(1)
    table.do("draw", target=3)
    assert table.do("trap", turns=0)
    assert table.public["turn"] == 3
    assert table.public["held"] == {"1": 1}


def test_every_seat_but_one_sitting_out_is_passed_in_one_go() -> None:
    table = Table.new(players=3)
    for _ in range(2):
        table.do("draw", target=3)
        table.do("trap", turns=3)
    assert table.public["turn"] == 3
    assert table.public["held"] == {"1": 3, "2": 3}
    table.end_turns(1)
    assert table.public["turn"] == 3
    assert table.public["turn_no"] == 6
    assert table.public["held"] == {"1": 2, "2": 2}


def test_a_claim_with_enough_different_hostages_wins_and_ends_the_game() -> None:
    """The win: the first to hold the hostages needed; ruling 6 (the box checks they differ)."""
    table = Table.new(hostages=3)
    assert not table.do("claim", player=3, hostages="blue,red,blue")
    assert table.rejected == ["only 2 different hostages; 3 needed"]
    assert table.public["winner"] is None
    assert table.do("claim", player=3, hostages="blue,red,green")
    assert table.public["winner"] == 3
    assert table.public["turn"] is None
    assert table.sounds[-1] == "win"
    assert not table.do("next")
    assert table.rejected[-1] == "the game is over"


def test_tapped_hostages_win_once_enough_differ_and_say_nothing_else_before() -> None:
    """Ruling 6: the winner taps its hostages; a claim that falls short says how many the box
    saw and nothing else (no colour in what is shown or said)."""
    table = Table.new(players=4, hostages=3)
    assert table.do("show", player=2, color="blue")
    table.wait(3)
    assert table.do("show", color="blue")  # the same card again counts once
    assert table.do("show", color="red")
    assert table.public["claim"] == {"player": 2, "seen": 2, "wait": 15.0}
    assert not table.do("show", player=3, color="green")
    assert table.rejected == ["seat 2 is showing hostages now"]
    table.wait(16)  # the wait runs out
    assert table.public["claim"] is None
    assert table.public["notice"] == ["Seat 2: saw 2 hostages", "3 needed to win"]
    said = " ".join(table.logs + table.public["notice"])
    assert "blue" not in said and "red" not in said
    for colour in ("blue", "red", "green"):
        assert table.do("show", player=2, color=colour)
    assert table.public["winner"] == 2
    assert table.public["winning"] == ["blue", "red", "green"]
    assert "claim" not in table.timers


def test_unknown_actions_and_arguments_are_malformed() -> None:
    state = Table.new().state
    for action in (
        Action("steal", {}),
        Action("draw", {"taget": "2"}),
        Action("attack", {"target": "2", "result": "maybe"}),
        Action("trap", {"turns": "-1"}),
        Action("claim", {"player": "2", "hostages": "blue,,red"}),
    ):
        with pytest.raises(BadAction):
            GAME.apply(state, action)


# --- the turn timer ------------------------------------------------------------------------


def test_the_first_turns_timer_runs_from_the_start_and_each_turn_gets_a_fresh_one() -> None:
    table = Table.new(players=3, turn_seconds=30)
    table.wait(12)
    assert table.public["timer"] == {"remaining": 18.0, "running": True}
    table.do("next")
    assert table.public["timer"] == {"remaining": 30.0, "running": True}
    table.wait(5)
    assert table.public["timer"]["remaining"] == 25.0


def test_an_action_before_the_timers_start_starts_it() -> None:
    table = Table.new(players=3, turn_seconds=30)
    table.now = 2.0  # in replay, a `do` at the start comes before the begin schedule fires
    table.do("ability", color="blue")
    assert "begin" not in table.timers
    table.wait(10)
    assert table.public["timer"]["remaining"] == 20.0


def test_at_zero_the_turn_passes_as_with_next_after_a_warning() -> None:
    """The contract: when the countdown reaches 0 the box sounds and the turn passes."""
    table = Table.new(players=3, turn_seconds=20)
    table.do("draw", target=2)
    table.wait(9.5)
    assert "hurry" not in table.sounds
    table.wait(1)
    assert table.sounds.count("hurry") == 1
    table.wait(9.6)
    assert table.public["turn"] == 2
    assert table.sounds[-2:] == ["time_up", "turn"]
    assert table.public["notice"][0] == "Seat 1: time is up"
    assert table.public["drew"] is False


def test_a_timed_out_turn_still_passes_seats_that_sit_out() -> None:
    table = Table.new(players=3, turn_seconds=20)
    table.do("draw", target=2)
    table.do("trap", turns=1)
    table.wait(41)  # seats 2 and 3 run out of time; seat 1 sits out
    assert table.public["turn"] == 2
    assert table.public["turn_no"] == 5
    assert table.public["held"] == {}


def test_pause_and_resume_keep_the_time_left() -> None:
    table = Table.new(players=3, turn_seconds=30)
    table.wait(10)
    assert table.do("pause")
    table.wait(100)
    assert table.public["timer"] == {"remaining": 20.0, "running": False}
    assert not table.do("pause")
    assert table.do("resume")
    table.wait(19)
    assert table.public["turn"] == 1
    table.wait(1.5)
    assert table.public["turn"] == 2


def test_a_power_cut_pauses_the_timer_and_drops_a_claim_being_tapped() -> None:
    """As Trapwords: no schedule survives a power cut, so the timer comes back paused."""
    table = Table.new(players=3, turn_seconds=30)
    table.wait(7.5)
    table.do("show", player=2, color="blue")
    restored = GAME.restore(table.state)
    assert not restored.timer.running
    assert restored.timer.remaining(99.0) == pytest.approx(22.5)
    assert restored.showing is None
    assert GAME.restore(restored) == restored


def test_no_timer_without_turn_seconds() -> None:
    table = Table.new()
    assert "timer" not in table.public
    assert not table.do("pause")
    assert table.rejected == ["this game has no turn timer"]
