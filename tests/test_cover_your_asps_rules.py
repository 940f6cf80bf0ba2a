"""Cover Your Asps rules, each test naming the rulebook section (rules/cover-your-asps.txt) or
the ruling (../shared/notes/rulings.md "Cover Your Asps", docs/rulings-cover-your-asps.md) it
enforces, through the replay contract's state."""

from __future__ import annotations

import pytest
from cover_your_asps_support import Table
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.base import Action, BadAction
from companion.games.cover_your_asps import GAME

# --- Setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "treasure"), [(2, 6), (3, 9), (4, 12)])
def test_setup_treasure_cards_per_player_count_and_two_action_cards_each(players, treasure):
    """Setup: 6, 9 or 12 treasure cards; two action cards dealt to each player."""
    table = Table.new(players=players)
    state = table.public
    assert state["treasure_left"] == treasure
    assert state["turn"] == 1 and state["round"] == 1 and state["vault"] == 1
    assert state["acted"] is False and state["over"] is False and state["winner"] is None
    assert list(state["seats"]) == [str(n) for n in range(1, players + 1)]
    for seat in state["seats"].values():
        assert seat == {
            "phase": "build",
            "inside": False,
            "cards": 2,
            "treasures": 0,
            "escapes": 0,
            "points": None,
            "planks": None,
            "count": None,
            "counted": 0,
        }


def test_the_starting_vault_is_an_option():
    """Configurable Game: start with the shortest vault, or a taller one for a harder game."""
    assert Table.new(vault=3).public["vault"] == 3


@pytest.mark.parametrize(
    ("option", "named"),
    [({"players": "5"}, "players='5'"), ({"vault": "0"}, "vault='0'"), ({"tiebreak": "age"}, "")],
)
def test_a_bad_option_is_named(option, named):
    with pytest.raises(BadAction, match=named or "tiebreak"):
        GAME.check_options(option)


# --- Turns (rulings 1) --------------------------------------------------------------------------


def test_play_goes_clockwise_and_wraps_to_seat_one():
    """Rulings 1: play goes clockwise by seat."""
    table = Table.new(players=3)
    seen = [table.public["turn"]]
    for _ in range(3):
        table.end_turn()
        seen.append(table.public["turn"])
    assert seen == [1, 2, 3, 1]


def test_a_turn_holds_one_action_a_second_is_refused():
    """Rulings 1 / Game Play: "players may perform one of these actions per turn"."""
    table = Table.new()
    table.must("plank", 2, 3)
    assert table.public["acted"] is True
    assert "has acted: end the turn" in table.refused("card")
    assert "has acted: end the turn" in table.refused("plank", 1, 1)
    table.end_turn()
    assert table.public["acted"] is False
    assert table.public["turn"] == 2


def test_a_turn_may_end_without_an_action():
    table = Table.new()
    table.end_turn()
    assert table.public["turn"] == 2


def test_an_action_by_the_wrong_seat_is_refused():
    table = Table.new(players=3)
    assert table.refused("plank", 2, 3, player=2) == "it is Seat 1's turn, not Seat 2's"
    assert table.refused("next", player=3) == "it is Seat 1's turn, not Seat 3's"
    table.must("plank", 2, 3, player=1)


def test_a_refused_roll_rolls_no_dice():
    """The table is never asked to read its dice for a roll the rules refuse."""
    table = Table.new()
    with pytest.raises(Exception, match="is building: report built first"):
        GAME.dice_for(table.state, Action("enter"))


@pytest.mark.parametrize("bad", [(), (7, 1), (0, 2), (1, 2, 3)])
def test_malformed_dice_are_a_bad_action(bad):
    table = Table.new()
    with pytest.raises(BadAction):
        GAME.apply(table.state, Action("plank", rolls=bad))


def test_unknown_actions_and_arguments_are_malformed():
    table = Table.new()
    with pytest.raises(BadAction, match="no action 'jump'"):
        GAME.dice_for(table.state, Action("jump"))
    with pytest.raises(BadAction, match="no argument 'seat'"):
        GAME.apply(table.state, Action("next", {"seat": "1"}))
    with pytest.raises(BadAction, match="player="):
        GAME.apply(table.state, Action("next", {"player": "5"}))


# --- Phases ------------------------------------------------------------------------------------


def test_build_phase_rolls_both_dice_for_a_plank():
    """Build Phase, Lay a Plank: roll both dice."""
    table = Table.new()
    assert GAME.dice_for(table.state, Action("plank")) == (6, 6)
    table.must("plank", 2, 5)
    assert table.public["last_roll"] == [2, 5]
    assert table.public["doubles"] is None


def test_alternate_planking_draws_instead_of_rolling():
    """Alternate Way of Planking: a plank turn rolls nothing."""
    table = Table.new(planking="draw")
    assert GAME.dice_for(table.state, Action("plank")) == ()
    table.must("plank")
    assert table.public["last_roll"] == []
    assert table.public["doubles"] is None
    assert table.public["acted"] is True


def test_built_moves_to_collect_and_entry_needs_both_dice():
    """Collect Phase: roll two dice to enter on a matching entrance plank."""
    table = Table.new()
    assert "is building: report built first" in table.refused("enter", 1, 2)
    assert "building: roll for a plank" in table.refused("move", 3)
    table.built()
    assert table.seat(1)["phase"] == "collect"
    table.around()
    assert GAME.dice_for(table.state, Action("enter")) == (6, 6)
    assert table.refused("move", 3) == "Seat 1 is outside: roll to enter"
    table.must("enter", 4, 6)
    table.must("entered")
    assert table.seat(1)["inside"] is True


def test_entered_only_after_an_entry_roll_this_turn():
    """Replay contract: `entered` only after an `enter` roll this turn ("if no match, try again
    on your next turn")."""
    table = Table.new()
    table.built()
    table.around()
    assert table.refused("entered") == "enter needs an entry roll this turn"
    table.must("enter", 1, 2)
    table.around()
    assert table.refused("entered") == "enter needs an entry roll this turn"


def test_inside_the_raider_moves_with_one_die():
    """Collect Phase: roll a single die to move."""
    table = Table.new()
    table.built()
    table.around()
    table.must("enter", 1, 2)
    table.must("entered")
    table.around()
    assert GAME.dice_for(table.state, Action("move")) == (6,)
    assert "raider is inside" in table.refused("enter", 1, 2)
    table.must("move", 5)
    assert table.public["last_roll"] == [5]


def test_reaching_the_vault_takes_a_treasure_and_starts_the_escape():
    """Escape Phase: step off the vault, collect one treasure card, the player on the right
    places a scorpion."""
    table = Table.new(players=3)
    table.built()
    assert table.refused("vault") == "Seat 1 is outside"
    table.around()
    table.must("enter", 1, 2)
    table.must("entered")
    table.around()
    table.must("move", 4)
    table.must("vault")
    state = table.public
    assert state["treasure_left"] == 8
    assert table.seat(1)["phase"] == "escape" and table.seat(1)["treasures"] == 1
    assert state["checklist"] == "vault"
    assert any("Seat 3 places a scorpion" in line for line in table.logs)


def _escaping(players: int) -> Table:
    """Seat 1 has reached the vault; its next turn starts the escape."""
    table = Table.new(players=players)
    table.to_the_vault()
    table.around()
    return table


@pytest.mark.parametrize(("players", "right"), [(2, 2), (3, 3), (4, 4)])
def test_escaping_draws_an_action_card_and_starts_a_new_build(players, right):
    """Escape Phase, upon reaching the entrance: remove the scorpion, collect an action card,
    uncover a pit, add a pillar to the antechamber of the player on your right (rulings 9: the
    escaping player puts it in the previous seat's antechamber), a new build phase (rulings 2:
    the raider is outside again)."""
    assert Table.new(players=players).refused("escaped") == "Seat 1 is in the build phase"
    table = _escaping(players)
    table.must("move", 6)
    table.must("escaped")
    seat = table.seat(1)
    assert seat == {**seat, "phase": "build", "inside": False, "cards": 3, "escapes": 1}
    assert table.public["checklist"] == "escape"
    assert f"Seat 1 puts a pillar in Seat {right}'s antechamber" in table.logs
    assert not any("pillar to Seat 1" in line for line in table.logs)


def test_the_pillar_goes_to_the_previous_seat_whoever_escapes():
    """Rulings 9, for a seat other than the first: seat 3 of 4 escapes, seat 2 gets it."""
    table = Table.new(players=4)
    table.end_turn()
    table.end_turn()
    table.to_the_vault()
    table.around()
    table.must("move", 2)
    table.must("escaped")
    assert table.logs[-1] == "Seat 3 puts a pillar in Seat 2's antechamber"


def test_no_escape_in_the_vaults_turn_and_no_build_in_the_escapes_turn():
    """Escape Phase: "on subsequent turns" the raider moves back; the escape uncovers a pit
    that the new build phase must cover first."""
    table = Table.new()
    table.to_the_vault()
    assert table.refused("escaped") == "Seat 1 escapes on a later turn"
    table.around()
    table.must("move", 3)
    table.must("escaped")
    assert table.refused("built") == "Seat 1 builds on a later turn"
    table.around()
    table.must("plank", 2, 5)
    # a later turn, but seat 2 has not escaped yet: one treasure a round (rulings 4)
    assert table.refused("built") == ("Seat 1 has escaped this round: build on, collect in round 2")


def test_a_plank_roll_is_allowed_in_every_phase():
    """Escape Phase, Add a Plank; Collect: "cover it with a plank first"."""
    table = Table.new()
    table.built()
    table.around()
    table.must("plank", 1, 2)
    table.around()
    table.must("enter", 1, 2)
    table.must("entered")
    table.around()
    table.must("move", 4)
    table.must("vault")
    table.around()
    table.must("plank", 3, 4)


# --- Reports follow their action (rulings 1) --------------------------------------------------


def test_built_needs_a_plank_or_a_card_this_turn():
    """Rulings 1: planks (or a card) build."""
    table = Table.new()
    assert table.refused("built") == "building to the vault needs a plank (or a card) this turn"
    table.must("plank", 1, 4)
    table.around()
    assert "needs a plank (or a card)" in table.refused("built")
    table.must("card")
    table.must("built")
    assert table.seat(1)["phase"] == "collect"


def test_built_after_a_drawn_plank():
    """Alternate planking: the drawn plank is the turn's plank."""
    table = Table.new(planking="draw")
    table.must("plank")
    table.must("built")


def test_the_vault_and_the_escape_need_a_move_or_a_card_this_turn():
    """Rulings 1: a move (or a card) reaches the vault or the entrance."""
    table = Table.new()
    table.built()
    table.around()
    table.must("enter", 1, 2)
    table.must("entered")
    assert table.refused("vault") == "reaching the vault needs a move (or a card) this turn"
    table.around()
    table.must("plank", 1, 2)
    assert table.refused("vault") == "reaching the vault needs a move (or a card) this turn"
    table.around()
    table.must("card")
    table.must("vault")
    table.around()
    assert table.refused("escaped") == "escaping needs a move (or a card) this turn"
    table.must("plank", 3, 3)
    assert table.refused("escaped") == "escaping needs a move (or a card) this turn"
    table.around()
    table.must("move", 1)
    table.must("escaped")


# --- Action cards (rulings 6) ------------------------------------------------------------------


def test_a_card_play_that_would_leave_none_is_refused():
    """Action Cards: "always maintain at least one Action Card"."""
    table = Table.new()
    table.must("card", name="Quicksand")
    assert table.seat(1)["cards"] == 1
    assert table.public["card"] == "Quicksand"
    table.end_turn()
    table.end_turn()
    assert table.refused("card") == "Seat 1 must keep one action card"
    assert table.seat(1)["cards"] == 1


def test_a_card_clears_the_doubles():
    table = Table.new()
    table.must("plank", 2, 2)
    table.end_turn()
    table.must("card")
    assert table.public["doubles"] is None
    assert table.public["last_roll"] == [2, 2]


# --- Doubles (rulings 3) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "face", "extra"),
    [
        (2, 1, ["expose-or-scorpion"]),
        (2, 2, ["cover-pit"]),
        (2, 3, ["pillar"]),
        (2, 4, ["remove-two-or-swap"]),
        (2, 5, []),
        (3, 5, ["remove-from-two"]),
        (4, 5, ["remove-from-two"]),
        (2, 6, []),
        (3, 6, []),
        (4, 6, ["remove-from-all"]),
    ],
)
def test_the_doubles_table_by_face_and_player_count(players, face, extra):
    """Rolling Doubles: any plank or remove a plank, plus the face's action (5-5 with 3-4
    players, 6-6 with 4)."""
    table = Table.new(players=players)
    table.must("plank", face, face)
    assert table.public["doubles"] == ["any-plank", "remove-plank", *extra]


def test_an_entry_double_enters_on_any_plank_and_a_move_has_no_double():
    """Collect Phase: "if you roll doubles, place your raider on any plank at the entrance"."""
    table = Table.new()
    table.built()
    table.around()
    table.must("enter", 3, 3)
    assert table.public["doubles"] == ["any-entrance"]
    table.must("entered")
    table.end_turn()
    table.must("plank", 1, 2)
    assert table.public["doubles"] is None


# --- Rounds and vaults (rulings 4) -------------------------------------------------------------


def test_a_round_ends_when_every_raider_has_escaped_and_the_vault_grows():
    """Ending a Round: once all players have escaped, the next taller vault; the tallest
    stays (rulings 4)."""
    table = Table.new(players=4)
    table.raid()
    assert table.public["round"] == 2 and table.public["vault"] == 2
    table.raid()
    assert table.public["round"] == 3 and table.public["vault"] == 3


def test_the_tallest_vault_stays_for_later_rounds():
    table = Table.new(players=2, vault=3)
    table.raid()
    assert table.public["round"] == 2 and table.public["vault"] == 3


def test_a_round_waits_for_the_slowest_raider():
    table = Table.new(players=2)
    table.build()
    table.end_turn()  # seat 2 passes all round
    table.enter()
    table.end_turn()
    table.reach_vault()
    table.end_turn()
    table.escape()
    assert table.seat(1)["escapes"] == 1
    assert table.public["round"] == 1


def _escaped_alone(players: int = 2) -> Table:
    """Seat 1 builds, enters, reaches the vault and escapes while the other seats pass: the
    round still waits for them."""
    table = Table.new(players=players)
    table.to_the_vault()
    table.around()
    table.escape()
    table.around()
    table.end_turn()  # back to seat 1 (escape() ended its turn)
    for _ in range(players - 2):
        table.end_turn()
    assert table.public["turn"] == 1
    return table


@pytest.mark.parametrize("players", [2, 3, 4])
def test_one_treasure_a_seat_a_round_a_fast_seat_builds_on_until_the_round_ends(players):
    """Game Phases: "all players will play at least three rounds" (rulings 4): a seat that has
    escaped builds on but does not collect again until every seat has escaped and the next
    vault stands; so one fast seat cannot take every treasure at the first vault."""
    table = _escaped_alone(players)
    assert table.seat(1)["treasures"] == 1 and table.seat(1)["phase"] == "build"
    table.must("plank", 2, 5)  # building on is allowed: steps for the next vault
    reason = table.refused("built")
    assert "Seat 1" in reason and "round" in reason
    assert table.seat(1)["phase"] == "build" and table.public["round"] == 1
    # the others escape once: the round ends, the next vault stands and seat 1 builds to it
    table.end_turn()
    for _ in range(players - 1):
        table.to_the_vault()
        table.around()
        table.escape()
    assert table.public["round"] == 2 and table.public["vault"] == 2
    while table.public["turn"] != 1:
        table.end_turn()
    table.built()
    assert table.seat(1)["phase"] == "collect"


def test_a_fast_seat_cannot_end_the_game_in_the_first_round():
    """Six treasure cards for two seats: seat 1 racing alone takes one, not all six."""
    table = Table.new(players=2)
    steps = [("plank", (2, 5), "built"), ("enter", (1, 3), "entered")]
    steps += [("move", (4,), "vault"), ("move", (3,), "escaped")]
    for _ in range(6):
        for name, rolls, report in steps:
            table.do(name, *rolls)
            table.do(report)
            table.around()  # seat 2 passes
    assert table.seat(1)["treasures"] == 1
    assert table.public["treasure_left"] == 5 and table.public["over"] is False


# --- The end and the count (rulings 5) ------------------------------------------------------


def _to_the_end(players: int = 2, **options) -> Table:
    table = Table.new(players=players, **options)
    table.raid()
    table.raid()
    for step in (table.build, table.enter):
        for _ in range(players):
            step()
    for _ in range(players):
        table.reach_vault()
    return table


def test_taking_the_last_treasure_ends_the_game_at_once():
    """Ending the Game: "upon the last treasure card being obtained"."""
    table = _to_the_end()
    state = table.public
    assert state["over"] is True and state["turn"] is None and state["treasure_left"] == 0
    assert [table.seat(n)["treasures"] for n in (1, 2)] == [3, 3]
    assert "the game is over" in table.refused("next")
    assert "the game is over" in table.refused("card")


def test_points_before_the_end_are_refused():
    table = Table.new()
    assert "after the last treasure" in table.refused("treasure", player=1, points=3)


def test_most_points_wins():
    table = _to_the_end()
    table.must("treasure", player=1, points=12)
    assert table.public["winner"] is None
    table.must("treasure", player=2, points=9)
    assert table.public["winner"] == [1]


def test_a_second_entry_replaces_the_first():
    table = _to_the_end()
    table.must("treasure", player=1, points=12)
    table.must("treasure", player=1, points=5)
    assert table.seat(1)["points"] == 5


def test_points_must_fit_the_cards_held():
    """Three treasure cards of 1..10 points each (the data file's range)."""
    table = _to_the_end()
    assert table.refused("treasure", player=1, points=31) == "Seat 1: 3 cards, 3..30 points"
    assert "worth 1..10" in table.refused("treasure", player=1, add=11)


def test_tapped_treasure_cards_add_up_each_once_and_no_more_than_held():
    table = _to_the_end()
    for uid, points in (("AA01", 4), ("AA02", 7), ("AA03", 2)):
        table.must("treasure", player=2, add=points, card=uid)
    assert table.seat(2)["points"] == 13
    assert "already counted for Seat 2" in table.refused("treasure", player=1, add=4, card="AA01")
    assert (
        table.refused("treasure", player=2, add=4, card="AA09")
        == "all 3 of Seat 2's cards are counted"
    )


def test_a_sum_counts_every_card_so_no_tap_can_add_to_it():
    """Issue 23, point 5: a sum of 30 then three taps of 10 made 60 points for 3 cards."""
    table = _to_the_end()
    table.must("treasure", player=1, points=30)
    for uid in ("AA01", "AA02", "AA03"):
        assert table.refused("treasure", player=1, add=10, card=uid) == (
            "all 3 of Seat 1's cards are counted: the sum 30 covers them"
        )
    assert (table.seat(1)["points"], table.seat(1)["count"], table.seat(1)["counted"]) == (
        30,
        "sum",
        3,
    )
    table.must("treasure", player=2, points=25)
    assert table.public["winner"] == [1]


def test_a_sum_entered_replaces_the_cards_counted_one_by_one():
    table = _to_the_end()
    table.must("treasure", player=1, add=10, card="AA01")
    table.must("treasure", player=1, add=10, card="AA02")
    table.must("treasure", player=1, points=12)
    assert (table.seat(1)["points"], table.seat(1)["count"], table.seat(1)["counted"]) == (
        12,
        "sum",
        3,
    )
    # the cards it replaced are no longer counted: one may go to another seat
    table.must("treasure", player=2, add=10, card="AA01")
    assert table.seat(2)["count"] == "cards" and table.seat(2)["counted"] == 1


def test_a_count_by_cards_decides_nothing_until_every_card_is_in():
    table = _to_the_end()
    table.must("treasure", player=1, points=15)
    table.must("treasure", player=2, add=5, card="AA01")
    assert table.seat(2)["points"] == 5
    assert table.public["winner"] is None  # seat 2 has two cards still to count
    assert not any(line.endswith("wins") for line in table.logs)
    table.must("treasure", player=2, add=9, card="AA02")
    table.must("treasure", player=2, add=9, card="AA03")
    assert table.public["winner"] == [2]
    assert table.logs[-1] == "Seat 2 wins"


def test_a_tie_goes_to_the_fewest_planks_left_over():
    table = _to_the_end(players=3)
    for seat, points in ((1, 15), (2, 15), (3, 9)):
        table.must("treasure", player=seat, points=points)
    assert table.public["winner"] is None
    table.must("planks", player=1, n=4)
    assert table.public["winner"] is None
    table.must("planks", player=2, n=2)
    assert table.public["winner"] == [2]


def test_equal_planks_leave_a_shared_win():
    table = _to_the_end()
    for seat in (1, 2):
        table.must("treasure", player=seat, points=10)
        table.must("planks", player=seat, n=3)
    assert table.public["winner"] == [1, 2]


def test_in_a_family_game_the_youngest_wins_a_tie():
    """Ending the Game: "in a family, the youngest wins any tie"."""
    table = _to_the_end(players=3, tiebreak="youngest")
    for seat, points in ((1, 15), (2, 9), (3, 15)):
        table.must("treasure", player=seat, points=points)
    assert table.public["winner"] is None
    table.must("youngest", player=3)
    assert table.public["winner"] == [3]


def test_the_youngest_decides_only_among_the_tied():
    table = _to_the_end(players=3, tiebreak="youngest")
    for seat, points in ((1, 15), (2, 9), (3, 15)):
        table.must("treasure", player=seat, points=points)
    table.must("youngest", player=2)
    assert table.public["winner"] == [1, 3]


def test_planks_left_are_at_most_a_set():
    table = _to_the_end()
    assert "at most 31" in table.refused("planks", player=1, n=32)


# --- Solo mode --------------------------------------------------------------------------------


def test_solo_rolls_both_dice_and_counts_planks_laid():
    """Solo Mode: roll both dice, place a plank, repeat."""
    table = Table.new(players=1)
    state = table.public
    assert state == {**state, "players": 1, "rolls": 0, "placed": 0, "result": None}
    assert "roll first" in table.refused("placed")
    table.must("plank", 3, 5)
    table.must("placed")
    assert "roll first" in table.refused("placed")
    table.must("plank", 2, 2)
    assert table.public["doubles"] is None  # rulings 8: no doubles table in solo
    table.must("plank", 1, 6)  # "if you cannot place a plank, roll again"
    assert table.public["doubles"] is None
    table.must("placed")
    assert table.public["rolls"] == 3 and table.public["placed"] == 2


def test_solo_starts_with_a_random_plank_near_the_middle():
    """Solo Mode: a random plank goes near the middle before the first roll (rulings 8)."""
    table = Table.new(players=1)
    assert "random plank near the middle" in table.logs[0]


def test_solo_ends_won_or_lost_and_then_refuses_everything():
    """Solo Mode: win by filling the chamber; lose if no plank fits."""
    table = Table.new(players=1)
    assert table.refused("won") == "no plank is laid yet"
    table.must("plank", 3, 5)
    table.must("placed")
    table.must("won")
    assert table.public["result"] == "won" and table.public["over"] is True
    assert GAME.result(table.state) == {
        "board": "solo",
        "won": True,
        "score": 1,
        "better": "lower",
        "unit": "rolls",
        "placed": 1,
    }
    for name in ("plank", "placed", "lost"):
        assert "over" in table.refused(name, *((3, 4) if name == "plank" else ()))
    lost = Table.new(players=1)
    lost.must("plank", 1, 1)
    lost.must("lost")
    assert lost.public["result"] == "lost"
    assert GAME.result(lost.state)["won"] is False


def test_the_table_games_actions_do_not_belong_to_solo_and_back():
    solo = Table.new(players=1)
    for name in ("next", "enter", "built", "card"):
        assert "not in the solo game" in solo.refused(name)
    table = Table.new()
    assert "only in the solo game" in table.refused("placed")
    assert GAME.result(table.state) is None


# --- the race reading (issue 42, point 6) -------------------------------------------------------


def _seat_one_collects_and_escapes(table) -> None:
    table.to_the_vault()
    table.around()
    table.must("move", 3)
    table.must("escaped")
    table.around()


def test_by_default_a_seat_collects_once_a_round():
    table = Table.new()
    _seat_one_collects_and_escapes(table)
    table.must("plank", 2, 5)
    assert table.refused("built").startswith("Seat 1 has escaped this round")


def test_the_race_reading_lets_a_fast_seat_collect_again_in_the_same_round():
    """``collect=race``: a seat that has escaped builds, enters and collects again while the
    round is the same and treasure is left; so a fast raider can hold more than three."""
    table = Table.new(collect="race")
    _seat_one_collects_and_escapes(table)
    assert table.public["round"] == 1
    assert table.public["collect"] == "race"
    table.to_the_vault()
    assert table.seat(1)["treasures"] == 2
    assert table.seat(2)["treasures"] == 0
    assert table.public["round"] == 1  # seat 2 has not escaped yet: the same round


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8))
def test_in_a_race_one_seat_may_take_every_treasure(laps: int):
    """Seat 1 alone runs laps while seat 2 passes: with the race reading it takes a card on
    each lap until the pile is empty (6 cards at two players), and the game ends then."""
    table = Table.new(collect="race")
    for lap in range(1, laps + 1):
        table.to_the_vault()
        assert table.seat(1)["treasures"] == lap
        if table.public["over"]:
            assert lap == 6
            break
        table.around()
        table.must("move", 3)
        table.must("escaped")
        table.around()
    assert table.public["treasure_left"] == 6 - min(laps, 6)
