"""Properties over random play: whatever the table presses, and whenever, the dungeon stays a
dungeon. Actions come with random gaps on a virtual clock; scheduled timer actions fire in
between, as in the app."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_trapwords_support import Table

from companion.games.base import Press, Tap
from companion.games.trapwords import GAME
from companion.games.trapwords.data import TABLES

# Weighted by repetition so that random plans often finish turns, rounds and whole games.
ACTIONS = (
    *("start",) * 4,
    *("correct",) * 3,
    *("trap", "wrong") * 2,
    "illegal",
    "go",
    "pause",
    "resume",
    "fail",
    "keep",
    "map",
)

steps = st.lists(
    st.tuples(
        st.sampled_from(ACTIONS),
        st.one_of(
            st.floats(min_value=0.0, max_value=2.0, allow_nan=False, allow_subnormal=False),
            st.floats(min_value=0.0, max_value=60.0, allow_nan=False, allow_subnormal=False),
        ),
    ),
    min_size=80,
    max_size=300,
)
setups = st.fixed_dictionaries(
    {
        "rooms": st.sampled_from(["3,4,5,6,7", "2,4,6,8,10", "3,4,5", "1,2,3", "3,4,5,6,7,8,9"]),
        "start_mode": st.sampled_from(["official", "pickup", "clue"]),
        "seconds": st.sampled_from(["5", "12.5", "45"]),
        "tiebreak": st.sampled_from(["off", "on"]),
        "monster": st.sampled_from(["mummy", "dragon"]),
        "curses": st.sampled_from(["auto", "none"]),
    }
)


def check(table: Table, frozen_at: int | None) -> None:
    state = table.public
    rooms = state["rooms"]
    assert state["teams"]["A"]["room"] in rooms
    assert state["teams"]["B"]["room"] in rooms
    assert state["monster_room"] in rooms
    # The monster never passes a team.
    assert state["monster_room"] >= max(t["room"] for t in state["teams"].values())
    curses = state["curse_rooms"]
    assert curses == sorted(curses)
    assert all(c in rooms for c in curses)
    assert all(c < state["monster_room"] for c in curses) or state["monster_room"] == rooms[0]
    assert len(curses) <= 2  # setup's two curses, pushed or discarded, never more
    if frozen_at is not None:
        assert state["monster_room"] == frozen_at
    assert 1 <= state["round"] <= TABLES.max_rounds
    assert 0 <= state["guesses_left"] <= TABLES.guesses
    assert 0 <= state["timer"]["remaining"] <= state["timer"]["limit"] + 1e-9
    assert state["traps_to_write"] == {
        "A": state["teams"]["B"]["room"],
        "B": state["teams"]["A"]["room"],
    }
    if state["winner"] is None:
        assert state["clue_team"] in ("A", "B")
    else:
        assert state["clue_team"] is None
        assert state["winner"] in ("A", "B", "both", "monster")
    screen, _ = GAME.view(table.state)
    assert len(screen.lines) <= 3
    assert all(len(line) <= 21 for line in screen.lines)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups, plan=steps)
def test_random_play_keeps_the_dungeon_sound(setup: dict[str, str], plan: list) -> None:
    table = Table.new(**setup)
    frozen_at: int | None = None
    for name, gap in plan:
        table.wait(gap)
        table.do(name)
        if table.state.battled and frozen_at is None:
            frozen_at = table.public["monster_room"]
        check(table, frozen_at)
    # The journal alone rebuilds the game, and a power cut leaves nothing running.
    assert table.fold() == table.state
    restored = GAME.restore(table.state)
    assert restored.timer.running is False
    assert GAME.restore(restored) == restored
    assert GAME.public(restored)["timer"]["remaining"] == table.public["timer"]["remaining"]


@settings(max_examples=60, deadline=None)
@given(results=st.lists(st.sampled_from(["correct", "trap", "wrong", "timeout"]), max_size=16))
def test_every_round_takes_two_turns_and_the_game_ends_by_round_eight(results: list) -> None:
    table = Table.new(start_mode="pickup", seconds=5)
    for played, result in enumerate(results, start=1):
        if table.public["winner"] is not None:
            break
        before = table.public["round"]
        table.play_turn(result, seconds=1)
        if played % 2 == 0 and table.public["winner"] is None:
            assert table.public["round"] == before + 1
        else:
            assert table.public["round"] == before
    if len(results) == 16:
        assert table.public["winner"] is not None


# --- power cuts and undos at random moments ----------------------------------------------------

ECHO = {"game": "trapwords", "card": "curse-echo", "name": "Echo"}
INPUTS = (
    *(Press("ok"),) * 4,
    *(Press("green"),) * 2,
    *(Press("red"),) * 3,
    Press("red", long=True),
    Press("up"),
    Press("down"),
    Tap("0A0B0C0D", ECHO),
    "cut",
    "undo",
)
table_plans = st.lists(
    st.tuples(
        st.sampled_from(INPUTS), st.floats(min_value=0.0, max_value=8.0, allow_subnormal=False)
    ),
    min_size=20,
    max_size=150,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups, plan=table_plans)
def test_cuts_and_undos_fold_back_to_what_the_table_saw(setup: dict[str, str], plan: list) -> None:
    """Even a journal that never records the pause a power cut or an undo makes (older boxes
    did not): whatever the buttons do afterwards, folding the journal (then restoring) gives the
    state the live box showed, and never refuses an action the live box accepted. A cut loses
    the unjournaled ticks: the box comes back from the fold."""
    table = Table.new(**setup)
    for step, gap in plan:
        table.wait(gap)
        if step == "cut":
            table.state = GAME.restore(table.fold())
            table.timers.clear()
        elif step == "undo":
            if table.journal:
                table.journal.pop()
                table.state = GAME.restore(table.fold())
                table.timers.clear()
        else:
            action = GAME.control(table.state, step)
            if action is not None:
                table.do(action.name, **dict(action.args))
        # A cut now: the live game paused as of its last journaled moment (ticks are not kept).
        assert GAME.restore(table.fold()) == GAME.restore_at(table.state, table.state.last_at)
