"""A failing step, view or render never leaves the box unresponsive (issue 43, point 1).

A failure is injected into a step's handler, into a menu's view and into a game's view in turn;
each time the next press is answered, the game's journal is whole (it folds to the game on
screen, and a start plays it), the notice is on the OLED and on the faces, and the traceback is
logged once. The watchdog's pings stop only when every input fails (virtual clock).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.app import Parts, play
from companion.core.clock import VirtualClock
from companion.core.config import Config, from_dict
from companion.core.journal_lines import fold, read_entries
from companion.daemon import Daemon
from companion.games.base import Action
from companion.games.dice import DiceGame
from companion.games.trapwords import TrapwordsGame
from companion.hal.display import Display, open_device
from companion.hal.pins import make_factory
from companion.sim.box import SimulatedBox
from companion.ui import menus
from companion.ui.render import render
from companion.ui.screen import Screen

SAFE = "the game is safe"


class Face:
    """A face that keeps the snapshots it is shown."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def show(self, snapshot: Any) -> None:
        self.seen.append(snapshot)


def once(real: Callable[..., Any]) -> Callable[..., Any]:
    """``real``, raising the first time it is called (a bug that one input meets)."""
    left = [1]

    def broken(*args: Any, **kwargs: Any) -> Any:
        if left[0]:
            left[0] -= 1
            raise RuntimeError("injected failure")
        return real(*args, **kwargs)

    return broken


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[tuple[SimulatedBox, Face]]:
    box = SimulatedBox(Config(), state_dir=tmp_path, seed=7, demo_cards=False)
    face = Face()
    box.app.faces.add(face)
    box.app.start()
    box.loop.drain()
    try:
        yield box, face
    finally:
        if not getattr(box, "closed", False):
            box.close()


def journal(box: SimulatedBox) -> bytes:
    return box.app.journal.path.read_bytes()


def folded(box: SimulatedBox) -> list[str]:
    """The names of the actions the journal's fold gives, in order."""
    entries, _ = read_entries(box.app.journal.path)
    record = fold(entries)
    assert record is not None
    return [s.action["name"] for s in record.steps if s.action is not None]


def played(box: SimulatedBox) -> list[str]:
    """The names of the actions of the game on the box, in order."""
    session = box.app.box.session
    return [s.action.name for s in session.steps if s.action is not None]


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.exc_info is not None]


def notice_shown(box: SimulatedBox, face: Face) -> None:
    """The notice is on the OLED, pixel for pixel, and on the faces."""
    display = box.app.display
    assert SAFE in display.lines, display.lines
    assert display.image.tobytes() == render(display.screen).tobytes()
    assert SAFE in face.seen[-1].screen, face.seen[-1].screen


def restarted_public(tmp_path: Path) -> Any:
    """The game's public state as a start folds it back from the journal."""
    again = SimulatedBox(Config(), state_dir=tmp_path, seed=7, demo_cards=False)
    try:
        again.app.start()
        again.loop.drain()
        session = again.app.box.session
        return session.rules.public(session.state)
    finally:
        again.close()


def test_a_step_handler_that_raises_keeps_the_box_as_it_was(sim, caplog, monkeypatch) -> None:
    box, face = sim
    app = box.app
    app.new_game("dice", {})
    box.press("green")
    before, written = app.box, journal(box)
    # Play's handler raises after the roll was accepted and its journal entry asked for.
    monkeypatch.setattr(play, "ask_next", once(play.ask_next))
    box.press("green")
    assert app.box.session == before.session  # the value before the press
    assert journal(box) == written  # nothing of it journaled
    notice_shown(box, face)
    assert len(tracebacks(caplog)) == 1
    box.press("green")  # the next press is answered: a roll
    assert app.box.session.state.rolls == before.session.state.rolls + 1
    assert SAFE not in app.display.lines
    assert folded(box) == played(box) == ["roll", "roll"]
    assert len(tracebacks(caplog)) == 1


def test_a_menu_that_cannot_be_drawn_goes_back_to_the_last_one_that_did(
    sim, caplog, monkeypatch
) -> None:
    """As the freeze found at a table (a menu's cursor past its list raised on every redraw):
    the box goes back to the menu as it last drew, under the notice, and plays on from there."""
    box, face = sim
    app = box.app
    app.new_game("trap-attack", {})
    app.submit(Action("first_player", {}, (6, 1)))  # the roll for who starts: player 1
    box.press("red")  # the game's menu: AI turn, Next turn, Attack the AI
    box.press("down")
    drawn, written = app.box, journal(box)
    assert isinstance(drawn.menu, menus.FormMenu) and drawn.menu.cursor == 1

    def broken(real: Callable[..., Any]) -> Callable[..., Any]:
        def view(menu: menus.FormMenu) -> Any:
            if menu.cursor == 2:
                raise IndexError("list index out of range")
            return real(menu)

        return view

    monkeypatch.setattr(menus.FormMenu, "screen", broken(menus.FormMenu.screen))
    monkeypatch.setattr(menus.FormMenu, "showing", broken(menus.FormMenu.showing))
    box.press("down")
    assert app.box.menu == drawn.menu  # the menu as it last drew
    assert journal(box) == written
    notice_shown(box, face)
    assert len(tracebacks(caplog)) == 1
    box.press("ok")  # answered: the entry under the cursor, "Next turn"
    assert app.box.menu is None and played(box) == ["first_player", "turn"]
    assert SAFE not in app.display.lines
    assert folded(box) == played(box)
    assert len(tracebacks(caplog)) == 1


def test_a_game_screen_that_cannot_be_drawn_keeps_the_action_the_journal_took(
    sim, tmp_path, caplog, monkeypatch
) -> None:
    """The roll is journaled before the screen is drawn: the box keeps it (the journal and the
    value agree, a start plays it) and the notice stays up while the game's screen cannot be
    drawn; any press is still answered."""
    box, face = sim
    app = box.app
    app.new_game("dice", {})
    box.press("green")
    real = DiceGame.view

    def view(self: DiceGame, state: Any) -> Any:
        if state.rolls == 2:
            raise ValueError("a face the view does not know")
        return real(self, state)

    monkeypatch.setattr(DiceGame, "view", view)
    box.press("green")
    assert app.box.session.state.rolls == 2  # the accepted roll, as the journal has it
    assert folded(box) == played(box) == ["roll", "roll"]
    notice_shown(box, face)
    box.advance(10.0)  # the notice's time runs out: the game's screen still cannot be drawn
    notice_shown(box, face)
    assert len(tracebacks(caplog)) == 1  # once per failure, not once per redraw
    assert app.answering()
    box.press("green")  # answered: a third roll, which draws
    assert app.box.session.state.rolls == 3
    assert SAFE not in app.display.lines
    assert folded(box) == played(box) == ["roll", "roll", "roll"]
    live = app.box.session.rules.public(app.box.session.state)
    box.close()  # the power goes; the box starts again
    box.closed = True  # type: ignore[attr-defined]
    assert restarted_public(tmp_path) == live


def test_a_timer_ticking_under_the_notice_is_not_a_failure_at_every_tick(
    sim, caplog, monkeypatch
) -> None:
    """A running timer whose screen cannot be drawn ticks on under the notice (the ticks are
    drawn: the notice is on top), which stays up, not a traceback per tick or per notice, until
    the game draws again."""
    box, face = sim
    app = box.app
    app.new_game("trapwords", {})
    real = TrapwordsGame.view

    def view(self: TrapwordsGame, state: Any) -> Any:
        if state.timer.running:
            raise ValueError("digits the font does not have")
        return real(self, state)

    monkeypatch.setattr(TrapwordsGame, "view", view)
    box.press("green")  # the timer starts (journaled): its screen cannot be drawn
    box.advance(10.0)  # ticks, and the notice's time runs out
    notice_shown(box, face)
    assert app.box.session.state.timer.running
    assert len(tracebacks(caplog)) == 1
    assert app.answering()
    box.advance(60.0)  # the timer runs out: the game's screen draws again, the notice goes
    assert not app.box.session.state.timer.running
    assert SAFE not in app.display.lines
    box.press("ok")  # answered: the next team's turn
    assert SAFE not in app.display.lines
    assert folded(box) == played(box)
    assert len(tracebacks(caplog)) == 1


def test_a_snapshot_the_faces_cannot_have_is_answered_as_a_screen(sim, caplog, monkeypatch) -> None:
    """The faces' snapshot is drawn from the value too: a game's public state that raises
    is a screen that cannot be drawn, and the notice reaches the faces all the same."""
    box, face = sim
    app = box.app
    app.new_game("dice", {})
    box.press("green")
    real = DiceGame.public

    def public(self: DiceGame, state: Any) -> Any:
        if state.rolls == 2:
            raise KeyError("a key the contract does not know")
        return real(self, state)

    monkeypatch.setattr(DiceGame, "public", public)
    box.press("green")
    assert folded(box) == played(box) == ["roll", "roll"]
    notice_shown(box, face)
    box.advance(10.0)
    notice_shown(box, face)
    assert len(tracebacks(caplog)) == 1
    box.press("green")
    assert len(face.seen[-1].state["history"]) == 3  # the third roll, on the faces
    assert SAFE not in face.seen[-1].screen


def test_undo_takes_the_table_out_of_a_game_screen_that_cannot_be_drawn(
    sim, caplog, monkeypatch
) -> None:
    """Every way back to the game meets its screen again: the box goes back to the menu it
    last drew, under the notice, and the menu's undo brings a game that draws."""
    box, face = sim
    app = box.app
    app.new_game("dice", {})
    box.press("green")
    one_roll = app.box.session
    real = DiceGame.view

    def view(self: DiceGame, state: Any) -> Any:
        if state.rolls == 2:
            raise ValueError("a face the view does not know")
        return real(self, state)

    monkeypatch.setattr(DiceGame, "view", view)
    box.press("green")
    box.press("back")  # the game menu draws: no notice over it
    menu = app.box.menu
    assert isinstance(menu, menus.ListMenu) and SAFE not in app.display.lines
    box.press("back")  # closes it: the game's screen again, which cannot be drawn
    assert app.box.menu == menu
    notice_shown(box, face)
    assert len(tracebacks(caplog)) == 2  # each failure once
    box.press("down")  # "Undo last"
    box.press("ok")
    box.press("ok")  # "ok undo"
    assert app.box.menu is None
    assert app.box.session.state == one_roll.state
    assert SAFE not in app.display.lines
    assert folded(box) == played(box) == ["roll"]
    assert len(tracebacks(caplog)) == 2


def test_a_screen_the_renderer_refuses_leaves_the_display_as_it_was(monkeypatch) -> None:
    from companion.hal import display as display_module

    display = Display(lambda: open_device("dummy"))
    try:
        display.show(Screen("One", ("first",)))
        real = display_module.render

        def render_or_fail(screen: Screen, *args: Any, **kwargs: Any) -> Any:
            if screen.lines == ("cannot",):
                raise ValueError("no room for it")
            return real(screen, *args, **kwargs)

        monkeypatch.setattr(display_module, "render", render_or_fail)
        with pytest.raises(ValueError):
            display.show(Screen("Two", ("cannot",)))
        assert display.screen == Screen("One", ("first",))
        display.show(Screen("Two", ("second",)))  # drawn from the frame really shown
        assert display.image.tobytes() == real(Screen("Two", ("second",))).tobytes()
    finally:
        display.close()


# --- the watchdog: tied to a loop that answers its inputs ---------------------------------------


class Notifier:
    """What the daemon tells systemd: the watchdog's pings, every second."""

    def __init__(self) -> None:
        self.pings: list[bool] = []

    def ready(self, status: str | None = None) -> None:
        pass

    def status(self, text: str) -> None:
        pass

    def stopping(self) -> None:
        pass

    def watchdog(self, workers_alive: bool, answering: bool = True) -> bool:
        self.pings.append(workers_alive and answering)
        return self.pings[-1]

    def watchdog_interval(self) -> float | None:
        return 1.0


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    config = from_dict(
        {
            "hardware": {"pin_factory": "mock"},
            "display": {"driver": "dummy"},
            "state": {"dir": str(tmp_path / "state")},
            "reader": {"type": "none"},
        },
        "test",
    )
    factory = make_factory("mock")
    parts = Parts(factory, Display(lambda: open_device("dummy")), None, "none")
    daemon = Daemon(config, parts, VirtualClock(), Notifier())
    daemon.app.start()
    daemon.ready()
    try:
        yield daemon
    finally:
        daemon.app.shutdown()
        factory.reset()
        factory.close()


def test_the_watchdog_stops_only_when_every_input_fails(daemon, monkeypatch, caplog) -> None:
    from companion.app import interpreter

    app, notifier = daemon.app, daemon.notifier
    clock = app.clock

    def presses(count: int) -> None:
        for _ in range(count):
            app.on_press("down", False)  # a press, then a second of time
            app.loop.advance_to(clock.now() + 1.0)

    app.loop.advance_to(3.0)
    assert notifier.pings and all(notifier.pings)
    real = interpreter.step

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("every step fails")

    monkeypatch.setattr(interpreter, "step", broken)
    presses(interpreter.FAILURES_IN_A_ROW - 1)
    monkeypatch.setattr(interpreter, "step", real)
    presses(1)  # answered: a failure now and then is no reason to restart
    monkeypatch.setattr(interpreter, "step", broken)
    presses(interpreter.FAILURES_IN_A_ROW - 1)
    assert all(notifier.pings) and app.answering()
    assert SAFE in app.display.lines  # each failure said so, the step's notice made by hand
    pinged = len(notifier.pings)
    presses(1)  # every input fails: the box is not well, systemd will start it again
    assert not app.answering()
    assert notifier.pings[pinged:] and not any(notifier.pings[pinged:])
    assert sum("in a row failed" in r.getMessage() for r in caplog.records) == 1
    monkeypatch.setattr(interpreter, "step", real)
    presses(1)  # the box answers again: so do the pings
    assert app.answering() and notifier.pings[-1]
