"""The Trapwords turn timer on a virtual clock: the three start modes, ticks without drift,
pause and resume, sounds, and resuming after a power cut."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_trapwords_support import Table

from companion.games import timer as clock
from companion.games.base import Action, Schedule
from companion.games.trapwords import GAME


def test_pickup_runs_from_the_start_press() -> None:
    table = Table.new(start_mode="pickup", seconds=45)
    table.do("start", at=2.0)
    assert table.state.phase == "running"
    assert table.timers["timeout"][0] == pytest.approx(47.0)
    table.wait(10)
    # The last tick came at remaining 35 (t = 12): public state is as of that action.
    assert table.remaining == 35.0
    assert table.public["timer"]["running"] is True
    table.wait(35)
    assert table.state.result == "timeout"
    assert table.fired[-1] == (pytest.approx(47.0), "timeout")


def test_official_mode_gives_reading_time_first() -> None:
    table = Table.new(start_mode="official", read_seconds=3, seconds=45)
    table.do("start", at=1.0)
    assert table.state.phase == "reading"
    assert table.timers["read"][0] == pytest.approx(4.0)
    table.wait(2.9)
    assert table.public["timer"] == {"remaining": 45.0, "running": False, "limit": 45.0}
    table.wait(0.1)
    assert table.state.phase == "running"
    assert table.timers["timeout"][0] == pytest.approx(49.0)
    table.wait(46)
    assert table.state.result == "timeout"
    assert table.fired[-1] == (pytest.approx(49.0), "timeout")


def test_official_mode_with_no_reading_time_runs_at_once() -> None:
    table = Table.new(start_mode="official", read_seconds=0)
    table.do("start")
    assert table.state.phase == "running"
    assert "read" not in table.timers


def test_go_during_reading_time_starts_the_clock_early() -> None:
    table = Table.new(start_mode="official", read_seconds=3, seconds=30)
    table.do("start", at=0.0)
    table.do("go", at=1.0)
    assert "read" not in table.timers
    assert table.timers["timeout"][0] == pytest.approx(31.0)


def test_clue_mode_waits_for_the_first_clue() -> None:
    table = Table.new(start_mode="clue", seconds=40)
    table.do("start", at=0.0)
    table.wait(20)
    assert table.state.phase == "waiting"
    assert table.remaining == 40.0
    assert table.timers == {}
    table.do("go")
    assert table.timers["timeout"][0] == pytest.approx(60.0)
    table.wait(40)
    assert table.state.result == "timeout"


def test_go_is_refused_once_the_clock_runs() -> None:
    table = Table.new(start_mode="pickup")
    assert not table.do("go")
    table.do("start")
    assert not table.do("go")
    assert table.rejected == ["start the turn first", "the timer has already started"]


def test_ticks_sound_only_in_the_last_ten_seconds_and_time_up_at_the_end() -> None:
    table = Table.new(start_mode="pickup", seconds=30)
    table.do("start")
    table.sounds.clear()
    table.wait(19.5)
    assert "tick" not in table.sounds
    table.wait(20)
    assert table.sounds.count("tick") == 10
    assert table.sounds[-1] == "time_up"


def test_tick_sound_can_be_off() -> None:
    table = Table.new(start_mode="pickup", seconds=12, tick="off")
    table.do("start")
    table.wait(13)
    assert "tick" not in table.sounds
    assert "time_up" in table.sounds


@pytest.mark.parametrize("late", [0.0, 0.004, 0.019])
def test_late_ticks_do_not_drift(late: float) -> None:
    """Every tick aims at a whole second of remaining time, whatever the lateness of the last."""
    table = Table.new(start_mode="pickup", seconds=45)
    table.do("start", at=0.25)
    table.wait(44.5, late=late)
    ticks = [at for at, name in table.fired if name == "tick"]
    assert len(ticks) == 44
    for index, at in enumerate(ticks, start=1):
        assert at == pytest.approx(0.25 + index + late, abs=1e-6)


def test_repeated_turns_each_last_exactly_the_set_length() -> None:
    table = Table.new(start_mode="pickup", seconds=45)
    starts = []
    for _ in range(6):
        table.wait(2.37)
        starts.append(table.now)
        table.do("start")
        table.wait(46)
    timeouts = [at for at, name in table.fired if name == "timeout"]
    assert timeouts == pytest.approx([s + 45 for s in starts], abs=1e-9)


def test_pause_and_resume_keep_the_remaining_time() -> None:
    table = Table.new(start_mode="pickup", seconds=45)
    table.do("start", at=0.0)
    table.do("pause", at=10.5)
    assert table.state.phase == "paused"
    assert table.remaining == 34.5
    assert table.public["timer"]["running"] is False
    assert table.timers == {}
    table.do("resume", at=100.0)
    assert table.timers["timeout"][0] == pytest.approx(134.5)
    assert table.timers["tick"][0] == pytest.approx(100.5)  # back on a whole second: 34 left
    table.wait(40)
    assert table.state.result == "timeout"


def test_pause_during_reading_time_keeps_the_full_turn() -> None:
    table = Table.new(start_mode="official", seconds=30)
    table.do("start", at=0.0)
    table.do("pause", at=1.0)
    assert table.state.phase == "paused"
    assert table.timers == {}
    table.do("resume", at=5.0)
    assert table.timers["timeout"][0] == pytest.approx(35.0)


def test_pause_and_resume_are_refused_out_of_place() -> None:
    table = Table.new(start_mode="clue")
    assert not table.do("pause")
    assert not table.do("resume")
    table.do("start")
    assert not table.do("pause")  # waiting for the first clue: nothing runs yet
    assert table.rejected == [
        "the timer is not running",
        "the timer is not paused",
        "the timer is not running",
    ]


def test_stray_tick_or_timeout_is_refused_when_not_running() -> None:
    table = Table.new(start_mode="pickup")
    assert not table.do("tick")
    assert not table.do("timeout")
    assert table.state.phase == "ready"


def test_power_cut_during_a_turn_resumes_paused_with_the_time_left() -> None:
    table = Table.new(start_mode="pickup", seconds=45)
    table.do("start", at=3.0)
    table.wait(12.6)  # ticks at 4 .. 15, none of them journaled
    assert [a.name for a in table.journal] == ["start"]
    table.do("wrong", at=15.6)
    restored = GAME.restore(table.fold())
    assert restored.phase == "paused"
    assert GAME.public(restored)["timer"] == {"remaining": 32.4, "running": False, "limit": 45.0}
    assert GAME.public(restored)["guesses_left"] == 4
    # Without the wrong guess the last journaled change is the start: the full turn comes back.
    table.journal.pop()
    restored = GAME.restore(table.fold())
    assert GAME.public(restored)["timer"]["remaining"] == 45.0


def test_restore_during_reading_pauses_with_the_full_turn() -> None:
    table = Table.new(start_mode="official", seconds=40)
    table.do("start")
    restored = GAME.restore(table.fold())
    assert restored.phase == "paused"
    assert GAME.public(restored)["timer"]["remaining"] == 40.0


def test_restore_leaves_still_states_alone() -> None:
    table = Table.new(start_mode="clue")
    assert GAME.restore(table.state) == table.state
    table.do("start")
    assert GAME.restore(table.state) == table.state


def test_resume_after_restore_reschedules() -> None:
    table = Table.new(start_mode="pickup", seconds=20)
    table.do("start", at=0.0)
    table.wait(5)
    table.state = GAME.restore(table.state)
    table.timers.clear()
    table.do("resume", at=50.0)
    assert table.timers["timeout"][0] == pytest.approx(65.0)


@given(left=st.floats(min_value=0.0, max_value=600.0, allow_nan=False, allow_subnormal=False))
def test_next_tick_lands_on_a_whole_second(left: float) -> None:
    effects = clock.next_tick(left)
    if left <= 1.0 + clock.EPSILON:
        assert effects == ()
        return
    (tick,) = effects
    assert isinstance(tick, Schedule)
    assert tick.action == Action("tick")
    assert 0 < tick.seconds <= 1.0 + 2 * clock.EPSILON
    mark = left - tick.seconds
    assert abs(mark - round(mark)) < 1e-6


@given(
    limit=st.floats(min_value=1.0, max_value=300.0, allow_subnormal=False),
    start=st.floats(min_value=0.0, max_value=1e5, allow_subnormal=False),
    elapsed=st.floats(min_value=0.0, max_value=400.0, allow_subnormal=False),
)
def test_remaining_is_limit_minus_elapsed_never_negative(
    limit: float, start: float, elapsed: float
) -> None:
    running, _ = clock.start(clock.fresh(limit), start)
    left = running.remaining(start + elapsed)
    assert left == pytest.approx(max(0.0, limit - elapsed), abs=1e-6)
    assert running.used(start + elapsed) == pytest.approx(limit - left, abs=1e-9)
    stopped = clock.stop(running, start + elapsed)
    assert stopped.remaining(start + elapsed + 1000) == left


@pytest.mark.parametrize(
    ("seconds", "shown"), [(45.0, "45"), (34.95, "35"), (0.2, "1"), (0.0, "0"), (125.0, "2:05")]
)
def test_big_digits_round_up_like_a_sand_timer(seconds: float, shown: str) -> None:
    assert clock.show(seconds) == shown
