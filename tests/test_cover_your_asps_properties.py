"""Properties of the Cover Your Asps rules over random play: the contract's keys are always
there, the counts always add up, a refused action changes nothing, and folding the journal
(what undo and a power cut do) always rebuilds the same game."""

from __future__ import annotations

from cover_your_asps_support import SEAT_KEYS, SOLO_KEYS, TABLE_KEYS, Table
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.base import Action, Rejected
from companion.games.cover_your_asps import GAME

NAMES = (
    "plank",
    "enter",
    "move",
    "card",
    "next",
    "entered",
    "built",
    "vault",
    "escaped",
    "treasure",
    "planks",
    "youngest",
    "placed",
    "won",
    "lost",
)

step = st.tuples(
    st.sampled_from(NAMES),
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
    st.integers(1, 4),
    st.integers(0, 40),
)


def _play(table: Table, name: str, dice: tuple[int, int], seat: int, n: int) -> None:
    players = table.options["players"]
    args: dict[str, int] = {}
    if name in ("treasure", "planks", "youngest"):
        args["player"] = min(seat, players)
    if name == "treasure":
        args["points"] = n
    if name == "planks":
        args["n"] = n
    try:
        faces = GAME.dice_for(table.state, Action(name, {k: str(v) for k, v in args.items()}))
    except Rejected:
        faces = ()
    table.do(name, *dice[: len(faces)], **args)


def _check(table: Table) -> None:
    state = table.public
    players = table.options["players"]
    if players == 1:
        assert state.keys() >= SOLO_KEYS
        assert state["placed"] <= state["rolls"]
        assert state["doubles"] is None  # rulings 8: the solo rules have no doubles table
        return
    assert state.keys() >= TABLE_KEYS
    assert all(seat.keys() >= SEAT_KEYS for seat in state["seats"].values())
    seats = state["seats"].values()
    total = {2: 6, 3: 9, 4: 12}[players]
    assert state["treasure_left"] + sum(s["treasures"] for s in seats) == total
    assert state["over"] == (state["treasure_left"] == 0)
    assert all(s["cards"] >= 1 for s in seats)
    assert all(1 <= s["cards"] <= 2 + s["escapes"] for s in seats)
    assert min(s["escapes"] for s in seats) == state["round"] - 1
    assert state["vault"] == min(3, table.options["vault"] + state["round"] - 1)
    assert all(s["inside"] or s["phase"] != "escape" for s in seats)
    assert all(not s["inside"] or s["phase"] != "build" for s in seats)


# Rulings 1: what a report needs earlier in the same turn.
CAUSES = {
    "entered": {"enter"},
    "built": {"plank", "card"},
    "vault": {"move", "card"},
    "escaped": {"move", "card"},
}


def _check_report(table: Table, turn: int | None) -> None:
    """An accepted report followed its action in the same turn; an escape's pillar goes to the
    antechamber of the seat on the escaper's right (rulings 9)."""
    name = table.journal[-1].name
    if name not in CAUSES:
        return
    this_turn: list[str] = []
    for action in reversed(table.journal[:-1]):
        if action.name == "next":
            break
        this_turn.append(action.name)
    assert CAUSES[name] & set(this_turn), (name, this_turn)
    if name == "escaped":
        players = table.options["players"]
        right = players if turn == 1 else turn - 1
        assert f"Seat {turn} puts a pillar in Seat {right}'s antechamber" in table.logs


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 3),
    st.sampled_from(["dice", "draw"]),
    st.sampled_from(["planks", "youngest"]),
    st.lists(step, max_size=120),
)
def test_random_play_keeps_the_game_consistent_and_folds_back(
    players, vault, planking, tiebreak, steps
):
    options = {"players": players, "vault": vault, "planking": planking, "tiebreak": tiebreak}
    table = Table.new(**options)
    states = [table.state]
    for name, dice, seat, n in steps:
        turn = getattr(table.state, "turn", None)
        _play(table, name, dice, seat, n)
        if table.state is not states[-1]:
            states.append(table.state)
            _check_report(table, turn)
        _check(table)
    assert len(states) == len(table.journal) + 1
    for upto in (len(table.journal), len(table.journal) - 1):
        if upto < 0:
            continue
        folded = Table.new(**options)
        for action in table.journal[:upto]:
            folded.state = GAME.apply(folded.state, action).state
        assert folded.state == states[upto]  # undo = the fold of all but the last


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.lists(step, max_size=60))
def test_a_refused_action_changes_nothing(players, steps):
    table = Table.new(players=players)
    for name, dice, seat, n in steps:
        before, journal = table.state, len(table.journal)
        _play(table, name, dice, seat, n)
        if len(table.journal) == journal:
            assert table.state == before


def test_a_full_raid_of_four_keeps_every_count():
    table = Table.new(players=4)
    table.raid()
    _check(table)
    assert table.public["treasure_left"] == 8
