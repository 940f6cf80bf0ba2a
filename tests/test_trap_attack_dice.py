"""The AI's dice (rulebook: Solo Mode; rulings 1-2): distributions over many seeded rolls, dice
read off the table's own dice, and undo never changing a roll."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from test_trap_attack_support import Table

from companion.games.base import Action, BadAction, Press
from companion.games.trap_attack import GAME

ROLLS = 60_000

# Chi-square critical values at p = 0.001 for 2, 3 and 5 degrees of freedom, from the
# standard table (e.g. NIST/SEMATECH e-Handbook, section 1.3.6.7.4). A fair die read the
# right way exceeds them once in a thousand seeds; the seeds below are fixed, so the tests
# are repeatable, and a wrong reading of the die (checked below) exceeds them by far.
CHI2_CRITICAL = {2: 13.816, 3: 16.266, 5: 20.515}


def chi_square(counts: Counter, expected: dict) -> float:
    return sum((counts[k] - e) ** 2 / e for k, e in expected.items())


def ai_turns(options: dict, n: int, seed: int) -> tuple[Counter, Counter, Counter]:
    """n AI turns from the start, rolled as the app rolls: rng.randint(1, faces) per die."""
    rng = random.Random(seed)
    start = Table(options).state
    faces = GAME.dice_for(start, Action("ai_turn"))
    moves, faces_seen, readings = Counter(), Counter(), Counter()
    for _ in range(n):
        rolls = tuple(rng.randint(1, f) for f in faces)
        roll = GAME.apply(start, Action("ai_turn", rolls=rolls)).state.last_roll
        moves[roll.move] += 1
        faces_seen[roll.action_face] += 1
        readings[roll.action] += 1
    return moves, faces_seen, readings


@pytest.fixture(scope="module")
def default_rolls():
    return ai_turns({}, ROLLS, seed=20240601)


def test_movement_die_d4_is_uniform(default_rolls):
    moves, _, _ = default_rolls
    assert set(moves) == {1, 2, 3, 4}
    assert chi_square(moves, {f: ROLLS / 4 for f in range(1, 5)}) < CHI2_CRITICAL[3]


def test_action_die_faces_are_uniform(default_rolls):
    _, faces, _ = default_rolls
    assert chi_square(faces, {f: ROLLS / 6 for f in range(1, 7)}) < CHI2_CRITICAL[5]


def test_action_die_reads_two_block_one_relic_three_cast(default_rolls):
    _, _, readings = default_rolls
    expected = {"block": ROLLS * 2 / 6, "relic": ROLLS / 6, "cast": ROLLS * 3 / 6}
    assert chi_square(readings, expected) < CHI2_CRITICAL[2]
    # The same test would catch a wrong reading, e.g. Block on three faces.
    wrong = {"block": ROLLS * 3 / 6, "relic": ROLLS / 6, "cast": ROLLS * 2 / 6}
    assert chi_square(readings, wrong) > 100 * CHI2_CRITICAL[2]


def test_d3_option_movement_die_is_uniform_over_three_faces():
    n = 12_000
    moves, _, _ = ai_turns({"ai_move": "d3"}, n, seed=7)
    assert set(moves) == {1, 2, 3}
    assert chi_square(moves, {f: n / 3 for f in range(1, 4)}) < CHI2_CRITICAL[2]


def test_paralyzed_ai_rolls_the_action_die_only():
    table = Table()
    table.do("paralyze", player="ai")
    assert GAME.dice_for(table.state, Action("ai_turn")) == (6,)


# --- undo across an AI turn -----------------------------------------------------------------


def test_undo_across_an_ai_turn_restores_position_life_and_dice_exactly():
    table = Table(seed=11)
    table.dice(3, 6)
    table.do("ai_turn")  # 30 -> 26, cast
    table.do("card", id="damage-2")
    table.do("take")
    table.do("attack", 4, kind="damage", amount=3)
    before = table.state
    before_pub = table.pub
    table.do("ai_turn")  # seeded rolls
    assert table.state != before
    rolls = table.journal[-1].rolls
    table.undo()
    assert table.state == GAME.restore(before)
    for key in ("ai", "players", "last_roll", "turn", "pending"):
        assert table.pub[key] == before_pub[key]
    # Redoing from the journal gives the very same roll, never a new one.
    table.submit(Action("ai_turn", rolls=rolls))
    again = table.fold(table.journal)
    assert again.last_roll.move == rolls[0] and again.last_roll.action_face == rolls[1]


def test_undo_of_the_card_the_ai_cast_returns_to_the_pending_card():
    table = Table()
    table.do("ai_turn", 2, 5)
    table.do("card", id="paralysis")
    table.undo()
    assert table.pub["pending"] == "card"
    assert table.pub["last_roll"]["move"] == 2


# --- dice read off the table's own dice (option dice=table) ---------------------------------


def test_table_dice_green_asks_each_die_and_the_faces_travel_in_the_action():
    table = Table({"dice": "table"})
    table.press("green")
    assert table.pub["menu"] == "form"
    assert table.screen()[1:3] == ["1", "Move die d4"]
    table.press("up")
    table.press("up")  # move die shows 3
    table.press("ok")
    assert table.screen()[2] == "Action die"
    table.press("down")  # 1 wraps to 6
    assert table.screen()[1] == "6"
    action = GAME.control(table.state, Press("green"))
    assert action == Action("ai_turn", {"rolled": "3,6"})
    assert GAME.dice_for(table.state, action) == ()  # read off the table: the box rolls nothing
    table.submit(action)
    assert table.journal[-1].args["rolled"] == "3,6"
    assert table.pub["last_roll"]["move"] == 3
    assert table.pub["last_roll"]["action"] == "cast"
    assert table.pub["menu"] is None
    # Folding the journal gives the same roll again.
    assert table.fold(table.journal) == table.state


def test_table_dice_for_an_attack_on_the_ai_and_for_a_paralyzed_ai():
    table = Table({"dice": "table"})
    table.tap("paralysis")  # the player's own attack card
    assert table.pub["menu"] == "form"
    table.press("up")
    table.press("up")
    table.press("up")  # action die 4: no block
    table.press("ok")
    assert table.pub["ai"]["paralyzed"] is True
    table.press("green")
    assert table.screen()[2] == "Action die"  # no movement die for a paralyzed AI
    table.press("ok")
    assert table.pub["last_roll"]["action"] == "block"
    assert table.pub["ai"]["position"] == 30


def test_rolled_faces_are_checked_like_rolls():
    table = Table()
    with pytest.raises(BadAction, match="needs 2 roll"):
        table.do("ai_turn", rolled="3")
    with pytest.raises(BadAction, match="needs 2 roll"):
        table.do("ai_turn", rolled="5,1")
