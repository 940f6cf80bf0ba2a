"""Properties of the Trap Attack rules over random play: life stays 0..6, the AI stays on its
board, folding the journal is deterministic, screens fit, and the control map only ever makes
actions the rules understand."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from test_trap_attack_support import Table

from companion.games.base import Action, BadAction, Rejected
from companion.games.trap_attack import GAME
from companion.games.trap_attack.board import journey
from companion.games.trap_attack.tables import catalog

CARDS = [e.id for e in catalog().effects]
PAWN = st.sampled_from(["1", "2", "3", "ai"])

ACTIONS = st.one_of(
    st.just(Action("ai_turn")),
    st.just(Action("ai_turn")),
    st.sampled_from(CARDS).map(lambda c: Action("card", {"id": c})),
    st.sampled_from([Action("blocked"), Action("take"), Action("turn"), Action("first_player")]),
    st.builds(
        lambda k, a: Action("attack", {"kind": k, "amount": a}),
        st.sampled_from(["damage", "push", "paralysis"]),
        st.integers(1, 3),
    ),
    st.builds(
        lambda n, p, a: Action(n, {"player": p, "amount": a}),
        st.sampled_from(["damage", "heal"]),
        PAWN,
        st.integers(1, 6),
    ),
    PAWN.map(lambda p: Action("paralyze", {"player": p})),
    st.builds(
        lambda pos, c: Action("set_ai", {"position": pos, "crystal": c}),
        st.integers(0, 30),
        st.sampled_from(["yes", "no"]),
    ),
    st.builds(
        lambda c, p, by: Action("play", {"card": c, "target": p, "by": by}),
        st.sampled_from(CARDS),
        PAWN,
        st.sampled_from(["1", "2"]),
    ),
    st.builds(
        lambda p, v, c: Action("relic", {"player": p, "value": v, "combo": c}),
        PAWN,
        st.integers(0, 9),
        st.integers(1, 3),
    ),
    st.builds(lambda p, v: Action("loot", {"player": p, "value": v}), PAWN, st.integers(1, 4)),
    st.builds(
        lambda p, s, c: Action("finish", {"player": p, "space": s, "crystal": c}),
        PAWN,
        st.integers(0, 30),
        st.sampled_from(["yes", "no"]),
    ),
)
ENDINGS = st.sampled_from(
    [
        [],
        [],
        [Action("winner", {"player": "1"})],
        [Action("winner", {"player": "ai"})],
        [Action("scoring")],
    ]
)
OPTIONS = st.fixed_dictionaries(
    {
        "players": st.sampled_from(["1", "2", "3"]),
        "ai": st.sampled_from(["auto", "on", "off"]),
        "ai_route": st.sampled_from(["long", "shortcut"]),
        "ai_move": st.sampled_from(["d4", "d4-only", "d3"]),
    }
)


def check_invariants(table: Table) -> None:
    state = table.state
    for pawn in state.pawns:
        assert 0 <= pawn.life <= 6
    assert state.ai_spot in journey(state.board, state.options.ai_route)
    public = table.pub
    json.dumps(public)
    assert public["pending"] in (None, "card", "block")
    assert public["turn"] in (*state.seats, "ai")
    screen, _ = GAME.view(state)
    assert len(screen.lines) <= 3
    for line in (screen.title, *screen.lines, screen.footer):
        assert len(line) <= 21, line


def play(table: Table, actions: list[Action]) -> None:
    for action in actions:
        try:
            table.submit(action)
        except (Rejected, BadAction):
            continue
        check_invariants(table)


@settings(max_examples=120, deadline=None)
@given(OPTIONS, st.lists(ACTIONS, min_size=10, max_size=60), ENDINGS, st.integers(0, 10_000))
def test_random_play_keeps_life_and_position_in_bounds_and_folds_deterministically(
    options, actions, ending, seed
):
    table = Table(options, seed=seed)
    play(table, actions + ending + actions[:10])
    assert table.fold(table.journal) == table.state
    assert table.fold(table.journal) == table.fold(table.journal)


@settings(max_examples=60, deadline=None)
@given(OPTIONS, st.lists(ACTIONS, min_size=1, max_size=30), st.integers(0, 10_000))
def test_undo_gives_back_the_state_before_the_last_action(options, actions, seed):
    table = Table(options, seed=seed)
    states = [table.state]
    for action in actions:
        try:
            table.submit(action)
        except (Rejected, BadAction):
            continue
        states.append(table.state)
    if len(states) > 1:  # an action after the roll for who starts
        assert table.undo() == GAME.restore(states[-2])


INPUTS = st.one_of(
    st.sampled_from(["up", "down", "ok", "red", *["green"] * 6]),
    st.sampled_from([*CARDS, "relic", "loot"]).map(lambda c: "@" + c),
)


@settings(max_examples=120, deadline=None)
@given(OPTIONS, st.lists(INPUTS, min_size=10, max_size=80), st.integers(0, 10_000))
def test_buttons_and_taps_only_make_actions_the_rules_understand(options, inputs, seed):
    table = Table(options, seed=seed)
    for event in inputs:
        try:
            if event.startswith("@"):
                table.tap(event[1:])
            else:
                table.press(event)
        except Rejected:
            continue
        check_invariants(table)
    assert table.fold(table.journal) == table.state
