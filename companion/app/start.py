"""The box's start, and a saved game's resume: the journal opened and folded back into the
game in play (a running timer comes back paused), the games set aside settled, the problems
found on the way shown once the box is up, the card reader started.

A game that cannot be folded to its end is kept up to the step refused, one whose checkpoint
does not decode is damage named by its line, and one that cannot even be set up is set aside
whole: the box always starts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from companion.app import events
from companion.app.session import Session, from_journal, resumed
from companion.core import formats
from companion.core.clock import Clock
from companion.core.codec import CodecError
from companion.core.config import Config
from companion.core.events import CardSeen, ReaderStatus
from companion.core.journal import Journal
from companion.core.journal_lines import GameRecord
from companion.core.loop import Loop
from companion.core.shelf import Shelf
from companion.core.storage import NOTICES, OK
from companion.games.base import Action, BadAction, Rejected

# One name for all the box's log lines.
log = logging.getLogger("companion.app")


class CheckpointDamaged(ValueError):
    """The journal's checkpoint of the game in play does not decode: damage, named by its line."""


class Start:
    """The App's start and resume (box.py's App is one)."""

    # made by App.__init__ (box.py)
    config: Config
    clock: Clock
    loop: Loop
    journal: Journal
    shelf: Shelf
    parts: Any
    problems: list[tuple[str, ...]]
    time_offset: float
    runner: Any
    presence: Any
    feed: Callable[..., None]  # interpreter.py: one step, its effects performed
    refresh: Callable[[], None]  # box.py: the value drawn
    open_game_menu: Callable[[], None]  # box.py

    def start(self) -> None:
        record = self.journal.open()
        try:
            self.shelf.open(record, self.journal.newer)  # a cut change: finished or undone
            self._shelf_newer()
            self._retire_ended()
        except OSError as err:
            log.error("games set aside not settled: %s", err)
        if record is not None:
            self._resume(record)
        else:
            self.open_game_menu()
        if self.journal.condition != OK:  # said with the problems, not over them
            self.problems.append((NOTICES[self.journal.condition],))
            self.feed(events.StorageChanged(self.journal.condition, announce=False), draw=False)
        for aside in self.journal.warnings:  # the journal has logged them
            if aside.kept:  # what still folds was kept: say how much
                kept = f"kept {aside.kept}/{aside.lines or '?'} lines"
                self.problems.append(("Saved game damaged", kept, "rest set aside"))
            else:
                self.problems.append(("Saved game damaged", "set aside, see log"))
        if self.parts.reader is not None:
            self._start_reader()
        if self.problems:  # every one of them, paged
            lines = tuple(line for problem in self.problems for line in problem)
            self.feed(events.ShowNotice(lines), draw=False)
        self.refresh()

    def _shelf_newer(self) -> None:
        """The games set aside are a newer release's file (left as it is): said at the start.
        (A newer journal says so itself, as the storage condition ``newer``.)"""
        if self.shelf.newer is not None and self.journal.newer is None:
            self.problems.append(formats.notice("Set-aside games"))

    def _start_reader(self) -> None:
        from companion.hal.readers.runner import Presence, ReaderRunner

        self.presence = Presence(self.config.reader.removal_seconds)
        self.runner = ReaderRunner(
            self.parts.reader,
            on_seen=lambda uid: self.loop.post(CardSeen(uid, self.clock.now())),
            on_status=lambda text: self.loop.post(ReaderStatus(text)),
        )
        self.runner.start()

    def _retire_ended(self) -> None:
        """Games that had ended when they were set aside (a box before ended games went to
        history/ unasked kept them waiting) go to history/ now, as an ended game does."""
        if self.shelf.checked:
            return
        ended = []
        for record in self.shelf.games.values():
            try:
                session = self._folded(
                    resumed(record.game, record.options, record.setup_rolls), record
                )
            except (BadAction, Rejected, KeyError, TypeError, ValueError):
                continue  # taking it up says what is wrong with it
            if session.rules.ended(session.state):
                ended.append(record)
        self.shelf.retire(ended)  # marked checked, so a start folds them only this once

    def _folded(
        self, session: Session, record: GameRecord, count: list[int] | None = None
    ) -> Session:
        """The record's game, set up as ``session``, at its last step; ``count`` (if given)
        counts the steps folded, for a game that cannot be folded to its end."""
        if record.checkpoint is not None:
            session = self._at_checkpoint(session, record)
        for step_ in from_journal(record.steps):
            session = session.folded(step_)
            if count is not None:
                count[0] += 1
        return session

    def _resume(self, record: GameRecord) -> None:
        session = None
        count = [0]
        try:
            session = resumed(record.game, record.options, record.setup_rolls)
            session = self._folded(session, record, count)
        except (BadAction, Rejected, KeyError, TypeError, ValueError) as err:
            why = f"cannot replay the saved {record.game} game: {err}"
            self.journal.close()
            if isinstance(err, CheckpointDamaged):  # damage, as a damaged line is
                self.journal.keep_game(str(err), replace(record, checkpoint=None), 0)
                self._resume(self.journal.open())
                return
            if session is not None:  # the game set up, up to the step refused
                self.journal.keep_game(why, record, count[0])
                self._resume(self.journal.open())
                return
            self.journal.move_aside(why)
            self.journal.open()
            self.open_game_menu()
            return
        session = replace(session, started_at=record.started_at, game_id=record.game_id)
        self.feed(events.Resumed(session), draw=False)
        actions = record.actions
        # Game time goes on from the last moment the journal holds (a clean stop's restore).
        moments = [Action.from_json(s.action).at if s.action else s.at for s in record.steps]
        base_at = record.checkpoint.at if record.checkpoint is not None else None
        last_at = max(at for at in (record.started_at, base_at, *moments) if at is not None)
        self.time_offset = max(self.time_offset, last_at - self.clock.now())
        before = record.checkpoint.steps if record.checkpoint is not None else 0
        log.info("resumed %s after %d actions", record.game, before + len(actions))

    def _at_checkpoint(self, session: Session, record: GameRecord) -> Session:
        """The new session at the record's checkpoint; CheckpointDamaged naming the file and
        the line when it is not a state of this game."""
        checkpoint = record.checkpoint
        try:
            return session.from_checkpoint(checkpoint)
        except CodecError as err:
            where = f"{self.journal.path}:{checkpoint.line}" if checkpoint.line else "checkpoint"
            raise CheckpointDamaged(
                f"{where}: a checkpoint that is not a state of {record.game} ({err})"
            ) from None
