"""Hostage Trap! at a real table (issue 16): the box's menu undoes only its own pause; a claim
shows its wait as a countdown and stops the turn timer; every hostage is offered in every menu
and the `spares` option bounds `hostages`; the draw-up reminder and the win screen say what is
so."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hostage_trap_support import Table

from companion.errors import UsageError
from companion.games.base import BadAction, Press
from companion.games.hostage_trap import GAME
from companion.games.hostage_trap.data import tables
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
    assert out[4]["screen"][0] == "T1  timer paused"
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
        st.floats(min_value=0.0, max_value=4.0, allow_nan=False, allow_subnormal=False),
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


# --- 9: a claim counts its wait down and the turn timer stands still -------------------------


def test_a_claim_counts_down_restarts_on_each_tap_and_holds_the_turn_timer() -> None:
    table = Table.new(players=4, hostages=7, spares="shuffled", turn_seconds=20)
    table.wait(5)
    assert table.do("show", player=2, color="blue")
    assert table.public["timer"] == {"remaining": 15.0, "running": False}
    table.wait(12)  # 3 s of the wait left: the countdown says so
    assert GAME.view(table.state)[0].big == "3"
    assert table.do("show", color="red")  # the tap starts the wait again
    assert GAME.view(table.state)[0].big == "15"
    table.wait(14.5)
    assert table.public["claim"]["seen"] == 2 and table.public["turn"] == 1
    assert table.public["timer"] == {"remaining": 15.0, "running": False}
    table.wait(1)  # the wait runs out: the turn timer runs on from 15 s
    assert table.public["claim"] is None
    assert table.public["timer"]["running"] is True
    table.wait(14.4)
    assert table.public["turn"] == 1
    table.wait(0.2)
    assert table.public["turn"] == 2  # the time-up came only after the claim


def test_seven_hostages_tapped_at_a_tables_pace_win() -> None:
    """Seven taps, each just inside the wait the box counts down, win: the wait is per tap."""
    table = Table.new(players=7, hostages=7, turn_seconds=30)
    colours = ("blue", "red", "green", "yellow", "purple", "orange", "pink")
    assert table.do("show", player=4, color=colours[0])
    for colour in colours[1:]:
        table.wait(14.5)
        assert table.do("show", color=colour), table.rejected
    assert table.public["winner"] == 4 and table.public["turn_no"] == 1


def test_red_ends_a_claim_at_once_and_green_cannot_run_the_timer_under_it() -> None:
    table = Table.new(players=3, turn_seconds=30)
    table.wait(2)
    assert table.do("show", player=1, color="blue")
    assert GAME.control(table.state, Press("green")) is None
    assert not table.do("resume")
    assert table.rejected[-1] == "a claim is open: the turn timer waits for it"
    assert table.press("red")  # done showing
    assert table.public["claim"] is None and table.public["timer"]["running"] is True


def test_a_player_paused_timer_stays_paused_after_a_claim() -> None:
    table = Table.new(players=3, turn_seconds=30)
    table.wait(2)
    assert table.do("pause")
    assert table.do("show", player=2, color="blue")
    table.wait(20)
    assert table.public["claim"] is None
    assert table.public["timer"] == {"remaining": 28.0, "running": False}


def test_a_turn_ended_during_a_claim_starts_its_countdown_when_the_claim_ends() -> None:
    table = Table.new(players=3, turn_seconds=30)
    assert table.do("show", player=3, color="blue")
    assert table.do("next")  # the seat on turn ends it while seat 3 still taps
    assert table.public["turn"] == 2
    assert table.public["timer"] == {"remaining": 30.0, "running": False}
    table.wait(16)
    assert table.public["timer"] == {"remaining": 29.0, "running": True}


CLAIM_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["show", "show2", "shown", "next", "pause", "resume", "draw"]),
        st.floats(min_value=0.0, max_value=20.0, allow_nan=False, allow_subnormal=False),
    ),
    max_size=40,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=CLAIM_STEPS, hostages=st.integers(3, 4))
def test_no_turn_ends_by_time_while_a_claim_is_open(steps: list, hostages: int) -> None:
    table = Table.new(players=4, hostages=hostages, turn_seconds=12)
    colours = iter(("blue", "red", "green", "teal", "pink", "grey") * 10)
    for step, gap in steps:
        open_before = table.state.showing is not None
        left_before = table.state.timer.remaining(table.state.shown_at)
        turn_before = table.state.turn
        table.wait(gap)
        if open_before and table.state.showing is not None:
            # The claim stayed open all along: the countdown stood still, no turn ended.
            assert table.state.turn == turn_before
            assert table.state.timer.running is False
            assert table.state.timer.remaining(table.state.shown_at) == left_before
        if table.state.over:
            break
        if step == "show":
            table.do("show", player="2", color=next(colours))
        elif step == "show2":
            table.do("show", player="3", color=next(colours))
        elif step == "draw":
            table.do("draw", target="2" if table.state.turn != 2 else "1")
        else:
            table.do(step)
        if table.state.showing is not None:
            assert table.state.timer.running is False
            assert not {"tick", "timeout"} & set(table.timers)
    assert table.fold() == table.state


def test_the_claim_menu_closes_when_its_turn_runs_out() -> None:
    out = run_text(
        "game hostage-trap players=3 turn_seconds=10\n"
        "wait 4\npress ok\npress up\npress up\npress up\npress ok\n"  # the seat menu's claim
        "wait 7\npress down\n"
    )
    assert out[6]["screen"][0] == "Who claims?"
    assert out[7]["state"]["turn"] == 2 and out[7]["sounds"] == ["time_up", "turn"]
    assert out[7]["screen"][0] == "Seat 1: time is up"  # back on the game, at seat 2's turn
    assert out[7]["screen"][2] == "Draw to 5 + hostages"
    assert "the game moved on: its question is closed" in out[7]["log"]
    assert out[8]["screen"][0] != "Who claims?"  # down turns the pages, not the old menu


# --- 10: every hostage in every menu; the spares option bounds `hostages` ----------------------


@given(players=st.integers(3, 7), hostages=st.integers(3, 7), seat=st.integers(1, 7))
def test_every_menu_that_asks_for_hostages_offers_all_of_them(
    players: int, hostages: int, seat: int
) -> None:
    """Which kingdoms are in play is unknown to the box: no menu offers only some."""
    table = Table.new(players=players, hostages=hostages, spares="shuffled")
    table.end_turns((seat - 1) % players)
    menu = GAME.control(table.state, Press("ok"))
    asked = [f for form in menu.forms for f in form.fields if f.key in ("color", "hostages")]
    assert [f.label for f in asked] == ["Which hostage?", "Hostages held"]
    for question in asked:
        assert question.choices == tables().colours
    assert len(tables().colours) == 7


def test_spares_aside_refuses_more_hostages_than_players_naming_both() -> None:
    with pytest.raises(UsageError, match=r"line 1: hostages=5 is more than players=4 ") as err:
        run_text("game hostage-trap players=4 hostages=5\n")
    assert "spares=aside" in str(err.value)
    with pytest.raises(UsageError, match="hostages=4 is more than players=3"):
        run_script("", game="hostage-trap", sets=["players=3", "hostages=4"])
    out = run_text("game hostage-trap players=4 hostages=5 spares=shuffled\n")
    assert out[0]["state"]["hostages"] == 5 and out[0]["state"]["spares"] == "shuffled"
    assert run_text("game hostage-trap players=4 hostages=4\n")[0]["state"]["spares"] == "aside"


@given(players=st.integers(3, 7), hostages=st.integers(3, 7))
def test_spares_aside_allows_exactly_up_to_the_players(players: int, hostages: int) -> None:
    raw = {"players": str(players), "hostages": str(hostages)}
    if hostages <= players:
        assert GAME.check_options(raw)["spares"] == "aside"
    else:
        with pytest.raises(BadAction, match=f"hostages={hostages} .* players={players}"):
            GAME.check_options(raw)
    assert GAME.check_options({**raw, "spares": "shuffled"})["hostages"] == hostages


def test_the_options_form_refuses_more_hostages_than_players_and_stays_open() -> None:
    out = run_text(
        "press down\npress down\npress down\npress ok\n"  # Choose a game: Hostage Trap!
        "press ok\n"  # players 4 -> 5
        "press down\npress down\npress ok\npress ok\npress ok\n"  # hostages 3 -> 6
        "press green\n"  # start: refused, the form stays
        "wait 6\npress down\npress ok\npress green\n"  # the spares row: shuffled; start
    )
    assert out[9]["screen"][1:4] == [
        "  Hand size: 5",
        "> Hostages to win: 6",
        "  Spares: aside",
    ]
    refused = out[10]
    assert refused["game"] is None and refused["screen"][0] == "Not allowed"
    assert "hostages=6 is more than players=5 with spares=aside" in refused["rejected"]
    assert out[11]["screen"][0] == "Hostage Trap!"  # back on the form, nothing lost
    assert out[13]["screen"][2] == "> Spares: shuffled"
    assert out[14]["game"] == "hostage-trap"
    assert out[14]["state"]["hostages"] == 6 and out[14]["state"]["spares"] == "shuffled"


# --- 11: the draw-up reminder opens every turn; the win screen says what back does ----------

TURN_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["next", "draw", "trap", "trap-on", "attack", "failed", "peek", "pause"]),
        st.floats(min_value=0.0, max_value=40.0, allow_nan=False, allow_subnormal=False),
    ),
    max_size=40,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=TURN_STEPS, players=st.integers(3, 7), hand=st.integers(5, 7))
def test_every_turn_starts_with_the_draw_up_reminder_whatever_the_news(
    steps: list, players: int, hand: int
) -> None:
    table = Table.new(players=players, hand=hand, turn_seconds=30)
    for step, gap in steps:
        table.wait(gap)
        other = "2" if table.state.turn != 2 else "1"
        if step == "draw":
            table.do("draw", target=other)
        elif step in ("trap", "trap-on"):
            table.do("trap", turns=str(int(gap) % 3), ends="yes" if step == "trap" else "no")
        elif step in ("attack", "failed"):
            table.do("attack", target=other, result="hit" if step == "attack" else "failed")
        elif step == "peek":
            table.do("peek", target=other)
        else:
            table.do(step)
        state = table.state
        if state.fresh and state.attack is None:
            screen = GAME.view(state)[0]
            reminder = (
                f"to {hand}+hostages" if state.turn in state.take_back else f"to {hand} + hostages"
            )
            assert reminder in screen.lines[0], (screen, state.notice)
            if state.notice:
                assert screen.title == state.notice[0]  # the news is on screen too


def test_the_win_screen_says_back_opens_the_game_menu_and_it_does() -> None:
    out = run_text(
        "game hostage-trap players=3\ndo claim player=2 hostages=red,green,blue\npress back\n"
    )
    assert out[1]["state"]["winner"] == 2
    assert out[1]["screen"][-1] == "back: game menu"
    assert out[2]["screen"][0] == "Hostage Trap!"
    assert "> Resume" in out[2]["screen"] and "  Undo last" in out[2]["screen"]


def test_a_whose_hostage_question_closes_at_the_time_up_and_drops_the_held_taps() -> None:
    out = run_text(
        "game hostage-trap players=3 turn_seconds=10\n"
        "wait 8\ntap @hostage-red\ntap @hostage-blue\nwait 2\nwait 8\n"
    )
    assert out[2]["screen"][0] == "Who claims?"
    assert "taken once the form is done" in out[3]["log"][-1]
    closed = out[4]
    assert closed["state"]["turn"] == 2 and closed["state"]["claim"] is None
    assert "the game moved on: its question is closed" in closed["log"]
    assert closed["screen"][1:3] == ["1 tapped card", "not taken:"]
    assert out[5]["screen"][0] == "Seat 1: time is up"  # the notice gone, the game shows
    assert "red" not in str(out) and "blue" not in str(out)  # hostages stay secret
