"""A set-aside or take-up the storage refuses midway (issue 36, point 6): whichever step of the
journal's swap fails (the write of the new file, an fsync, a rename), the box's value, its
screen and the files agree. Refused before the old journal moves away: nothing changed, the
old game plays on into its own journal (or, none in play, the game taken up still waits).
Refused after: the change stands, the notice says what the storage did, and the rest of the
swap is done before the next write (never a fresh journal in its place). Each test plays on,
then the power is cut and the box starts again: every acknowledged move is there, and the
game in play is the one the screen said.

Since issue 42, point 10, a set-aside is done as "Set aside?" is answered: the journal's game
goes to history/ whole and an empty journal takes its place (``Journal.end_game``), a swap of
its own with no new file's content to write (``ASIDE``); the take-up that follows starts from
no game in play.

The failures are injected where the swap meets the storage (``os.write``, ``os.fsync`` and
``os.replace`` on the state directory's files while ``Journal._swap`` runs), so each step
can be hit on its own: a card fails one step at a time, no mount can choose which."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from storage_support import empty, fill, remount, small_disk
from test_set_aside import _box, _dice_over_trapwords, _game_list, _pick, _press, _screen

from companion.app.boxstate import BoxState
from companion.app.session import Session
from companion.core import journal as journal_module
from companion.core import storage
from companion.core.journal import Journal
from companion.core.journal_lines import fold, read_entries
from companion.core.storage import RETRY_SECONDS
from companion.sim.box import SimulatedBox

# The swap's steps, in the order it takes them: what fails there and what it means.
STEPS = (
    ("write", "journal.jsonl.next", errno.ENOSPC),  # the card full under the new file
    ("fsync", "journal.jsonl.next", errno.EIO),
    ("fsync", ".", errno.EIO),  # the folder, before the old file moves
    ("replace", "journal.jsonl", errno.EIO),  # the old file to history/: the swap's moment
    ("fsync", "history", errno.EIO),
    ("replace", "journal.jsonl.next", errno.EIO),  # the new file into the journal's place
    ("fsync", ".", errno.EIO),  # the folder, last
)
MOMENT = 3  # refused before this step: nothing changed; from the next one on, the swap stands
ASIDE = STEPS[1:]  # the set-aside's swap: an empty journal in the old one's place, no write
ASIDE_MOMENT = MOMENT - 1


class FailingCard:
    """The state directory failing at the ``at``-th step of the journal's next swap, once, or
    (``lasting``) at every write, fsync and rename in it from then on until ``heal``."""

    def __init__(
        self, state_dir: Path, at: int, lasting: bool = False, steps: tuple = STEPS
    ) -> None:
        self.state_dir = state_dir.resolve()
        self.steps = steps
        self.at, self.lasting = at, lasting
        self.seen: list[tuple[str, str]] = []  # the swap's steps, as it took them
        self.swapping = False
        self.failing = False
        self.hit: tuple[str, str] | None = None

    def install(self, monkeypatch: pytest.MonkeyPatch, journal: Journal) -> None:
        real_swap, real_write = journal._swap, os.write
        real_fsync, real_replace = os.fsync, os.replace

        def swap(*args: Any) -> Any:
            self.swapping = True
            try:
                return real_swap(*args)
            finally:
                self.swapping = False

        def write(fd: int, data: Any) -> int:
            self._step("write", _fd_path(fd))
            return real_write(fd, data)

        def fsync(fd: int) -> None:
            self._step("fsync", _fd_path(fd))
            real_fsync(fd)

        def replace(src: Any, dst: Any) -> None:
            self._step("replace", Path(src))
            real_replace(src, dst)

        monkeypatch.setattr(journal, "_swap", swap)
        monkeypatch.setattr(os, "write", write)
        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)

    def heal(self) -> None:
        self.failing = False

    def _step(self, kind: str, path: Path | None) -> None:
        if path is None or not (path == self.state_dir or self.state_dir in path.parents):
            return
        name = str(path.relative_to(self.state_dir))
        if self.swapping and self.hit is None:
            self.seen.append((kind, name))
            if len(self.seen) - 1 == self.at:
                self.hit = (kind, name)
                self.failing = self.lasting
                why = self.steps[self.at][2]
                raise OSError(why, os.strerror(why), str(path))
        if self.failing:
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))


def _fd_path(fd: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return None


def _moves(session: Any) -> list[Any]:
    """The actions of a game, without the pauses a start or a stop adds."""
    return [s.action for s in session.steps if s.action is not None]


def _move(sim: SimulatedBox) -> None:
    """One move a person makes in the game in play (a die rolled; a turn resumed)."""
    before = len(_moves(sim.app.session))
    _press(sim, "ok" if sim.app.session.name == "trapwords" else "green")
    if len(_moves(sim.app.session)) == before:  # the first press only closed the notice
        _press(sim, "ok" if sim.app.session.name == "trapwords" else "green")
    assert len(_moves(sim.app.session)) == before + 1


def _cut(sim: SimulatedBox, monkeypatch: pytest.MonkeyPatch) -> SimulatedBox:
    """The power goes: what is on the card stays, nothing in memory is written; the box
    starts again on the same card (working again)."""
    journal = sim.app.journal
    journal.backlog.clear()
    if journal._fd is not None:
        os.close(journal._fd)
        journal._fd = None
    sim.app.box = BoxState()
    sim.close()
    monkeypatch.undo()
    return _box(sim.app.journal.path.parent)


def _take_up_failing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, card: FailingCard):
    sim, words = _dice_over_trapwords(tmp_path)
    dice = sim.app.session
    _game_list(sim, "Dice")  # the dice wait as the table answers (issue 42, point 10)
    card.install(monkeypatch, sim.app.journal)
    histories = len(list((tmp_path / "history").iterdir()))
    _pick(sim, "Resume Trapwords")
    assert card.seen[: len(STEPS)] == [(kind, name) for kind, name, _ in STEPS][: card.at + 1]
    assert card.hit == STEPS[card.at][:2]
    return sim, words, dice, histories


@pytest.mark.parametrize("at", range(len(STEPS)), ids=[f"{k} {n}" for k, n, _ in STEPS])
def test_a_take_up_refused_at_any_step_loses_no_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int
) -> None:
    card = FailingCard(tmp_path, at)
    sim, words, dice, histories = _take_up_failing(tmp_path, monkeypatch, card)
    happened = at > MOMENT
    screen = _screen(sim)
    if happened:  # the game taken up, the notice saying what the storage did
        assert sim.app.session.game_id == words.game_id
        assert screen[:3] == ["Storage error", "Trapwords taken up", "storage error: moves"]
        assert sim.app.journal.condition == storage.FAILING
        assert dice.game_id == sim.app.shelf.games["dice"].game_id
    else:  # nothing changed: none in play, both games wait, the journal whole, no plan left
        title = "Storage full" if STEPS[at][2] == errno.ENOSPC else "Storage error"
        assert screen[1:4] == [title, "not taken up", "it waits"]
        assert sim.app.session is None
        assert (tmp_path / "journal.jsonl").is_file()
        assert not (tmp_path / "waiting.jsonl.next").exists()
        assert len(list((tmp_path / "history").iterdir())) == histories
        assert sim.app.shelf.games["trapwords"].game_id == words.game_id
        assert sim.app.shelf.games["dice"].game_id == dice.game_id
        assert "Resume Trapwords" in sim.app.box.menu.items  # the box as before the choice
        assert not (tmp_path / "journal.jsonl.next").exists()
        _pick(sim, "Resume Trapwords")  # the card takes it now
    assert sim.app.session.game_id == words.game_id
    shown = sim.app.session.game_id
    _move(sim)
    _move(sim)
    assert sim.app.journal.backlog == []  # acknowledged: on the card
    assert sim.app.journal.condition == storage.OK  # the swap's rest done with the first move
    assert not (tmp_path / "journal.jsonl.next").exists()
    played = _moves(sim.app.session)
    other = dice

    again = _cut(sim, monkeypatch)
    try:
        assert again.app.session.game_id == shown  # the game the screen said
        assert _moves(again.app.session) == played
        waiting = again.app.shelf.games[other.name]
        assert (waiting.game_id, waiting.actions) == (
            other.game_id,
            [a.to_json() for a in _moves(other)],
        )
        assert sorted(again.app.shelf.games) == [other.name]
    finally:
        again.close()


def _set_aside_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, card: FailingCard, answer: str
) -> tuple[SimulatedBox, Session, Session, int]:
    """Dice in play over a Trapwords game that waits; the card fails as "Set aside Dice?" is
    answered ``answer`` (issue 42, point 10: the swap happens then)."""
    sim, words = _dice_over_trapwords(tmp_path)
    dice = sim.app.session
    histories = len(list((tmp_path / "history").iterdir()))
    card.install(monkeypatch, sim.app.journal)
    _press(sim, "back")
    _pick(sim, "Other game")
    _pick(sim, answer)
    assert card.seen == [(kind, name) for kind, name, _ in ASIDE][: card.at + 1]
    assert card.hit == ASIDE[card.at][:2]
    return sim, words, dice, histories


@pytest.mark.parametrize("answer", ["Keep it waiting", "End it: to history"])
@pytest.mark.parametrize("at", range(len(ASIDE)), ids=[f"{k} {n}" for k, n, _ in ASIDE])
def test_a_set_aside_refused_at_any_step_loses_no_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int, answer: str
) -> None:
    """The answer to "Set aside?" refused before the swap's moment: the game plays on, as the
    notice says; after it: the game waits (or is in history), the notice says what the
    storage did, and nothing is in play. Either way a cut after loses no move."""
    card = FailingCard(tmp_path, at, steps=ASIDE)
    sim, words, dice, histories = _set_aside_failing(tmp_path, monkeypatch, card, answer)
    kept = answer == "Keep it waiting"
    happened = at > ASIDE_MOMENT
    screen = _screen(sim)
    if happened:  # set aside (or ended): none in play, the list shows it
        assert sim.app.session is None
        done = "Dice set aside" if kept else "Dice ended"
        assert screen[:3] == ["Storage error", done, "storage error: moves"]
        assert sim.app.journal.condition == storage.FAILING
        assert ("Resume Dice" in sim.app.box.menu.items) is kept
        assert ("dice" in sim.app.shelf.games) is kept
        _pick(sim, "Resume Trapwords")  # the swap's rest done first, then the take-up
        assert sim.app.session.game_id == words.game_id
    else:  # nothing changed: the dice play on into their own journal, no plan left
        assert screen[1:4] == ["Storage error", "the game in play", "stays in play"]
        assert sim.app.session.game_id == dice.game_id
        assert (tmp_path / "journal.jsonl").is_file()
        assert not (tmp_path / "journal.jsonl.next").exists()
        assert not (tmp_path / "waiting.jsonl.next").exists()
        assert len(list((tmp_path / "history").iterdir())) == histories
        assert sorted(sim.app.shelf.games) == ["trapwords"]
        for _ in range(3):  # back to the game, out of the menus
            if sim.app.box.menu is not None:
                _press(sim, "back")
        assert sim.app.box.menu is None
    shown = sim.app.session.game_id
    _move(sim)
    _move(sim)
    assert sim.app.journal.backlog == []
    assert sim.app.journal.condition == storage.OK
    assert not (tmp_path / "journal.jsonl.next").exists()
    played = _moves(sim.app.session)

    again = _cut(sim, monkeypatch)
    try:
        assert again.app.session.game_id == shown
        assert _moves(again.app.session) == played
        waiting = {r.game_id for r in again.app.shelf.games.values()}
        if happened:
            assert waiting == ({dice.game_id} if kept else set())
        else:
            assert waiting == {words.game_id}
    finally:
        again.close()


@pytest.mark.parametrize("answer", ["Keep it waiting", "End it: to history"])
def test_a_cut_while_the_card_fails_after_a_set_aside_keeps_it_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    """The power goes right after the answer while the last rename is still refused: the start
    finishes the swap; the game answered is not in play again (issue 42, point 10), it waits
    or is in history."""
    card = FailingCard(tmp_path, ASIDE_MOMENT + 2, lasting=True, steps=ASIDE)
    sim, words, dice, _ = _set_aside_failing(tmp_path, monkeypatch, card, answer)
    assert sim.app.session is None
    assert not (tmp_path / "journal.jsonl").exists()  # the next file is the journal meanwhile
    again = _cut(sim, monkeypatch)
    try:
        assert again.app.session is None
        assert again.app.box.menu is not None
        waiting = {r.game_id for r in again.app.shelf.games.values()}
        kept = answer == "Keep it waiting"
        assert waiting == ({words.game_id, dice.game_id} if kept else {words.game_id})
        if kept:
            assert again.app.shelf.games["dice"].actions == [a.to_json() for a in _moves(dice)]
        assert not (tmp_path / "journal.jsonl.next").exists()
        assert ("Resume Dice" in again.app.box.menu.items) is kept
    finally:
        again.close()


@pytest.mark.parametrize("at", range(MOMENT + 1, len(STEPS)), ids=lambda at: STEPS[at][1])
def test_a_card_failing_on_after_the_moment_keeps_the_journal_in_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int
) -> None:
    """The card goes on failing after the swap's moment: moves wait in memory, said on every
    screen, and the journal's place is never taken by a fresh file (a start would keep that
    one and drop the game taken up)."""
    card = FailingCard(tmp_path, at, lasting=True)
    sim, words, dice, _ = _take_up_failing(tmp_path, monkeypatch, card)
    assert sim.app.session.game_id == words.game_id
    _move(sim)
    assert len(sim.app.journal.backlog) == 1
    assert _screen(sim)[0] == "Storage error"
    if at == MOMENT + 2:  # the last rename refused: the journal is its next file meanwhile
        assert not (tmp_path / "journal.jsonl").exists()
    sim.advance(RETRY_SECONDS)  # retried, refused again: still waiting
    assert len(sim.app.journal.backlog) == 1
    assert not (tmp_path / "journal.jsonl").exists() or at != MOMENT + 2
    card.heal()
    sim.advance(RETRY_SECONDS)  # the card takes writes again: the swap finished, moves written
    assert sim.app.journal.backlog == []
    assert _screen(sim)[1:3] == ["storage takes moves", "again"]
    played = _moves(sim.app.session)
    again = _cut(sim, monkeypatch)
    try:
        assert again.app.session.game_id == words.game_id
        assert _moves(again.app.session) == played
        assert again.app.shelf.games["dice"].game_id == dice.game_id
    finally:
        again.close()


def test_a_cut_while_the_card_fails_after_the_moment_keeps_the_game_taken_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The power goes while the last rename is still refused: the start finishes the swap;
    only the move the screen said was not saved is not there."""
    card = FailingCard(tmp_path, MOMENT + 2, lasting=True)
    sim, words, dice, _ = _take_up_failing(tmp_path, monkeypatch, card)
    taken = _moves(sim.app.session)
    _move(sim)  # not saved: the title says so
    assert len(sim.app.journal.backlog) == 1
    again = _cut(sim, monkeypatch)
    try:
        assert again.app.session.game_id == words.game_id
        assert _moves(again.app.session) == taken
        assert again.app.shelf.games["dice"].game_id == dice.game_id
        assert not (tmp_path / "journal.jsonl.next").exists()
    finally:
        again.close()


def test_a_set_aside_while_moves_wait_on_a_read_only_card_says_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moves of the game in play still waiting for the card: the set-aside waits too, and says
    the card's own condition (not "Storage full" for a card that is not full)."""
    sim, _ = _dice_over_trapwords(tmp_path)
    try:

        def read_only(data: bytes) -> None:
            raise OSError(errno.EROFS, "Read-only file system")

        monkeypatch.setattr(sim.app.journal, "_write", read_only)
        _move(sim)  # waits in memory
        _press(sim, "back")
        _pick(sim, "Other game")
        _pick(sim, "Keep it waiting")  # refused as it is answered (issue 42, point 10)
        assert _screen(sim)[1:4] == ["Read-only", "the game in play", "stays in play"]
        assert sim.app.session.name == "dice"
    finally:
        monkeypatch.undo()
        sim.close()


@pytest.mark.parametrize("at", range(len(STEPS)), ids=[f"{k} {n}" for k, n, _ in STEPS])
def test_a_new_game_whose_move_to_history_is_refused_is_journaled_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int
) -> None:
    """A long journal's finished games go to history/ in the swap that starts the next game:
    refused before its moment, the game is appended instead; after it, the game stands as the
    swap wrote it (never a second game entry), and its moves follow it."""
    monkeypatch.setattr(journal_module, "ROTATE_BYTES", 0)
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    journal.open()
    journal.new_game("dice", {"die": "d6"}, (), 0.0)
    journal.action({"name": "roll", "rolls": [2], "at": 1.0})
    FailingCard(tmp_path, at).install(monkeypatch, journal)
    game_id = journal.new_game("dice", {"die": "d6"}, (), 2.0)
    assert journal.condition == (storage.FAILING if at > MOMENT else storage.OK)
    assert journal.action({"name": "roll", "rolls": [5], "at": 3.0})
    assert journal.condition == storage.OK
    journal._close_fd()  # a cut: nothing more written
    monkeypatch.undo()
    entries, _ = read_entries(path)
    games = [e["id"] for e in entries if e["kind"] == "game"]
    assert games[-1] == game_id and games.count(game_id) == 1
    assert fold(entries).actions == [{"name": "roll", "rolls": [5], "at": 3.0}]
    assert not (tmp_path / "journal.jsonl.next").exists()


def test_moves_written_by_a_take_up_that_is_then_refused_clear_the_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card takes writes again just as a set-aside starts: it writes the moves that waited,
    then its swap is refused. The box is as it was, and no longer says moves are not saved."""
    sim, _ = _dice_over_trapwords(tmp_path)
    journal = sim.app.journal
    try:
        refusing = [True]

        def read_only(data: bytes) -> None:
            if refusing[0]:
                raise OSError(errno.EROFS, "Read-only file system")
            Journal._write(journal, data)

        end_game = journal.end_game  # the swap of "Set aside?" answered (issue 42, point 10)

        def healed_first(*args: Any) -> Any:
            refusing[0] = False  # the card takes writes again
            return end_game(*args)

        monkeypatch.setattr(journal, "_write", read_only)
        _move(sim)
        sim.advance(0.01)  # the loop says the storage's change
        assert sim.app.box.storage == storage.READ_ONLY
        monkeypatch.setattr(journal, "end_game", healed_first)
        FailingCard(tmp_path, ASIDE_MOMENT - 1, steps=ASIDE).install(monkeypatch, journal)
        _press(sim, "back")
        _pick(sim, "Other game")
        assert _screen(sim)[:2] == [
            "Read-only",
            "> Keep it waiting",
        ]  # "Set aside Dice?", titled as it is
        _press(sim, "ok")
        assert _screen(sim)[1:4] == ["Storage error", "the game in play", "stays in play"]
        assert journal.backlog == []
        sim.advance(0.01)
        assert sim.app.box.storage == storage.OK
        assert sim.app.session.name == "dice"
    finally:
        monkeypatch.undo()
        sim.close()


@pytest.mark.parametrize("moment", ["set aside", "take up"])
@pytest.mark.parametrize("fault", ["full", "read-only"])
def test_a_swap_on_a_card_really_full_or_read_only_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, moment: str
) -> None:
    """The same on a real small disk, filled to the last byte or remounted read-only, as
    "Set aside?" is answered or a waiting game taken up: refused whole, said as it is,
    nothing left behind; the box plays on once the card takes writes again, and a cut after
    loses none of it."""
    with small_disk(tmp_path / "disk", "1024k") as disk:
        sim, words = _dice_over_trapwords(disk)
        dice = sim.app.session
        if moment == "take up":  # the dice wait: none in play
            _game_list(sim, "Dice")
        if fault == "full":
            fill(disk)
        else:  # a mount with a file open for writing stays writable: between two writes
            sim.app.journal._close_fd()
            remount(disk, read_only=True)
        if moment == "set aside":
            _press(sim, "back")
            _pick(sim, "Other game")
            _pick(sim, "Keep it waiting")
        else:
            _pick(sim, "Resume Trapwords")
        title = "Storage full" if fault == "full" else "Read-only"
        if moment == "set aside":
            assert _screen(sim)[1:4] == [title, "the game in play", "stays in play"]
            assert sim.app.session.game_id == dice.game_id
            assert sorted(sim.app.shelf.games) == ["trapwords"]
        else:
            assert _screen(sim)[1:4] == [title, "not taken up", "it waits"]
            assert sim.app.session is None
            assert sorted(sim.app.shelf.games) == ["dice", "trapwords"]
        if fault == "full":
            empty(disk)
        else:
            remount(disk, read_only=False)
        assert not list(disk.glob("*.next"))
        if moment == "set aside":
            for _ in range(3):
                if sim.app.box.menu is not None:
                    _press(sim, "back")
        else:
            _pick(sim, "Resume Trapwords")
        _move(sim)
        assert sim.app.journal.backlog == []
        played = _moves(sim.app.session)
        in_play, other = (dice, words) if moment == "set aside" else (words, dice)
        again = _cut(sim, monkeypatch)
        try:
            assert again.app.session.game_id == in_play.game_id
            assert _moves(again.app.session) == played
            assert again.app.shelf.games[other.name].game_id == other.game_id
        finally:
            again.close()
