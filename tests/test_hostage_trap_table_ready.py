"""Hostage Trap! at a real table (issue 16): the box's menu undoes only its own pause; a claim
shows its wait as a countdown and stops the turn timer; every hostage is offered in every menu
and the `spares` option bounds `hostages`; the draw-up reminder and the win screen say what is
so."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hostage_trap_support import Table

from companion.games.hostage_trap import GAME
from companion.replay import run_script


def run_text(text: str) -> list[dict[str, Any]]:
    return list(run_script(text))


# --- 8: the game menu resumes only a pause it made ---------------------------------------------


def test_a_pause_the_player_made_survives_the_game_menu() -> None:
    out = run_text(
        "game hostage-trap players=3 turn_seconds=30\n"
        "wait 2\ndo pause\n"  # the seat menu's "Pause timer": 28 s left
        "press back\npress ok\nwait 3\n"  # the game menu, Resume, three seconds later
        "press back\npress back\nwait 3\n"  # the game menu, left by back
        "press green\nwait 1\n"
    )
    assert out[2]["state"]["timer"] == {"remaining": 28.0, "running": False}
    assert out[4]["screen"][2] == "Timer paused"
    assert out[5]["state"]["timer"] == {"remaining": 28.0, "running": False}
    assert out[8]["state"]["timer"] == {"remaining": 28.0, "running": False}
    assert out[9]["state"]["timer"]["running"] is True  # green runs it
    assert out[10]["state"]["timer"]["remaining"] == 27.0


def test_a_pause_the_menu_made_ends_when_the_menu_closes() -> None:
    out = run_text(
        "game hostage-trap players=3 turn_seconds=30\n"
        "wait 2\npress back\nwait 5\npress ok\nwait 3\n"
    )
    assert out[2]["state"]["timer"] == {"remaining": 27.95, "running": False}
    assert out[4]["state"]["timer"]["running"] is True
    assert out[5]["state"]["timer"]["remaining"] == 25.0


MENU_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["open", "close", "pause", "resume", "next"]),
        st.floats(min_value=0.0, max_value=4.0, allow_nan=False),
    ),
    max_size=30,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=MENU_STEPS)
def test_leaving_the_menu_gives_back_the_timer_as_it_was_when_the_menu_opened(
    steps: list,
) -> None:
    table = Table.new(players=4, turn_seconds=60)
    table.wait(0)
    was_running: bool | None = None  # None: the menu is closed
    for step, gap in steps:
        table.wait(gap)
        if step == "open" and was_running is None:
            was_running = table.state.timer.running
            pause = GAME.pause_action(table.state)
            if pause is not None:
                assert table.do(pause.name, **dict(pause.args))
            assert table.state.timer.running is False
        elif step == "close" and was_running is not None:
            resume = GAME.resume_action(table.state)
            if resume is not None:
                assert table.do(resume.name, **dict(resume.args))
            assert table.state.timer.running is was_running
            was_running = None
        elif step in ("pause", "resume", "next") and was_running is None:
            table.do(step)  # the table plays between menus (refusals change nothing)
    assert table.fold() == table.state
