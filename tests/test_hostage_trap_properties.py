"""Properties over random play: whatever the table does, and whenever, the turn keeper stays
consistent, the contract's keys are there, a refused action changes nothing, and the journal's
fold (what undo and power cuts use) gives the state the table saw."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hostage_trap_support import Table

from companion.games.base import Action, Press, Rejected
from companion.games.hostage_trap import GAME

CONTRACT_KEYS = {"players", "turn", "turn_no", "held", "ability_used", "drew", "attack", "winner"}
COLOURS = ("blue", "red", "green", "teal")

seat = st.integers(min_value=1, max_value=7).map(str)
actions = st.one_of(
    st.tuples(
        st.just("attack"),
        st.fixed_dictionaries({"target": seat, "result": st.sampled_from(["hit", "failed"])}),
    ),
    st.tuples(st.sampled_from(["draw", "peek"]), st.fixed_dictionaries({"target": seat})),
    st.tuples(st.just("ability"), st.fixed_dictionaries({"color": st.sampled_from(COLOURS)})),
    st.tuples(
        st.just("trap"),
        st.fixed_dictionaries(
            {"turns": st.integers(0, 3).map(str), "ends": st.sampled_from(["yes", "no"])}
        ),
    ),
    st.tuples(st.sampled_from(["next", "next", "next", "pause", "resume", "shown"]), st.just({})),
    st.tuples(
        st.just("show"),
        st.fixed_dictionaries({"player": seat, "color": st.sampled_from(COLOURS)}),
    ),
    st.tuples(
        st.just("claim"),
        st.fixed_dictionaries(
            {
                "player": seat,
                "hostages": st.lists(st.sampled_from(COLOURS), min_size=1, max_size=4).map(
                    ",".join
                ),
            }
        ),
    ),
)
plans = st.lists(
    st.tuples(
        actions, st.floats(min_value=0.0, max_value=25.0, allow_nan=False, allow_subnormal=False)
    ),
    min_size=20,
    max_size=150,
)
setups = st.fixed_dictionaries(
    {
        "players": st.integers(3, 7),
        "hostages": st.integers(3, 4),
        "spares": st.just("shuffled"),  # 4 hostages at 3 seats: the alternate rule
        "turn_seconds": st.sampled_from([0, 0, 15, 60]),
    }
)


def _consistent(table: Table) -> None:
    state, public = table.state, table.public
    assert set(public) >= CONTRACT_KEYS
    assert ("timer" in public) == (state.settings.turn_seconds > 0)
    assert all(n >= 0 for n in state.owed)
    assert all(isinstance(k, str) and v > 0 for k, v in public["held"].items())
    if state.winner is None:
        assert state.turn in state.ring.seats
        assert state.owes(state.turn) == 0 or state.trapped
        assert state.attack is None or (state.attacked and not state.drew)
    else:
        assert state.turn is None and len(set(state.winning)) >= state.settings.hostages
    for screen in (GAME.view(state)[0], *(GAME.control(state, Press("down")).screens)):
        assert len(screen.lines) <= 3


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups, plan=plans)
def test_random_play_keeps_the_game_consistent(setup: dict[str, Any], plan: list) -> None:
    table = Table.new(**setup)
    players = setup["players"]
    for (name, args), gap in plan:
        args = {
            k: v for k, v in args.items() if not (k in ("target", "player") and int(v) > players)
        }
        if len(args) < len(GAME_ARGS.get(name, ())):
            continue
        table.wait(gap)
        before = table.state
        try:
            outcome = GAME.apply(before, Action(name, args, at=table.now))
        except Rejected:
            assert table.state == before
            continue
        previous = table.fold()
        table.do(name, **args)
        assert outcome.state == table.state
        assert previous == before  # undo: the fold of all but the last action
        _consistent(table)
        assert GAME.restore(GAME.restore(table.state)) == GAME.restore(table.state)
    assert table.fold() == table.state


GAME_ARGS = {
    "attack": ("target", "result"),
    "draw": ("target",),
    "peek": ("target",),
    "show": ("player", "color"),
    "claim": ("player", "hostages"),
}
