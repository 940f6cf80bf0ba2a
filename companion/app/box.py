"""The box: config, parts, the loop, the journal, the card list, the records and the value of
what the box is doing, wired together. The App is the interpreter of the box's step (step.py):
it turns each input into ``step(box, event, world)``, performs the effects in order, keeps the
new value, draws it and publishes it to the faces. It holds no other state about play.

Everything here runs on the loop's consumer thread. The order that makes power cuts harmless:
the step decides -> each journal entry appended and fsync'ed as it comes -> sounds, timers,
log lines -> the screen, drawn once every effect is done.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from companion.app import events, view
from companion.app.boxstate import BoxState
from companion.app.dice_source import DiceSource
from companion.app.effects import (
    JOURNALED,
    DiceLeft,
    EndPairingCode,
    EnrolCard,
    ForgetPhones,
    JournalAction,
    JournalNewGame,
    JournalRestore,
    JournalUndo,
    KeepResult,
    LogLine,
    NewPairingCode,
    Note,
    Play,
    Refusal,
    SwapGame,
    Unwake,
    Wake,
)
from companion.app.parts import Parts
from companion.app.play import as_record
from companion.app.session import Session, from_journal, resumed
from companion.app.step import World, step
from companion.core import formats, statefile, storage, wallclock
from companion.core.clock import Clock
from companion.core.codec import CodecError
from companion.core.config import Config
from companion.core.events import ButtonEdge, Call, CardSeen, ReaderStatus
from companion.core.events import Event as LoopEvent
from companion.core.journal import GameRecord, Journal
from companion.core.loop import Loop
from companion.core.records import RECORDS_FILE, Records
from companion.core.registry import Registry
from companion.core.shelf import Shelf, lines
from companion.core.storage import NOTICES, OK, StorageWatch
from companion.faces.hub import Hub
from companion.faces.snapshot import Snapshot
from companion.games import registry as games
from companion.games.base import Action, BadAction, Rejected
from companion.hal.buttons import ButtonPins, PressLogic
from companion.hal.lights import Led
from companion.hal.sound import Sound as Buzzer
from companion.ui.forms import CardKind
from companion.ui.screen import Lights, Screen

# One name for all the box's log lines.
log = logging.getLogger("companion.app")


def _unread(what: str, newer: formats.NewerFormat | None) -> tuple[str, ...]:
    """The start's notice of a file it could not use: set aside (damaged), or a newer
    release's, left as it is (issue 34: formats.py)."""
    return (
        formats.notice(what) if newer is not None else (f"{what} unreadable", "set aside, see log")
    )


class CheckpointDamaged(ValueError):
    """The journal's checkpoint of the game in play does not decode: damage, named by its line."""


REDRAW_SECONDS = 0.5  # a frame that could not be drawn (no file handle left) is drawn again


class App:
    def __init__(
        self,
        config: Config,
        clock: Clock,
        parts: Parts,
        rng: random.Random | None = None,
        recording: bool = False,
        today: Callable[[], str] | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.parts = parts
        self.loop = Loop(clock, self.handle)
        self.dice = DiceSource(rng or random.SystemRandom())
        self.display = parts.display
        cfg = config
        self.pins = ButtonPins(cfg.buttons.pins(), parts.factory, self.loop.post, clock)
        self.presses = PressLogic(
            self.on_press,
            self.loop.call_at,
            self.loop.cancel,
            cfg.buttons.hold_seconds,
            cfg.buttons.debounce_ms / 1000,
        )
        self.led = Led(cfg.led.red, cfg.led.green, cfg.led.blue, parts.factory, cfg.led.brightness)
        self.buzzer = Buzzer(
            cfg.buzzer.pin,
            parts.factory,
            cfg.buzzer.volume,
            self.loop.call_at,
            self.loop.cancel,
            clock.now,
        )
        state_dir = cfg.state_dir()
        self.journal = Journal(state_dir / statefile.JOURNAL.name)
        self.shelf = Shelf(state_dir)  # the games set aside, one of each kind at most
        # A full or read-only card: play goes on in memory, with a notice, until it takes the
        # moves again (retried on the loop's clock).
        self.storage = StorageWatch(
            self.journal, self.loop.call_later, self.loop.cancel, self.storage_changed
        )
        self.problems: list[tuple[str, ...]] = []  # shown once the box is up
        self._attach_games(state_dir)
        self.registry, registry_problem = Registry.open_or_set_aside(
            state_dir / statefile.CARDS.name
        )
        if registry_problem:
            self.problems.append(_unread("Card list", self.registry.newer))
        # Finished games' results, dated by the wall clock (replay passes its own, fixed one).
        self.today = today or wallclock.today  # "" until the clock is known to be right
        self.records, records_problem = Records.open_or_set_aside(state_dir / RECORDS_FILE)
        if records_problem:
            self.problems.append(_unread("Records", self.records.newer))
        reader = "no reader" if parts.reader is None else "reader starting"
        self.box = BoxState(table_dice=config.dice.source == "table", reader_status=reader)
        self.time_offset = 0.0
        self.runner: Any = None
        self.presence: Any = None
        # What replay reports per line, reset by whoever reads it.
        self.recording = recording  # only replay and the simulator read these; the daemon not
        self.sounds: list[str] = []
        self.logs: list[str] = []
        self.rejected: str | None = None
        self.shown: tuple[Screen, Lights] | None = None
        self.draw_failed = False  # the last frame could not be drawn: a "redraw" deadline is set
        self._feeding = 0  # steps being performed (one feeds another): the journal is bounded
        # once the outermost is done, never between an entry and the next
        self.on_refresh: list[Callable[[], None]] = []
        self.faces = Hub()  # the terminal, the web page, phones: each sees every refresh
        self.phones: Any = None  # the phones at the table, when a phone face is on (phones.py)
        self._swap_said: list[str] | None = None  # the storage's changes during a take-up

    # --- the value, as the rest of the tree reads it ------------------------------------------

    @property
    def session(self) -> Session | None:
        return self.box.session

    @property
    def menu(self) -> Any:
        return self.box.menu

    @property
    def toast(self) -> tuple[Screen, Lights] | None:
        return self.box.toast

    @property
    def reader_status(self) -> str:
        return self.box.reader_status

    # --- the interpreter ----------------------------------------------------------------------

    def world(self) -> World:
        return World(
            now=self.clock.now(),
            game_time=self.game_time(),
            today=self.today(),
            dice=self.dice.now(),
            registry=self.registry,
            records=self.records,
            phones=self.phones,
            waiting=tuple(self.shelf.games),
        )

    def feed(self, event: events.Event, draw: bool = True) -> None:
        """One step of the box: the new value kept, its effects performed in order, then the
        screen drawn (``draw`` false: the caller draws). What the step raises propagates and
        leaves the box as it was; a journal entry that cannot be written leaves it as it was
        too (StorageFailed is fed, then the error propagates)."""
        before = self.box
        self.box, effects = step(before, event, self.world())
        self._feeding += 1
        try:
            for effect in effects:
                self._do(effect)
        except OSError as err:
            self._feeding -= 1
            if isinstance(effect, EnrolCard):  # a full or read-only card: the box as it was
                self.box = before
                condition = storage.condition_of(err)
                self.feed(events.EnrolFailed(effect.card.uid, condition, str(err)), draw=draw)
                return
            if isinstance(effect, SwapGame):  # refused before the journal changed its game
                self.box = before
                condition = storage.condition_of(err)
                done = effects[: effects.index(effect)]
                paused = [e.at for e in done if isinstance(e, JournalRestore)]
                failed = events.SwapFailed(condition, str(err), paused[-1] if paused else None)
                self.feed(failed, draw=draw)
                return
            if not isinstance(effect, JOURNALED):
                raise
            self.box = before
            self.feed(events.StorageFailed(str(err)), draw=False)
            raise
        except BaseException:
            self._feeding -= 1
            raise
        self._feeding -= 1
        if not self._feeding:  # every effect of the outermost step done: the journal is whole
            self._bound_journal()
        if draw:
            self.refresh()

    def _bound_journal(self) -> None:
        """The journal's bound, kept as the game goes (before the screen changes): once the
        game in play has folded older steps into its base, or its lines piled up, the journal
        is replaced whole by its checkpoint and standing steps (core/journal.py ``compact``)."""
        session = self.box.session
        if session is None or not self.journal.compaction_due(session.folded_in):
            return
        try:
            record = as_record(session)
        except (CodecError, NameError, TypeError) as err:  # a state the codec cannot write
            log.error("journal not made shorter: the game's state has no checkpoint (%s)", err)
            self.journal.postpone_compaction()  # play goes on; the journal still holds it all
            return
        self.journal.compact(record)

    def _do(self, effect: Any) -> None:
        if isinstance(effect, JournalAction):
            self.journal.action(effect.action, auto=effect.auto)  # fsync before anything shows
        elif isinstance(effect, JournalRestore):
            self.journal.restore(effect.at)
        elif isinstance(effect, JournalUndo):
            self.journal.undo()
        elif isinstance(effect, JournalNewGame):
            game_id = self.journal.new_game(
                effect.game, dict(effect.options), effect.rolls, effect.at
            )
            self.feed(events.GameJournaled(game_id), draw=False)
        elif isinstance(effect, SwapGame):
            self._swap_game(effect)
        elif isinstance(effect, Note):
            self.note(effect.text)
        elif isinstance(effect, Play):
            self.play(effect.cue)
        elif isinstance(effect, LogLine):
            log.log(effect.level, "%s", effect.text)
        elif isinstance(effect, Refusal):
            self.rejected = effect.reason
        elif isinstance(effect, Wake):
            event = effect.event
            self.loop.call_at(effect.due, lambda: self.feed(event), effect.key)
        elif isinstance(effect, Unwake):
            if effect.prefix:
                self.loop.cancel_prefix(effect.key)
            else:
                self.loop.cancel(effect.key)
        elif isinstance(effect, EnrolCard):
            self.registry.enrol(effect.card)
        elif isinstance(effect, KeepResult):
            self._keep_result(effect)
        elif isinstance(effect, DiceLeft):
            self.dice.take(effect.dice)
        elif isinstance(effect, NewPairingCode):
            self.phones.pairing.new_code()
            deadline = self.phones.pairing.code_deadline()
            if deadline is not None:  # the screen says so the moment the code runs out
                self.loop.call_at(deadline, lambda: self.feed(events.Redraw()), "phones-code")
        elif isinstance(effect, EndPairingCode):
            self.phones.pairing.end_code()
        elif isinstance(effect, ForgetPhones):
            try:
                forgotten = events.PhonesForgotten(self.phones.pairing.forget_all())
            except OSError as err:  # not written: nothing forgotten (pairing.NotSaved)
                forgotten = events.PhonesForgotten(0, storage.condition_of(err))
            self.feed(forgotten, draw=False)

    def _swap_game(self, effect: SwapGame) -> None:
        """The shelf's three moves (companion/core/shelf.py): the waiting games as they will
        be, the journal's game changed (the moment it happens), the waiting file settled."""
        waiting = dict(self.shelf.games)
        taken = waiting.pop(effect.take) if effect.take else None
        if effect.keep and effect.in_play is not None:
            waiting.pop(effect.in_play.game, None)  # one of its kind waiting goes to history
            waiting[effect.in_play.game] = effect.in_play
        try:
            self.shelf.plan(waiting, effect.in_play)
        except OSError:
            self.shelf.drop_plan()  # a plan cut short by the storage plans nothing
            raise
        if effect.start is not None:
            start = effect.start
            game_id = self.journal.new_game(start.game, dict(start.options), start.rolls, start.at)
            now = GameRecord(start.game, dict(start.options), start.rolls, start.at, [], game_id)
            self._settle(now, waiting)
            self.feed(events.GameJournaled(game_id), draw=False)
        elif taken is not None:
            self._take_up(taken, waiting)

    def _take_up(self, taken: GameRecord, waiting: dict[str, GameRecord]) -> None:
        """The journal swaps the waiting game in whole (the old journal goes to history/). The
        storage refusing a step before the swap's moment: nothing changed (OSError, the box
        as it was); after it: the game is taken up and its notice says what the storage did
        (the journal's own change of condition is said with it, not on its own)."""
        self._swap_said = []
        try:
            try:
                unsaved = self.journal.take_up(lines(taken), taken.game_id)
            except OSError:
                self.shelf.drop_plan()  # the game in play is the old one still
                raise
            self._settle(taken, waiting)
            self._resume(taken)
        except BaseException:
            said, self._swap_said = self._swap_said, None
            if said:  # (the moves that waited written, say, before the swap was refused)
                self.storage_changed(said[-1])
            raise
        said, self._swap_said = self._swap_said, None
        condition = self.journal.condition
        if unsaved is not None and condition != OK:  # not finished since (a write does it)
            self.feed(events.SwapUnsaved(condition, str(unsaved)), draw=False)
        elif said and said[-1] != self.box.storage:
            self.storage_changed(said[-1])

    def _settle(self, in_play: GameRecord, waiting: dict[str, GameRecord]) -> None:
        """The journal has changed its game: the waiting file follows, or the next start
        settles it (the change has happened: it is never undone here)."""
        try:
            self.shelf.settle(in_play)
        except OSError as err:
            log.error("games set aside: the waiting file not settled (%s); at the next start", err)
            self.shelf.games = waiting

    def _keep_result(self, effect: KeepResult) -> None:
        try:
            added = self.records.sync(effect.key, effect.game, effect.report, effect.date)
        except OSError as err:
            log.error("records not saved: %s", err)
            self.feed(events.RecordsFailed(), draw=False)
            return
        if added is not None and effect.announce:
            self.feed(events.ResultKept(added), draw=False)

    def storage_changed(self, condition: str) -> None:
        """The journal's storage refused a write, or takes them again (the journal has said so
        in the log). Called inside the journal's write, mid-effect: the step takes it once the
        event at hand is done (a deadline now)."""
        if self._swap_said is not None:  # said with what the swap did (``_take_up``)
            self._swap_said.append(condition)
            return
        event = events.StorageChanged(condition)
        self.loop.call_later(0.0, lambda: self.feed(event), "storage-notice")

    def game_time(self) -> float:
        """The clock as games see it: continuous across restarts of the daemon."""
        return round(self.clock.now() + self.time_offset, 6)

    def play(self, cue: str) -> None:
        """Sound a cue, and note it for replay's ``sounds`` and the faces."""
        if self.recording or self.faces:
            self.sounds.append(cue)
        self.buzzer.play(cue)

    def note(self, text: str) -> None:
        """A line for replay's ``log`` and journald."""
        log.info("%s", text)
        if self.recording or self.faces:
            self.logs.append(text)

    # --- inputs, as the loop, replay and the faces give them ------------------------------------

    def handle(self, event: LoopEvent) -> None:
        if isinstance(event, ButtonEdge):
            self.presses.edge(event.button, event.pressed, event.t)
        elif isinstance(event, CardSeen):
            self._card_seen(event.uid, event.t)
        elif isinstance(event, ReaderStatus):
            self.feed(events.ReaderSaid(event.text))

    def _card_seen(self, uid: str, t: float) -> None:
        # The read's own time, not the handling time: a busy loop must not re-tap a resting card.
        for what, who in self.presence.seen(uid, t):
            if what == "tap":
                self.on_tap(who)
        deadline = self.presence.deadline()
        if deadline is not None:
            self.loop.call_at(deadline, self._presence_expire, "presence")

    def _presence_expire(self) -> None:
        for what, who in self.presence.expire(self.clock.now()):
            log.debug("card %s %s", who, what)

    def on_press(self, button: str, long: bool) -> None:
        self.feed(events.Pressed(button, long))

    def remote_press(self, button: str, long: bool) -> None:
        """A press from the phones' remote: as the box's own, but pairing stays on the box."""
        self.feed(events.Pressed(button, long, remote=True))

    def on_tap(self, uid: str) -> None:
        self.feed(events.Tapped(uid))

    def new_game(self, name: str, raw_options: dict[str, str]) -> None:
        """Start a game; BadAction (unknown game or option) propagates to the caller."""
        self.feed(events.NewGame(name, dict(raw_options)))

    def perform(self, action: Action) -> None:
        """Replay's ``do``; BadAction propagates (replay draws afterwards)."""
        self.feed(events.Perform(action), draw=False)

    def submit(self, action: Action) -> None:
        """An action as it is (the bench, tests); Rejected without a game."""
        if self.box.session is None:
            raise Rejected("no game is being played")
        self.feed(events.Submit(action), draw=False)

    def reject(self, reason: str) -> None:
        self.feed(events.Refuse(reason), draw=False)

    def notice(self, lines: tuple[str, ...]) -> None:
        """A notice from outside the app (a face: the phones' port, their file): loop thread."""
        self.feed(events.ShowNotice(tuple(lines)))

    def open_game_menu(self) -> None:
        self.feed(events.OpenGameMenu(), draw=False)

    def open_session_menu(self) -> None:
        self.feed(events.OpenSessionMenu(), draw=False)

    def enrol_copies(self, kind: CardKind, values: dict[str, int], source: str) -> None:
        """Open a run of copies of ``kind`` for a face that chose the kind itself (a phone).
        PermissionError while the box asks a question."""
        self.feed(events.EnrolCopies(kind, dict(values), source), draw=False)

    def phone_command(self, what: str) -> None:
        self.feed(events.PhoneCommand(what), draw=False)

    def phones_changed(self, what: str) -> None:
        """From the web server's thread: a phone paired, or the code went void."""
        self.loop.post(Call(lambda: self.feed(events.PhonesChanged(what))))

    # --- start and stop -----------------------------------------------------------------------

    def _attach_games(self, state_dir: Any) -> None:
        """Games that read the owner's own files (a card pack) read them from the state dir."""
        self.problems.extend(games.attach(state_dir))

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

    def workers_alive(self) -> bool:
        reader_ok = self.runner is None or self.runner.alive
        return reader_ok and self.pins.alive()

    def shutdown(self) -> None:
        """Stop cleanly: a running turn timer paused as the screen shows it now (ticks are not
        journaled, so only this line keeps its time), journal closed, LED off, a 'stopped'
        screen."""
        if self.runner is not None:
            self.runner.stop(timeout=1.0)
        if self.box.session is not None:
            try:
                self.feed(events.Stopping(), draw=False)
            except (OSError, RuntimeError) as err:  # a journal that cannot be written now
                log.error("turn timer not paused at the stop: %s", err)
        self.journal.close()
        self.buzzer.close()
        self.led.close()
        self.display.show(Screen("Trap Companion", ("Stopped",), footer=""))
        self.display.close(keep_picture=True)
        self.pins.close()

    # --- drawing and publishing ---------------------------------------------------------------

    def current(self) -> tuple[Screen, Lights]:
        return view.current(self.box)

    def public_state(self) -> dict | None:
        return view.public_state(self.box)

    def refresh(self) -> None:
        screen, lights = view.current(self.box)
        if self.shown is None or self.shown[0] != screen:
            try:
                self.display.show(screen)
            except OSError as err:  # the process out of file handles, say: never lose a frame
                self._redraw_later(err)
                return
        if self.draw_failed:
            self.draw_failed = False
            self.loop.cancel("redraw")
            log.info("the screen is drawn again")
        self.led.show(lights)
        self.shown = (screen, lights)
        for hook in self.on_refresh:
            hook()
        if self.faces:  # no face, no snapshot: the box alone pays nothing more
            self.faces.publish(self.snapshot)

    def _redraw_later(self, err: OSError) -> None:
        """The frame could not be drawn: draw it again on a deadline (the loop's clock) until
        it is, the same screen or whatever is current by then; the LED and the faces wait for
        it. Logged once per outage."""
        if not self.draw_failed:
            self.draw_failed = True
            log.warning("the screen could not be drawn (%s); trying again", err)
        self.loop.call_later(REDRAW_SECONDS, self.refresh, "redraw")

    def snapshot(self, seq: int) -> Snapshot:
        """What the box shows now, for the faces. The sounds, log lines and refusal since the
        last snapshot are handed over (and cleared): with faces, they are theirs."""
        screen, lights = self.shown if self.shown else self.current()
        session = self.box.session
        size, pixels = Snapshot.pack(self.display.image)
        sounds, logs, rejected = tuple(self.sounds), tuple(self.logs), self.rejected
        self.sounds.clear()
        self.logs.clear()
        self.rejected = None
        return Snapshot(
            seq=seq,
            t=self.clock.now(),
            game=session.name if session else None,
            title=session.rules.title if session else "Trap Companion",
            screen=tuple(screen.text_lines()),
            size=size,
            pixels=pixels,
            led=lights.shown(),
            pattern=lights.pattern,
            sounds=sounds,
            log=logs,
            state=self.public_state(),
            reader=self.box.reader_status,
            rejected=rejected,
            view=screen,
        )

    def status_line(self) -> str:
        session = self.box.session
        game = session.rules.title if session else "menu"
        reader = self.box.reader_status
        if reader.startswith(view.READER_DOWN):
            reader = f"{reader} (retrying)"
        line = f"{game}; {self.display.status}; {reader}"
        if self.phones is not None:
            line += f"; {self.phones.status()}"
        if self.box.storage != OK:
            line += f"; {NOTICES[self.box.storage]}"
        return line
