"""No game is lost by a wrong press (issue 23, point 7): "New game" or "Other game" with a game
in play asks first, naming it; the game set aside waits in the game list ("Resume <game>"),
after a restart too; a power cut while it is set aside or taken up loses nothing; only games
that ended go to history for good.

Each test drives the box as a player does, by its buttons on the simulated box."""

from __future__ import annotations

import errno
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from companion.app.boxstate import BoxState
from companion.app.events import Pressed
from companion.app.play import as_record
from companion.app.session import Session
from companion.core.config import Config, ReaderConfig, StateConfig
from companion.core.journal_lines import fold, read_entries
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
    assert _screen(sim)[:2] == [f"Set aside {asked}?", "> Keep it waiting"]
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
        assert _screen(sim) == [
            "Set aside Trapwords?",
            "> Keep it waiting",
            "  End it: to history",
            "  Stay in the game",
            "ok pick  back out",
        ]
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
        # the dice wait from the answer on, newest on top (issue 42, point 10)
        assert sim.app.box.menu.items[:2] == ("Resume Dice", "Resume Trapwords")
        _pick(sim, "Resume Trapwords")
        back = sim.app.session
        assert back.name == "trapwords"
        assert back.game_id == words.game_id
        assert [s.action for s in back.steps if s.action] == [
            s.action for s in words.steps if s.action
        ]
        # The dice, set aside in its place, wait in turn.
        assert sim.app.box.menu is None
        _game_list(sim, "Trapwords")  # and Trapwords waits again, from the answer on
        assert sim.app.box.menu.items[:2] == ("Resume Trapwords", "Resume Dice")
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
    if move == "take up":  # the dice wait (done as answered), then Trapwords is taken up
        _game_list(sim, "Dice")
    if cut == "before the journal":
        # the journal's change: the game in play leaves it as the answer is given
        name = "end_game" if move == "set aside" else "take_up"
        setattr(journal, name, cut_here)
    else:
        sim.app.shelf.settle = cut_here
    with pytest.raises(Cut):
        if move == "set aside":
            _game_list(sim, "Trapwords")
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
        games = ({in_play.game_id} if in_play else set()) | waiting
        assert words in games
        if dice:
            assert dice in games
        new = cut == "after the journal"
        if move == "set aside":  # none in play after it until another starts
            assert (in_play is None) is new
            assert (words in waiting) is new
        else:
            assert (in_play is not None and in_play.game_id == words) is new
            assert dice in waiting
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
        _game_list(sim, "Trapwords")  # refused as it is answered
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


# --- issue 30, point 9: every game that ended goes to history; three answers; the list -------


def _ended_trap_attack(sim: SimulatedBox) -> None:
    """A Trap Attack game whose race is over: its scores are on screen."""
    sim.app.new_game("trap-attack", {})
    sim.app.submit(Action("first_player", {}, (6, 1)))  # the roll for who starts
    sim.app.submit(Action("scoring"))
    session = sim.app.session
    assert session.last_by_person() is not None
    assert session.rules.result(session.state) is None  # no records: only its standings


@pytest.mark.parametrize("entry", ["Other game", "New game"])
def test_a_game_with_its_final_standings_is_not_asked_about(tmp_path: Path, entry: str) -> None:
    sim = _box(tmp_path)
    try:
        _ended_trap_attack(sim)
        _press(sim, "back")  # the game menu, over the scoring's first question
        _pick(sim, entry)
        assert not _screen(sim)[0].startswith("Set aside"), _screen(sim)
        if entry == "Other game":
            assert not [i for i in sim.app.box.menu.items if i.startswith("Resume")]
            _pick(sim, "Dice")
        _press(sim, "green")
        assert sim.app.shelf.games == {}  # history, not waiting
    finally:
        sim.close()


def test_end_it_sends_the_game_to_history(tmp_path: Path) -> None:
    sim = _box(tmp_path)
    try:
        _trapwords_started(sim)
        _press(sim, "back")
        _pick(sim, "Other game")
        _pick(sim, "End it: to history")
        assert _screen(sim)[0] == "Choose a game"
        assert not [i for i in sim.app.box.menu.items if i.startswith("Resume")]
        _dice_in_play_nothing_waiting(sim)
    finally:
        sim.close()
    again = _box(tmp_path)
    try:
        assert again.app.shelf.games == {}
    finally:
        again.close()


def test_end_it_is_done_when_answered_and_backing_out_does_not_bring_the_game_back(
    tmp_path: Path,
) -> None:
    """Issue 42, point 10: "End it: to history" then back out of what followed returned to the
    same game still in play. The answer is done when given: the game is in history at once,
    no game is in play, and the list has no "Resume" for it."""
    sim = _box(tmp_path)
    try:
        _trapwords_started(sim)
        _press(sim, "back")
        _pick(sim, "New game")
        _pick(sim, "End it: to history")
        assert sim.app.session is None
        assert _screen(sim)[0] == "Trapwords"  # the options of a new one
        _press(sim, "back")  # the options: left without starting
        assert sim.app.session is None
        assert _screen(sim)[0] == "Choose a game"
        assert not [i for i in sim.app.box.menu.items if i.startswith("Resume")]
        _press(sim, "back")
        assert sim.app.session is None and _screen(sim)[0] == "Choose a game"
        assert sim.app.shelf.games == {}
    finally:
        sim.close()
    again = _box(tmp_path)  # and so it stays after a restart
    try:
        assert again.app.session is None and again.app.shelf.games == {}
        assert list((tmp_path / "history").iterdir())
    finally:
        again.close()


def test_keep_it_waiting_is_done_when_answered_and_the_list_shows_it(tmp_path: Path) -> None:
    """Issue 42, point 10: "Keep it waiting" then back out of the game list: the game waits
    (the list offers to resume it) instead of coming back still in play."""
    sim = _box(tmp_path)
    try:
        _trapwords_started(sim)
        before = sim.app.session
        _press(sim, "back")
        _pick(sim, "Other game")
        _pick(sim, "Keep it waiting")
        assert sim.app.session is None
        assert sim.app.box.menu.items[0] == "Resume Trapwords"
        assert list(sim.app.shelf.games) == ["trapwords"]
        _press(sim, "back")  # out of the list: still the list, nothing in play
        assert sim.app.session is None and _screen(sim)[0] == "Choose a game"
        assert sim.app.box.menu.items[0] == "Resume Trapwords"
        _pick(sim, "Resume Trapwords")
        assert sim.app.session.game_id == before.game_id
        assert sim.app.session.state.round == before.state.round
    finally:
        sim.close()


def test_stay_goes_back_to_play(tmp_path: Path) -> None:
    sim = _box(tmp_path)
    try:
        _trapwords_started(sim)
        before = sim.app.session
        _press(sim, "back")
        _pick(sim, "Other game")
        _pick(sim, "Stay in the game")
        assert sim.app.box.menu is None
        assert sim.app.session.game_id == before.game_id
        assert sim.app.session.rules.public(sim.app.session.state)["phase"] != "paused"
    finally:
        sim.close()


def test_waiting_games_newest_first_by_names_that_fit(tmp_path: Path) -> None:
    from companion.ui.render import layout

    sim = _box(tmp_path)
    try:
        sim.app.new_game("cover-your-asps", {})
        for title in ("Hostage Trap!", "Deathtrap Dungeon", "Dice"):
            while sim.app.session.last_by_person() is None:  # green until a person played
                _press(sim, "green")
            _press(sim, "back")
            _pick(sim, "Other game")
            _press(sim, "ok")  # keep it waiting
            _pick(sim, title)
            _press(sim, "green")  # started with its options as they are
        while sim.app.session.last_by_person() is None:
            _press(sim, "green")
        _press(sim, "back")
        _pick(sim, "Other game")
        _press(sim, "ok")
        items = sim.app.box.menu.items
        # the game just set aside waits too, newest on top (issue 42, point 10)
        assert items[:4] == (
            "Resume Dice",
            "Resume Deathtrap",
            "Resume Hostage Trap!",
            "Resume Asps",
        )
        for cursor in range(4):  # each entry whole, chosen or not
            sim.app.box = replace(sim.app.box, menu=replace(sim.app.box.menu, cursor=cursor))
            shown = [p.text for p in layout(sim.app.current()[0]).texts if p.area == "line"]
            assert not [t for t in shown if "…" in t], shown
    finally:
        sim.close()


ENDED = [
    "examples/cover-your-asps-four-players.txt",  # Cover Your Asps 2-4: its final standings
    "examples/deathtrap-dungeon-four-players.txt",  # Deathtrap Dungeon's fourth round
    "examples/hostage-trap-three-players.txt",  # a Hostage Trap! win
    "tests/scripts/trap-attack-solo-to-boat.txt",  # Trap Attack's scores
    "tests/scripts/trapwords-tiebreak.txt",  # a Trapwords win
]


@pytest.mark.parametrize("script", ENDED, ids=lambda s: Path(s).stem)
def test_every_game_that_ended_goes_to_history_unasked(tmp_path: Path, script: str) -> None:
    """A game played to its end in replay, then the box started on it: "Other game" asks
    nothing, and the game waits nowhere, after a restart too."""
    from companion.replay import run_script

    root = Path(__file__).resolve().parents[1]
    run_script((root / script).read_text(encoding="utf-8"), state_dir=tmp_path)
    sim = _box(tmp_path)
    try:
        session = sim.app.session
        assert session is not None and session.last_by_person() is not None
        for _ in range(4):  # pages the end opened close; then back opens the game menu
            menu = sim.app.box.menu
            if isinstance(menu, menus.ListMenu) and "Other game" in menu.items:
                break
            _press(sim, "back")
        _pick(sim, "Other game")
        assert _screen(sim)[0] == "Choose a game", _screen(sim)
        _dice_in_play_nothing_waiting(sim)
    finally:
        sim.close()
    again = _box(tmp_path)
    try:
        assert again.app.shelf.games == {}
        assert not [i for i in _game_list_items(again) if i.startswith("Resume")]
    finally:
        again.close()


def _dice_in_play_nothing_waiting(sim: SimulatedBox) -> None:
    """From the game list: dice started, and the game before it waits nowhere."""
    _pick(sim, "Dice")
    _press(sim, "green")
    assert sim.app.session.name == "dice"
    assert sim.app.shelf.games == {}


def _game_list_items(sim: SimulatedBox) -> list[str]:
    _press(sim, "back")
    _pick(sim, "Other game")
    return list(sim.app.box.menu.items)


def test_an_ended_game_left_waiting_by_an_older_box_goes_to_history_at_start(
    tmp_path: Path,
) -> None:
    """A box from before ended games went to history/ unasked kept them waiting as
    "Resume ..." entries: the next start sends such a game to history/, and a game still
    being played keeps waiting."""
    from companion.core.shelf import Shelf
    from companion.replay import run_script

    root = Path(__file__).resolve().parents[1]
    ended_dir = tmp_path / "ended"
    run_script((root / ENDED[0]).read_text(encoding="utf-8"), state_dir=ended_dir)
    ended = fold(read_entries(ended_dir / "journal.jsonl")[0])
    assert ended is not None
    sim = _box(tmp_path / "playing")
    try:
        _trapwords_started(sim)
        _press(sim, "green")
        playing = as_record(sim.app.session)
    finally:
        sim.close()
    (tmp_path / "box").mkdir()
    shelf = Shelf(tmp_path / "box")
    shelf.open(None)
    shelf.games = {ended.game: ended, playing.game: playing}
    shelf.plan(shelf.games, playing)  # both wait, and no game is in play
    shelf.settle(None)
    waiting = tmp_path / "box" / "waiting.jsonl"
    head, _, body = waiting.read_bytes().partition(b"\n")
    header = json.loads(head)
    assert header.pop("no_ended") is True
    waiting.write_bytes(json.dumps(header).encode() + b"\n" + body)  # as an older box wrote it
    assert set(Shelf(tmp_path / "box").open(None)) == {ended.game, playing.game}
    again = _box(tmp_path / "box")
    try:
        assert set(again.app.shelf.games) == {"trapwords"}
        menu = again.app.box.menu  # no game in play: the game list is open
        assert [i for i in menu.items if i.startswith("Resume")] == ["Resume Trapwords"]
    finally:
        again.close()
    kept = list((tmp_path / "box" / "history").iterdir())
    assert len(kept) == 1 and ended.game_id in kept[0].read_text(encoding="utf-8")
    head = waiting.read_bytes().partition(b"\n")[0]
    assert json.loads(head)["no_ended"] is True  # checked once: later starts fold nothing
