"""The shared turn timer (companion/games/timer.py) writes the journal per turn, not per second:
ticks refresh the screen and are never journaled. Undo, clean stops and power cuts still give the
exact remaining time, worked out from the journaled moments: an undo gives back what the screen
showed when the undone action was taken, exactly as a journal with every tick in it did."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hostage_trap_support import Table as HostageTable
from test_trapwords_support import Table as TrapwordsTable

from companion.core.config import Config, StateConfig
from companion.games import timer as clock
from companion.games.base import Action
from companion.replay import run_script


def journal_lines(state_dir: Path) -> list[dict[str, Any]]:
    text = (state_dir / "journal.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def names(lines: list[dict[str, Any]]) -> list[str]:
    return [line["action"]["name"] if line["kind"] == "action" else line["kind"] for line in lines]


def test_ten_minutes_of_timed_hostage_trap_turns_write_a_line_a_turn(tmp_path: Path) -> None:
    config = Config(state=StateConfig(dir=str(tmp_path)))
    out = run_script("game hostage-trap players=4 turn_seconds=30\nwait 600\n", config=config)
    assert out[-1]["state"]["turn_no"] == 21  # twenty turns ran out, every one on time
    lines = journal_lines(tmp_path)
    # The game, the first turn's start, twenty time-ups, and the pause a clean stop writes.
    assert names(lines) == ["game", "begin", *["timeout"] * 20, "restore"]
    assert "tick" not in names(lines)


def test_ten_minutes_of_trapwords_turns_write_lines_per_turn(tmp_path: Path) -> None:
    config = Config(state=StateConfig(dir=str(tmp_path)))
    turns = "do start\nwait 46\n" * 14  # fourteen 45-second turns that run out
    out = run_script("game trapwords monster=dragon start_mode=pickup\n" + turns, config=config)
    assert out[-1]["t"] >= 600
    lines = names(journal_lines(tmp_path))
    timeouts = lines.count("timeout")
    assert timeouts == lines.count("start") == 14
    assert len(lines) == 1 + 2 * timeouts  # the game, then a start and a time-up a turn
    assert "tick" not in lines


def test_a_clean_stop_keeps_the_time_the_screen_showed(tmp_path: Path) -> None:
    config = Config(state=StateConfig(dir=str(tmp_path)))
    live = run_script("game hostage-trap players=3 turn_seconds=60\nwait 17.4\n", config=config)
    assert live[-1]["state"]["timer"] == {"remaining": 43.0, "running": True}
    again = run_script("wait 30\n", config=config)  # the box was stopped and started again
    assert again[0]["state"]["timer"] == {"remaining": 43.0, "running": False}
    assert again[0]["screen"][0] == "T1  timer paused"


def test_an_undo_gives_back_the_time_shown_when_the_undone_action_came(tmp_path: Path) -> None:
    config = Config(state=StateConfig(dir=str(tmp_path)))
    script = "game hostage-trap players=3 turn_seconds=60\nwait 10.3\ndo draw target=2\n"
    script += "wait 7\nhold back 1.5\npress green\n"
    out = run_script(script, config=config)
    assert out[-1]["log"] == ["undone: Seat 1 draws a card from seat 2"]
    assert out[-1]["state"]["drew"] is False
    assert out[-1]["state"]["timer"] == {"remaining": 50.0, "running": False}  # 49.7 showed 50
    # the undo question paused the countdown (issue 42, point 7); the undo takes both back
    assert names(journal_lines(tmp_path))[-4:] == ["draw", "pause", "undo", "restore"]
    again = run_script("wait 0\n", config=config)  # the journal folds to the same
    assert again[0]["state"]["timer"] == out[-1]["state"]["timer"]


# --- the rule itself, against a journal that kept every tick ---------------------------------


@given(
    limit=st.integers(min_value=1, max_value=120),
    start=st.floats(min_value=0.0, max_value=1e4, allow_nan=False, allow_subnormal=False),
    last=st.floats(min_value=0.0, max_value=130.0, allow_nan=False, allow_subnormal=False),
    later=st.floats(min_value=0.0, max_value=130.0, allow_nan=False, allow_subnormal=False),
)
def test_frozen_is_the_last_tick_shown_or_the_last_change(
    limit: int, start: float, last: float, later: float
) -> None:
    """The ticks a running timer had between its last change and the stop: frozen keeps the
    last one's whole second, or the time at the last change if none came."""
    timer, _ = clock.start(clock.fresh(float(limit)), start)
    last_at, at = start + min(last, limit - 0.01), start + min(last + later, limit - 0.001)
    ticks = [n for n in range(1, limit) if timer.remaining(at) - 1e-6 <= n]
    ticks = [n for n in ticks if n < timer.remaining(last_at) - 1e-6]
    expected = min(ticks) if ticks else timer.remaining(last_at)
    stopped = clock.frozen(timer, last_at, at)
    assert not stopped.running
    assert abs(stopped.remaining_at_start - expected) < 1e-6


@dataclass
class Kept:
    """Every applied action, in order, with whether the app journals it and who gave it."""

    steps: list[tuple[Action, bool, bool]] = field(default_factory=list)  # action, kept, person


def _record(table: Any, kept: Kept) -> None:
    do = table.do

    def recording(name: str, /, at: float | None = None, journal: bool = True, **args: Any):
        before = len(table.journal)
        person = not hasattr(table, "_firing")
        ok = do(name, at=at, journal=journal, **args)
        if ok:
            action = Action(name, {k: str(v) for k, v in args.items()}, at=table.now)
            kept.steps.append((action, len(table.journal) > before, person))
        return ok

    wait = table.wait

    def waiting(seconds: float, late: float = 0.0) -> None:
        table._firing = True
        try:
            wait(seconds, late)
        finally:
            del table._firing

    table.do, table.wait = recording, waiting


def _fold(game: Any, table: Any, actions: list[Action]) -> Any:
    state = game.initial(table.options, table.rolls).state
    for action in actions:
        state = game.apply(state, action).state
    return state


def _undo_matches_a_journal_of_every_tick(table: Any, plan: list) -> None:
    game = table.game
    kept = Kept()
    _record(table, kept)
    for (name, args), gap in plan:
        table.wait(gap)
        table.do(name, **args)
    people = [i for i, (_, _, person) in enumerate(kept.steps) if person]
    if not people:
        return
    last = people[-1]
    undone = kept.steps[last][0]
    # The old box: every tick journaled; undo folds the steps before the action, then restores.
    every = [action for action, _, _ in kept.steps[:last]]
    old = game.restore(_fold(game, table, every))
    # This box: only the journaled steps, restored at the moment of the action taken back.
    journaled = [action for action, journal, _ in kept.steps[:last] if journal]
    new = game.restore_at(_fold(game, table, journaled), undone.at)
    assert game.public(new) == game.public(old)
    assert new == old


hostage_plan = st.lists(
    st.tuples(
        st.sampled_from(
            [
                ("next", {}),
                ("draw", {"target": "2"}),
                ("ability", {"color": "blue"}),
                ("pause", {}),
                ("resume", {}),
            ]
        ),
        st.floats(min_value=0.0, max_value=9.0, allow_nan=False, allow_subnormal=False),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=hostage_plan, seconds=st.sampled_from([5, 12, 30]))
def test_hostage_trap_undo_gives_the_time_a_journal_of_every_tick_gave(
    plan: list, seconds: int
) -> None:
    _undo_matches_a_journal_of_every_tick(HostageTable.new(players=3, turn_seconds=seconds), plan)


trapwords_plan = st.lists(
    st.tuples(
        st.sampled_from(
            [("start", {}), ("wrong", {}), ("pause", {}), ("resume", {}), ("correct", {})]
        ),
        st.floats(min_value=0.0, max_value=9.0, allow_nan=False, allow_subnormal=False),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=trapwords_plan, seconds=st.sampled_from([5, 12, 45]))
def test_trapwords_undo_gives_the_time_a_journal_of_every_tick_gave(
    plan: list, seconds: int
) -> None:
    table = TrapwordsTable.new(start_mode="pickup", seconds=seconds)
    _undo_matches_a_journal_of_every_tick(table, plan)


def test_a_tick_changes_nothing_a_fold_needs() -> None:
    table = HostageTable.new(players=3, turn_seconds=20)
    table.wait(7.5)
    assert [a.name for a in table.journal] == ["begin"]
    assert table.fold() == table.state  # the ticks moved only the screen's time
    assert table.public["timer"]["remaining"] == 13.0
    assert table.game.public(table.fold())["timer"]["remaining"] == 20.0  # as of the start
