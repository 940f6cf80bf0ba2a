"""The AI's dice (rulebook: Solo Mode; rulings 1-2): distributions over many seeded rolls, the
dice each action asks the app for (rolled by the box or read off the table, one mechanism for
every game), and undo never changing a roll."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from test_trap_attack_support import Table

from companion.games.base import Action, BadAction, Rejected
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


# --- one dice mechanism: the game asks, the app rolls them or reads the table's dice ---------


def test_every_action_that_rolls_asks_the_app_for_its_dice():
    """Solo Mode (movement and action dice), Block on a cast at the AI, Starting up (pawn dice)."""
    state = Table({"players": "2", "ai": "on"}).state
    cases = [
        (Action("ai_turn"), (4, 6)),
        (Action("attack", {"kind": "paralysis"}), (6,)),
        (Action("play", {"card": "push-2", "target": "ai"}), (6,)),
        (Action("play", {"card": "push-2", "target": "2"}), ()),
        (Action("first_player"), (6, 6, 6)),
        (Action("turn"), ()),
    ]
    assert [GAME.dice_for(state, action) for action, _ in cases] == [faces for _, faces in cases]


@pytest.mark.parametrize("rolls", [(), (3,), (5, 1), (1, 7), (0, 4), (1, 4, 2)])
def test_apply_takes_exactly_the_rolls_dice_for_asked(rolls):
    table = Table()
    with pytest.raises(BadAction, match="'ai_turn' needs 2 roll"):
        GAME.apply(table.state, Action("ai_turn", rolls=rolls))
    with pytest.raises(BadAction, match="'turn' needs 0 roll"):
        GAME.apply(table.state, Action("turn", rolls=(3,)))


def test_faces_read_off_the_table_are_an_argument_no_more():
    table = Table()
    with pytest.raises(BadAction, match=r"'dice N \.\.\.' line"):
        GAME.dice_for(table.state, Action("ai_turn", {"rolled": "3,6"}))
    with pytest.raises(BadAction, match="no option 'dice'"):
        GAME.check_options({"dice": "table"})


def test_a_refused_action_asks_nobody_to_roll():
    """Game Play, Important rule: a card over the limit is refused before its die is asked."""
    table = Table()
    table.do("attack", 6, card="damage-1")
    for action in (
        Action("attack", {"card": "push-1"}),
        Action("play", {"card": "push-1", "target": "ai"}),
    ):
        with pytest.raises(Rejected, match="already cast an attack"):
            GAME.dice_for(table.state, action)
    table.do("ai_turn", 1, 4)  # the AI casts: its card comes first
    with pytest.raises(Rejected, match="tap the card it drew"):
        GAME.dice_for(table.state, Action("ai_turn"))
    with pytest.raises(Rejected, match="finish the AI's card first"):
        GAME.dice_for(table.state, Action("play", {"card": "push-1", "target": "ai"}))
