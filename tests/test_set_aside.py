"""No game is lost by a wrong press (issue 23, point 7): "New game" or "Other game" with a game
in play asks first, naming it; the game set aside waits in the game list ("Resume <game>"),
after a restart too; a power cut while it is set aside or taken up loses nothing; only games
that ended go to history for good.

Each test drives the box as a player does, by its buttons on the simulated box."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from companion.app.boxstate import BoxState
from companion.app.events import Pressed
from companion.app.play import as_record
from companion.app.session import Session
from companion.core.config import Config, ReaderConfig, StateConfig
from companion.core.journal import fold, read_entries
from companion.games.base import Action
from companion.sim.box import SimulatedBox
from companion.ui import menus


def _box(state_dir: Path) -> SimulatedBox:
    config = Config(state=StateConfig(dir=str(state_dir)), reader=ReaderConfig(type="none"))
    sim = SimulatedBox(config, seed=7, today=lambda: "2026-11-25")
    sim.app.start()
    return sim


def _press(sim: SimulatedBox, *buttons: str) -> None:
    for button in buttons:
        sim.app.feed(Pressed(button))


def _pick(sim: SimulatedBox, label: str) -> None:
    """Move the list on screen to ``label`` and choose it, as a player would."""
    menu = sim.app.box.menu
    assert isinstance(menu, menus.ListMenu), menu
    assert label in menu.items, menu.items
    while menu.items[menu.cursor] != label:
        _press(sim, "down")
        menu = sim.app.box.menu
    _press(sim, "ok")


def _screen(sim: SimulatedBox) -> list[str]:
    return list(sim.app.current()[0].text_lines())


def _trapwords_started(sim: SimulatedBox) -> None:
    """Trapwords chosen from the game list and its first turn started (a person's action)."""
    _pick(sim, "Trapwords")
    _press(sim, "green", "ok")
    assert sim.app.session.name == "trapwords"
    assert sim.app.session.last_by_person() is not None


def _game_list(sim: SimulatedBox, asked: str) -> None:
    """Back, "Other game", and yes to the question naming the game in play."""
    _press(sim, "back")
    _pick(sim, "Other game")
    assert _screen(sim)[:2] == ["Set aside?", asked]
    _press(sim, "ok")


def _aside_for_dice(sim: SimulatedBox) -> None:
    """Back, "Other game", yes, Dice, start, one roll."""
    _game_list(sim, "Trapwords")
    _pick(sim, "Dice")
    _press(sim, "green", "green")  # start, then roll
    assert sim.app.session.name == "dice"


@pytest.mark.parametrize("entry", ["Other game", "New game"])
def test_choosing_another_game_asks_first_naming_the_game(tmp_path: Path, entry: str) -> None:
    sim = _box(tmp_path)
    try:
        _trapwords_started(sim)
        before = sim.app.session
        _press(sim, "back")
        _pick(sim, entry)
        assert _screen(sim)[:3] == ["Set aside?", "Trapwords", "It waits in the"]
        _press(sim, "back")  # no: the game is as it was
        assert sim.app.session.state == before.state
        assert sim.app.box.menu is None
    finally:
        sim.close()


def _dice_over_trapwords(tmp_path: Path) -> tuple[SimulatedBox, Session]:
    """A box playing dice, with the Trapwords game it set aside (returned as it was)."""
    sim = _box(tmp_path)
    _trapwords_started(sim)
    words = sim.app.session
    _aside_for_dice(sim)
    return sim, words


def test_a_game_set_aside_is_resumed_from_the_game_list(tmp_path: Path) -> None:
    sim, words = _dice_over_trapwords(tmp_path)
    try:
        _game_list(sim, "Dice")  # a die was rolled: the dice are asked about too
        assert sim.app.box.menu.items[0] == "Resume Trapwords"
        _pick(sim, "Resume Trapwords")
        back = sim.app.session
        assert back.name == "trapwords"
        assert back.game_id == words.game_id
        assert [s.action for s in back.steps if s.action] == [
            s.action for s in words.steps if s.action
        ]
        # The dice, set aside in its place, wait in turn.
        assert sim.app.box.menu is None
        _game_list(sim, "Trapwords")
        assert "Resume Dice" in sim.app.box.menu.items
        assert "Resume Trapwords" not in sim.app.box.menu.items
    finally:
        sim.close()


def test_a_game_set_aside_still_waits_after_a_restart(tmp_path: Path) -> None:
    sim, words = _dice_over_trapwords(tmp_path)
    sim.close()  # a clean stop
    again = _box(tmp_path)  # a new App on the same state dir, as the daemon starts
    try:
        assert again.app.session.name == "dice"
        _game_list(again, "Dice")
        _pick(again, "Resume Trapwords")
        assert again.app.session.game_id == words.game_id
        assert again.app.session.rules.public(again.app.session.state)["round"] == 1
    finally:
        again.close()


def _steps(sim: SimulatedBox) -> int:
    return sum(1 for s in sim.app.session.steps if s.action is not None)


@pytest.mark.parametrize("cut", ["before the journal", "after the journal"])
@pytest.mark.parametrize("move", ["set aside", "take up"])
def test_a_power_cut_in_the_middle_loses_no_game(tmp_path: Path, cut: str, move: str) -> None:
    """The box dies between the file moves (the process gone: nothing after the cut runs);
    the next start has the old arrangement or the new one, every game whole."""
    sim = _box(tmp_path)
    _trapwords_started(sim)
    words = sim.app.session.game_id
    if move == "take up":
        _aside_for_dice(sim)
    dice = sim.app.session.game_id if move == "take up" else None

    class Cut(BaseException):  # not an OSError: nothing tidies up after it
        pass

    def cut_here(*args: object, **kwargs: object) -> None:
        raise Cut

    journal = sim.app.journal
    if cut == "before the journal":
        name = "new_game" if move == "set aside" else "take_up"
        setattr(journal, name, cut_here)
    else:
        sim.app.shelf.settle = cut_here
    with pytest.raises(Cut):
        _game_list(sim, "Dice" if move == "take up" else "Trapwords")
        if move == "set aside":
            _pick(sim, "Dice")
            _press(sim, "green")
        else:
            _pick(sim, "Resume Trapwords")
    # The process is gone: what is on the card stays, nothing more is written (no clean stop).
    os.close(journal._fd)
    journal._fd = None
    sim.app.box = BoxState()
    sim.close()
    after = _box(tmp_path)
    try:
        in_play = after.app.session
        waiting = {r.game_id for r in after.app.shelf.games.values()}
        games = {in_play.game_id} | waiting
        assert words in games
        if dice:
            assert dice in games
        new = cut == "after the journal"
        if move == "set aside":
            assert (in_play.name == "dice") is new
            assert (words in waiting) is new
        else:
            assert (in_play.game_id == words) is new
            assert (dice in waiting) is new
        assert not list(tmp_path.glob("waiting.jsonl.next"))
    finally:
        after.close()


def test_only_a_game_that_ended_goes_to_history_without_asking(tmp_path: Path) -> None:
    sim = _box(tmp_path)
    try:
        sim.app.new_game("cover-your-asps", {"players": "1"})
        sim.app.submit(Action("plank"))
        sim.app.submit(Action("lost"))  # the solo game is over: no plank fits
        session = sim.app.session
        assert session.rules.result(session.state) is not None
        _press(sim, "back")  # the records' pages of the result close
        assert sim.app.box.menu is None
        _press(sim, "back")
        _pick(sim, "Other game")
        assert _screen(sim)[0] == "Choose a game"  # nothing to lose: no question
        assert not [i for i in sim.app.box.menu.items if i.startswith("Resume")]
        _pick(sim, "Dice")
        _press(sim, "green")
        assert sim.app.shelf.games == {}
    finally:
        sim.close()
    again = _box(tmp_path)
    try:
        assert again.app.shelf.games == {}  # the ended game is history, not waiting
        assert again.app.session.name == "dice"
    finally:
        again.close()


def test_a_set_aside_the_card_refuses_keeps_the_game_in_play(tmp_path: Path) -> None:
    """A full card: the move is refused whole, with a notice, and the game plays on."""
    sim = _box(tmp_path)
    try:
        _trapwords_started(sim)
        before = sim.app.session

        def full(*args: object, **kwargs: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        sim.app.shelf.plan = full
        _game_list(sim, "Trapwords")
        _pick(sim, "Dice")
        _press(sim, "green")
        session = sim.app.session
        assert (session.game_id, session.steps[: len(before.steps)]) == (
            before.game_id,
            before.steps,
        )
        # Paused as the journal has it (the move began with that pause): both fold alike.
        entries, _ = read_entries(tmp_path / "journal.jsonl")
        assert fold(entries).steps == as_record(session).steps
        assert (before.state.phase, session.state.phase) == ("reading", "paused")  # no wake runs it
        assert _screen(sim)[1:3] == ["Storage full", "the game in play"]
        assert sim.app.shelf.games == {}
    finally:
        sim.close()
