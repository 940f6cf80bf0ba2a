"""Properties over random play: whatever a table of 4 to 8 does, the state stays a consistent
Deathtrap Dungeon game, and the contract's keys are always there."""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_deathtrap_support import act, new

from companion.games.base import Action, Ask, Press, Rejected, Tap
from companion.games.deathtrap_dungeon import GAME
from companion.games.deathtrap_dungeon.state import DEAL, OVER, PLAY

CONTRACT_KEYS = {
    "players", "round", "phase", "turn", "leader", "table", "passed", "finished",
    "titles", "points", "history", "exchanges", "winner",
}  # fmt: skip


def moves(players: int) -> st.SearchStrategy[str]:
    seat = st.integers(min_value=1, max_value=players)
    return st.one_of(
        st.builds(lambda p, q: f"pig player={p} lead={q}", seat, seat),
        st.builds(
            lambda n, v, w, out: f"play n={n} value={v} wild={w} out={out}",
            st.integers(1, 2),
            st.integers(0, 12),
            st.sampled_from((0, 0, 0, 1, 2)),
            st.sampled_from(("no", "yes")),
        ),
        st.builds(lambda n: f"play n={n} value=0 wild={n} out=yes", st.integers(1, 2)),
        st.just("pass"),
        st.just("pass"),
        st.builds(
            lambda p, out: f"killing_machine player={p} out={out}",
            seat,
            st.sampled_from(("no", "yes")),
        ),
        st.builds(
            lambda v, u: f"add card=orc value={v} uid={u}", st.integers(1, 3), st.integers(0, 40)
        ),
        st.builds(lambda u: f"add card=wild uid=w{u}", st.integers(0, 3)),
        st.just("clear"),
    )


games = st.integers(min_value=4, max_value=8).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.sampled_from(("left", "choose")),
        st.lists(moves(n), min_size=50, max_size=300),
    )
)


def check(state) -> None:
    public = GAME.public(state)
    assert public.keys() >= CONTRACT_KEYS
    seats = state.ring.seats
    assert len(set(state.finished)) == len(state.finished)
    assert sum(state.points) == len(state.history) * sum(seats)
    assert all(sorted(r) == list(seats) for r in state.history)
    if state.phase == PLAY:
        holding = state.holding
        assert len(holding) >= 2
        assert state.turn in holding and state.turn not in state.passed
        assert set(state.passed) <= set(holding)
        if state.table is None:
            assert state.passed == ()
        else:
            assert state.table.by in seats
    if state.phase in (DEAL, OVER):
        assert state.turn is None and state.table is None
    if state.phase == OVER:
        assert state.winner and all(state.points[s - 1] == max(state.points) for s in state.winner)
    if state.building is not None:
        assert state.phase == PLAY and state.building.seat == state.turn


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_random_play_keeps_the_game_consistent(game) -> None:
    players, pig, lines = game
    state = new(players=str(players), pig=pig, rounds="2")
    check(state)
    phases = set()
    for line in lines:
        try:
            after = GAME.apply(state, act(line)).state
        except Rejected:
            continue
        check(after)
        GAME.view(after)
        state = after
        phases.add(state.phase)
    reached.update(phases)


reached: set[str] = set()


def test_random_play_reaches_every_phase() -> None:
    test_random_play_keeps_the_game_consistent()
    assert reached == {PLAY, DEAL, OVER}


BUTTONS = ("up", "down", "ok", "green", "red")
CARDS = tuple(kind.id for kind in GAME.catalog())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.lists(st.tuples(st.sampled_from(BUTTONS + CARDS), st.booleans()), max_size=40))
def test_every_button_and_tap_answer_is_an_action_the_rules_understand(game, inputs) -> None:
    """Whatever is pressed or tapped, the control map never builds a malformed action: the
    rules accept it or refuse it with a reason (a form answered with any of its choices too)."""
    players, pig, lines = game
    state = new(players=str(players), pig=pig, rounds="2")
    for step, line in enumerate(lines[:80]):
        with contextlib.suppress(Rejected):
            state = GAME.apply(state, act(line)).state
        for name, long in inputs[step % 7 :: 7][:2]:
            event = (
                Press(name, long)
                if name in BUTTONS
                else Tap("04AB", {"game": "deathtrap-dungeon", "card": name, "name": name})
            )
            for action in _actions(GAME.control(state, event)):
                with contextlib.suppress(Rejected):
                    GAME.apply(state, action)


def _actions(reply) -> list[Action]:
    """The action itself, or for a menu every form answered with its first and last choices."""
    if isinstance(reply, Action):
        return [reply]
    if not isinstance(reply, Ask):
        return []
    out = []
    for form in reply.forms:
        if form.refused:  # picking it shows the reason: nothing is asked, no action built
            continue
        for pick in (0, -1):
            answers = {f.key: f.choices[pick] for f in form.fields}
            out.append(Action(form.action, {**form.args, **answers}))
    return out
