"""Trapwords rules, one at a time: setup, turns, the end of a round, curses, the monster, the
tiebreaker and the eight-round limit. Each test drives the pure rules through ``Table``."""

from __future__ import annotations

import pytest
from test_trapwords_support import Table

from companion.games.base import Action, BadAction, Rejected
from companion.games.trapwords import GAME


def fail_rounds(table: Table, count: int) -> None:
    for _ in range(count):
        table.play_round("trap", "trap")


def play(table: Table, a: str, b: str) -> None:
    """One round with each team's result, whoever gives clues first."""
    results = {"A": a, "B": b}
    first = table.public["clue_team"]
    second = "B" if first == "A" else "A"
    table.play_round(results[first], results[second])


def a_reaches_the_monster(table: Table) -> None:
    while table.public["teams"]["A"]["room"] < table.public["monster_room"]:
        play(table, "correct", "trap")


# --- setup -------------------------------------------------------------------------------------


def test_default_setup() -> None:
    table = Table.new()
    state = table.public
    assert state["round"] == 1
    assert state["rooms"] == [3, 4, 5, 6, 7]
    assert state["teams"] == {"A": {"room": 3}, "B": {"room": 3}}
    assert state["monster_room"] == 7
    assert state["curse_rooms"] == [4, 6]
    assert state["glowing"] == "A"
    assert state["clue_team"] == "A"
    assert state["traps_to_write"] == {"A": 3, "B": 3}
    assert state["guesses_left"] == 5
    assert state["timer"] == {"remaining": 45.0, "running": False, "limit": 45.0}
    assert state["result"] is None
    assert state["winner"] is None
    assert table.logs[0] == "Setup: Dragon in room 7; curses beside rooms 4, 6"


def test_alternative_setup_with_curses_in_the_first_four_rooms() -> None:
    table = Table.new(rooms="2,4,6,8,10", curses="2,4,6,8")
    assert table.public["curse_rooms"] == [2, 4, 6, 8]
    assert table.public["monster_room"] == 10
    assert table.public["traps_to_write"] == {"A": 2, "B": 2}
    # The curse in room 2 applies to both teams in round 1.
    assert table.public["cursed"] == ["A", "B"]
    assert table.public["curses_to_reveal"] == 1
    assert "Curse in room 2 applies to A and B: reveal it" in table.logs


@pytest.mark.parametrize(
    ("rooms", "curses"), [("3,4,5", [4, 4]), ("1,3,5", [3, 3]), ("1,2,3,4,5,6,7", [2, 6])]
)
def test_automatic_curse_places(rooms: str, curses: list[int]) -> None:
    assert Table.new(rooms=rooms).public["curse_rooms"] == curses


def test_curses_none() -> None:
    assert Table.new(curses="none").public["curse_rooms"] == []


@pytest.mark.parametrize(("roll", "monster"), [(1, "vampire"), (2, "mummy"), (5, "demon")])
def test_random_monster_is_a_five_sided_setup_die(roll: int, monster: str) -> None:
    options = GAME.check_options({})
    assert GAME.setup_dice(options) == (5,)
    assert GAME.public(GAME.initial(options, (roll,)).state)["monster"] == monster


def test_chosen_monster_needs_no_die() -> None:
    options = GAME.check_options({"monster": "troll"})
    assert GAME.setup_dice(options) == ()
    assert GAME.public(GAME.initial(options, ()).state)["monster"] == "troll"


@pytest.mark.parametrize("rolls", [(), (0,), (6,), (1, 2)])
def test_random_monster_with_a_bad_setup_roll(rolls: tuple[int, ...]) -> None:
    with pytest.raises(BadAction, match="random monster"):
        GAME.initial(GAME.check_options({}), rolls)


# --- a turn ------------------------------------------------------------------------------------


def test_ok_starts_a_turn_and_green_marks_the_word_guessed() -> None:
    table = Table.new(start_mode="pickup")
    assert table.press("ok")
    assert table.state.phase == "running"
    assert table.press("green")
    assert table.public["result"] == "correct"
    assert table.public["clue_team"] == "B"
    assert table.public["timer"] == {"remaining": 45.0, "running": False, "limit": 45.0}
    assert "correct" in table.sounds


def test_five_wrong_guesses_end_the_turn() -> None:
    table = Table.new(start_mode="pickup")
    table.press("ok")
    for left in (4, 3, 2, 1):
        table.press("red")
        assert table.public["guesses_left"] == left
        assert table.public["clue_team"] == "A"
    table.press("red")
    assert table.public["result"] == "wrong"
    assert table.public["clue_team"] == "B"
    assert table.public["guesses_left"] == 5  # the next team's guesses
    assert table.sounds.count("error") == 4


def test_long_red_asks_why_then_ends_the_turn_as_chosen() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start", at=0.0)
    table.press("red", long=True)
    assert table.state.phase == "why"
    assert table.public["timer"]["running"] is False
    assert table.timers == {}
    table.press("down")
    assert table.public["why"] == "illegal"
    table.press("green")
    assert table.public["result"] == "illegal"
    assert table.public["clue_team"] == "B"


def test_the_failure_choice_can_be_dropped_and_the_clock_runs_on() -> None:
    table = Table.new(start_mode="pickup", seconds=45)
    table.do("start", at=0.0)
    table.do("fail", at=10.0)
    table.now = 20.0
    table.press("red")  # back: not a failure after all
    assert table.state.phase == "running"
    assert table.timers["timeout"][0] == pytest.approx(55.0)
    assert table.remaining == 35.0


def test_guesses_wait_for_the_failure_choice() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    table.do("fail")
    assert not table.do("wrong")
    assert not table.do("correct")
    assert table.do("trap")
    assert table.public["result"] == "trap"


@pytest.mark.parametrize("name", ["trap", "illegal"])
def test_trapword_or_illegal_clue_end_the_turn(name: str) -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    assert table.do(name)
    assert table.public["result"] == name
    assert "fail" in table.sounds


def test_turn_actions_need_a_turn() -> None:
    table = Table.new()
    for name in ("wrong", "correct", "trap", "illegal", "fail", "keep"):
        assert not table.do(name)
    assert table.public["result"] is None
    assert table.journal == []


def test_start_is_refused_during_a_turn() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    assert not table.do("start")
    assert table.rejected == ["a turn is already under way"]


# --- the end of a round ------------------------------------------------------------------------


def test_second_turn_resolves_the_round_and_the_next_begins() -> None:
    table = Table.new(start_mode="pickup")
    table.play_round("correct", "trap")
    state = table.public
    assert state["round"] == 2
    assert state["teams"] == {"A": {"room": 4}, "B": {"room": 3}}
    assert state["monster_room"] == 7  # a team advanced: the monster stays
    assert state["traps_to_write"] == {"A": 3, "B": 4}
    assert state["glowing"] == "B"
    assert state["clue_team"] == "B"  # the team behind gives clues first
    assert state["result"] == "trap"


def test_level_teams_follow_the_glowing_book_which_alternates() -> None:
    table = Table.new(start_mode="pickup")
    orders = []
    for _ in range(3):
        orders.append((table.public["glowing"], table.public["clue_team"]))
        table.play_round("correct", "correct")
    assert orders == [("A", "A"), ("B", "B"), ("A", "A")]
    assert table.public["teams"] == {"A": {"room": 6}, "B": {"room": 6}}


def test_both_failing_moves_the_monster_and_pushes_its_curse() -> None:
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 1)
    assert table.public["monster_room"] == 6
    assert table.public["curse_rooms"] == [4, 5]
    assert "End of round 1: Monster -> 6, curse 6 -> 5" in table.logs


def test_curse_pushes_cascade() -> None:
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 2)
    # The monster enters 5, pushing its curse to 4, which pushes the curse of 4 to 3.
    assert table.public["monster_room"] == 5
    assert table.public["curse_rooms"] == [3, 4]


def test_a_curse_applies_once_then_is_discarded() -> None:
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 2)
    assert table.public["cursed"] == ["A", "B"]
    assert table.public["curses_to_reveal"] == 1
    table.play_round("correct", "trap")  # round 3, played in the cursed room 3
    assert 3 not in table.public["curse_rooms"]
    assert table.public["curse_rooms"] == [4]


def test_a_curse_applies_only_to_the_team_in_its_room() -> None:
    table = Table.new(start_mode="pickup")
    table.play_round("correct", "trap")  # A advances into room 4 and its curse
    assert table.public["cursed"] == ["A"]
    table.play_round("trap", "trap")  # round 2: B (behind) first, then A; both fail
    assert table.public["curse_rooms"] == [5]  # room 4's curse is gone; 6's was pushed


def test_curses_never_leave_the_first_room() -> None:
    table = Table.new(start_mode="pickup", curses="4,5,6")
    fail_rounds(table, 1)
    # The monster enters 6: its curse goes to 5, 5's to 4, 4's to the first room and stops.
    assert table.public["curse_rooms"] == [3, 4, 5]
    assert table.public["cursed"] == ["A", "B"]


def test_a_team_in_the_monster_room_battles_and_wins_by_guessing() -> None:
    table = Table.new(start_mode="pickup")
    a_reaches_the_monster(table)
    assert table.public["round"] == 5
    assert table.public["teams"] == {"A": {"room": 7}, "B": {"room": 3}}
    assert table.public["battling"] == ["A"]
    assert table.public["monster_frozen"] is True
    assert table.public["clue_team"] == "B"  # the team behind still goes first
    play(table, "correct", "trap")
    assert table.public["winner"] == "A"
    assert table.public["clue_team"] is None
    assert table.public["phase"] == "over"
    assert "win" in table.sounds


def test_after_a_battle_the_monster_never_moves_again() -> None:
    table = Table.new(start_mode="pickup")
    a_reaches_the_monster(table)
    fail_rounds(table, 3)
    assert table.public["round"] == 8
    assert table.public["monster_room"] == 7
    assert table.public["curse_rooms"] == []  # A played in 4, 5 and 6: each curse applied
    assert table.public["teams"] == {"A": {"room": 7}, "B": {"room": 3}}


def test_both_teams_battling_can_both_win() -> None:
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 4)
    assert table.public["monster_room"] == 3
    assert table.public["battling"] == ["A", "B"]
    assert table.public["curse_rooms"] == []
    assert table.public["clue_team"] == "A"  # round 5: A receives the glowing book
    table.play_round("correct", "correct")
    assert table.public["winner"] == "both"


def test_one_of_two_battling_teams_guessing_wins_alone() -> None:
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 4)
    table.play_round("trap", "correct")
    assert table.public["winner"] == "B"


def tiebreak_table() -> Table:
    table = Table.new(start_mode="pickup", tiebreak="on", seconds=45)
    fail_rounds(table, 4)
    assert table.public["battling"] == ["A", "B"]
    return table


def test_tiebreak_gives_the_second_team_exactly_the_time_the_first_used() -> None:
    table = tiebreak_table()
    table.do("start")
    started = table.now
    table.wait(23.4)
    table.do("correct", at=started + 23.45)
    assert table.public["timer"]["limit"] == 23.45
    assert table.public["clue_team"] == "B"
    assert "Tiebreak: B has 23.45 s to win" in table.logs
    table.do("start")
    assert table.timers["timeout"][0] == pytest.approx(table.now + 23.45)


def test_tiebreak_second_team_guessing_in_time_wins_alone() -> None:
    table = tiebreak_table()
    table.play_turn("correct", seconds=20)
    table.play_turn("correct", seconds=19)
    assert table.public["winner"] == "B"


def test_tiebreak_second_team_out_of_time_leaves_the_first_the_winner() -> None:
    table = tiebreak_table()
    table.play_turn("correct", seconds=20)
    table.do("start")
    table.wait(20.5)
    assert table.public["result"] == "timeout"
    assert table.public["winner"] == "A"


def test_tiebreak_first_team_failing_gives_the_second_the_full_time() -> None:
    table = tiebreak_table()
    table.play_turn("illegal")
    assert table.public["timer"]["limit"] == 45.0
    table.play_turn("correct")
    assert table.public["winner"] == "B"


def test_the_monster_wins_after_eight_rounds() -> None:
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 7)
    assert table.public["round"] == 8
    assert table.public["winner"] is None
    table.play_round("trap", "timeout")
    assert table.public["round"] == 8
    assert table.public["winner"] == "monster"
    assert table.public["clue_team"] is None
    assert table.sounds[-1] == "lose"
    assert not table.do("start")
    assert table.rejected[-1] == "the game is over"


# --- the Mummy and revealed curses ------------------------------------------------------------


@pytest.mark.parametrize(("nasty", "count"), [("off", 1), ("on", 2)])
def test_the_mummy_brings_new_curses_each_round_it_is_fought(nasty: str, count: int) -> None:
    table = Table.new(start_mode="pickup", monster="mummy", nasty=nasty)
    fail_rounds(table, 4)
    assert table.public["curses_to_reveal"] == count
    plural = "s" if count > 1 else ""
    assert f"The Mummy brings {count} new curse{plural}: draw and reveal" in table.logs
    table.logs.clear()
    table.play_round("trap", "trap")  # round 5 fought and lost: round 6 brings new ones
    assert f"The Mummy brings {count} new curse{plural}: draw and reveal" in table.logs


def test_other_monsters_bring_no_extra_curse() -> None:
    table = Table.new(start_mode="pickup", monster="troll", nasty="on")
    fail_rounds(table, 4)
    assert table.public["curses_to_reveal"] == 0


def test_a_tapped_curse_card_is_named_once() -> None:
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 2)
    assert table.do("curse", card="curse-echo")
    assert table.public["curses_revealed"] == [
        {"card": "curse-echo", "name": "Echo", "where": "room 3", "void": False}
    ]
    assert "Curse (room 3): Echo" in table.logs
    assert not table.do("curse", card="curse-echo")
    assert not table.do("curse", card="curse-flood")
    assert table.rejected == [
        "Echo is already revealed",
        "every curse of this round is already revealed",
    ]


def test_no_curse_to_name_in_a_clean_round() -> None:
    table = Table.new()
    assert not table.do("curse", card="curse-flood")
    assert table.rejected == ["no curse to reveal this round"]


def test_word_of_terror_in_the_first_room_is_void() -> None:
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 2)
    table.do("curse", card="curse-word-of-terror")
    assert "Word of Terror has no effect in the first room: discard it" in table.logs


def test_word_of_terror_brought_by_the_mummy_into_the_first_room_is_void() -> None:
    """Issue 23, point 6: the Mummy fought in the first room brings its curse there too."""
    table = Table.new(monster="mummy", rooms="3,4,5", start_mode="pickup")
    fail_rounds(table, 2)  # the Mummy walks 5 -> 4 -> 3: both teams fight it in room 3
    assert (table.public["monster_room"], table.public["curse_rooms"]) == (3, [])
    assert table.do("curse", card="curse-word-of-terror")
    assert table.logs[-2:] == [
        "Curse (Mummy): Word of Terror",
        "Word of Terror has no effect in the first room: discard it",
    ]
    assert table.public["curses_revealed"][-1]["void"] is True


def test_word_of_terror_brought_by_the_mummy_beyond_the_first_room_applies() -> None:
    table = Table.new(monster="mummy", rooms="3,4,5", start_mode="pickup")
    play(table, "correct", "correct")  # both teams to room 4
    play(table, "correct", "correct")  # both to room 5: the Mummy's room
    assert table.public["monster_room"] == 5
    assert table.state.cursed_rooms == ()  # the curses were discarded on the way
    assert table.do("curse", card="curse-word-of-terror")
    assert not any("no effect" in line for line in table.logs)
    assert table.public["curses_revealed"][-1]["void"] is False


def test_other_curses_carry_the_name_they_were_enrolled_with() -> None:
    table = Table.new(rooms="3,4,5", curses="3")
    assert table.do("curse", card="curse-other", name="Silence")
    assert table.public["curses_revealed"][0]["name"] == "Silence"


def test_the_nasty_mummys_two_curses_are_both_named() -> None:
    table = Table.new(start_mode="pickup", monster="mummy", nasty="on")
    fail_rounds(table, 4)
    assert table.public["curse_rooms"] == []
    assert table.do("curse", card="curse-flood")
    assert table.do("curse", card="curse-echo")
    assert not table.do("curse", card="curse-feeblemind")
    assert [c["where"] for c in table.public["curses_revealed"]] == ["Mummy", "Mummy"]
    table.play_round("trap", "trap")
    assert table.public["curses_revealed"] == []  # a new round draws new ones
    assert table.do("curse", card="curse-flood")


def test_unknown_curse_card_is_a_bad_action() -> None:
    table = Table.new()
    with pytest.raises(BadAction, match="not a Trapwords curse"):
        GAME.apply(table.state, Action("curse", {"card": "curse-nope"}))


def test_replay_bare_word_names_the_card_or_reason() -> None:
    table = Table.new(start_mode="pickup", curses="3")
    assert table.do("curse", id="curse-flood")
    table.do("start")
    table.do("fail")
    assert table.do("why", id="illegal")
    assert table.public["why"] == "illegal"


# --- the protocol's edges ---------------------------------------------------------------------


def test_unknown_action_is_a_bad_action() -> None:
    table = Table.new()
    with pytest.raises(BadAction, match="no action 'roll'"):
        GAME.dice_for(table.state, Action("roll"))
    with pytest.raises(BadAction, match="no action 'roll'"):
        GAME.apply(table.state, Action("roll"))


def test_no_action_takes_dice() -> None:
    table = Table.new()
    assert GAME.dice_for(table.state, Action("start")) == ()
    with pytest.raises(BadAction, match="takes no dice"):
        GAME.apply(table.state, Action("start", rolls=(3,)))


def test_bad_reason_is_a_bad_action() -> None:
    table = Table.new(start_mode="pickup")
    table.do("start")
    table.do("fail")
    with pytest.raises(BadAction, match="reason='late'"):
        GAME.apply(table.state, Action("why", {"reason": "late"}))


def test_a_refusal_leaves_the_state_unchanged() -> None:
    table = Table.new()
    before = table.state
    with pytest.raises(Rejected):
        GAME.apply(before, Action("resume", at=99.0))
    assert table.state is before


def test_the_words_of_a_battle_and_of_the_curses_discarded():
    """Issue 42, point 13: "B fight the Vampire this round" for one team; after a void Word of
    Terror the log still said "Discarded the curse(s) of room(s) 2"."""
    table = Table.new(start_mode="pickup", monster="troll")
    for _ in range(4):
        play(table, "correct", "trap")  # A walks to the monster's room alone
    assert "A fights the Troll this round" in table.logs
    assert "Discarded the curse of room 4" in table.logs


def test_a_void_curse_is_not_said_to_be_discarded_again_at_the_rounds_end():
    table = Table.new(start_mode="pickup")
    fail_rounds(table, 2)
    table.do("curse", card="curse-word-of-terror")  # void: discarded as it is revealed
    fail_rounds(table, 1)
    assert not any(line.startswith("Discarded the curse") for line in table.logs)
