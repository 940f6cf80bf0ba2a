"""The App as the interpreter of the box's step (step.py): each input becomes
``step(box, event, world)``; the new value is kept and the effects are performed in the order
that makes power cuts harmless: each journal entry appended and fsync'ed as it comes, then
sounds, lights, deadlines and log lines; then the frame, drawn from the value alone once every
effect is done, and published to the faces. An effect whose outcome the value needs is answered
with an event fed back at once (the journal's id of a new game, a result kept, an entry that
could not be written).

Inputs of the table, a face or a deadline come in through ``take``: a step that raises, or a
screen that cannot be drawn, never leaves the box unresponsive (the value goes back to one
that holds, a notice says so, the traceback is logged once, docs/architecture.md "A step or a
screen that fails"). ``feed`` is the raw step, for callers that want its errors (replay's
``do``, the phones' asks).

A game taken up is folded back by the start's own ``_resume`` (start.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from companion.app import events, view
from companion.app.boxstate import BoxState
from companion.app.dice_source import DiceSource
from companion.app.draft import FAILED_NOTICE, TOAST_SECONDS
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
    KeepPlay,
    KeepResult,
    LogLine,
    NameSeats,
    NewPairingCode,
    Note,
    Play,
    Refusal,
    SwapGame,
    Unwake,
    Wake,
)
from companion.app.play import as_record
from companion.app.step import World, step
from companion.core import storage
from companion.core.clock import Clock
from companion.core.codec import CodecError
from companion.core.journal import Journal
from companion.core.journal_lines import GameRecord
from companion.core.loop import Loop
from companion.core.records import Records
from companion.core.registry import Registry
from companion.core.shelf import Shelf, lines
from companion.core.storage import OK
from companion.faces.hub import Hub
from companion.faces.snapshot import Snapshot
from companion.games import registry as games
from companion.hal.lights import Led
from companion.hal.sound import Sound as Buzzer
from companion.ui import notice
from companion.ui.screen import RED, Lights, Screen

if TYPE_CHECKING:
    from companion.hal.display import Display

# One name for all the box's log lines.
log = logging.getLogger("companion.app")

REDRAW_SECONDS = 0.5  # a frame that could not be drawn (no file handle left) is drawn again
# Inputs failing one after another, none answered between them: the box is not well, and the
# daemon stops the watchdog's pings so that systemd starts it again (the journal keeps the game).
FAILURES_IN_A_ROW = 10
# The effects that write what the value must agree with: a failing step or screen never takes
# the value back past one of them (the journal's entries, a card enrolled).
KEPT = (*JOURNALED, EnrolCard)


class Interpreter:
    """What performs the step's effects and draws the frame; the App (box.py) is one, with
    its parts."""

    # made by App.__init__ (box.py)
    box: BoxState
    clock: Clock
    loop: Loop
    journal: Journal
    shelf: Shelf
    registry: Registry
    records: Records
    dice: DiceSource
    buzzer: Buzzer
    display: Display
    led: Led
    shown: tuple[Screen, Lights] | None
    draw_failed: bool
    on_refresh: list[Callable[[], None]]
    faces: Hub
    phones: Any
    today: Callable[[], str]
    time_offset: float
    recording: bool
    sounds: list[str]
    logs: list[str]
    rejected: str | None
    _feeding: int
    _swap_said: list[str] | None
    # what ``take`` and ``refresh`` keep to answer a failure (docs/architecture.md)
    writes: int  # effects performed that wrote what the value must agree with (KEPT)
    drawn: BoxState | None  # the last value that drew, and ``writes`` when it did
    drawn_writes: int
    failures: int  # failures so far, and in a row (none answered since)
    in_a_row: int
    _notice_up: BoxState | None  # the value the last failure's notice was put over
    _falling_back: bool  # drawing the value a failure went back to
    _resume: Callable[[GameRecord], None]  # start.py: a game folded back
    _keep_play: Callable[[KeepPlay], None]  # seating.py: a game's play kept
    _name_seats: Callable[[NameSeats], None]  # seating.py: seats named on the box
    _with_names: Callable[[tuple[Screen, Lights]], tuple[Screen, Lights]]  # seating.py

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
            players=getattr(self, "players", None),
            plays=getattr(self, "plays", None),
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
                if isinstance(effect, KEPT):
                    self.writes += 1
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

    def take(self, event: events.Event) -> None:
        """An input of the table, a face's or a deadline's: one step, and a failure answered
        instead of raised. The step raising (a bug in a handler: nothing of it performed, so
        nothing journaled) puts the value back as it was before the event; an effect raising
        after the journal took an entry of the step (``KEPT``) keeps the value the journal
        holds. Either way the notice says so and the traceback is logged once. A screen that
        cannot be drawn is answered by ``refresh``."""
        before, writes, failures = self.box, self.writes, self.failures
        try:
            self.feed(event)
        except Exception:
            log.exception("%r failed; the box is back where it was", event)
            if self.writes == writes:
                self.box = before
            self._answer_failure()
            return
        if self.failures == failures:
            self.in_a_row = 0  # an input answered: the box is well

    def answering(self) -> bool:
        """Whether the box answers its inputs (the watchdog's pings go on only while it does):
        not when FAILURES_IN_A_ROW inputs failed with none answered between them."""
        return self.in_a_row < FAILURES_IN_A_ROW

    def _answer_failure(self) -> None:
        """The value is back where it holds: count the failure, put the notice over it, draw."""
        self.failures += 1
        self.in_a_row += 1
        if self.in_a_row == FAILURES_IN_A_ROW:
            log.error(
                "%d inputs in a row failed: no more watchdog pings, so that the box is started "
                "again (the journal keeps the game)",
                self.in_a_row,
            )
        try:
            self.feed(events.Failed(), draw=False)
        except Exception:  # the step itself fails: the notice goes over the value as it is
            log.debug("the failure's notice made by hand", exc_info=True)
            title = self.box.session.rules.title if self.box.session else "Trap Companion"
            page = notice.pages(title, FAILED_NOTICE)[0]
            self.box = replace(self.box, toast=(page, Lights(RED)), toast_pages=())
        self._notice_up = self.box
        self._draw_notice()

    def _draw_notice(self) -> None:
        """Draw the value a failure went back to, under its notice."""
        self._falling_back = True
        try:
            self.refresh()
        finally:
            self._falling_back = False

    def _undrawable(self) -> None:
        """The value's screen (or the faces' snapshot of it) raised: the box goes back to the
        last value that drew if the journal took nothing since (``KEPT``); else it holds an
        action that value lacks, and the box keeps the game as the journal has it with nothing
        over it (no menu, question or cards held: what is never journaled), as a start would.
        Under the notice, like any value. The last value drawn failing as that notice goes
        (it drew only under the notice: the game's own screen cannot be drawn, a timer may
        tick on under it) keeps the notice up, neither logged nor counted again. ``take``
        sees the failure by ``failures``."""
        failed = self.box
        if self._falling_back:  # the notice itself cannot be drawn: the screen stays as it is
            log.error("the failure's notice could not be drawn either")
            return
        up, drawn = self._notice_up, self.drawn
        if (
            up is not None
            and drawn is not None
            and drawn.toast == up.toast
            and failed == replace(drawn, toast=None, toast_pages=())
        ):  # the last value drew only under the failure's notice, which just went
            self.box = drawn  # the notice stays over a value that cannot be drawn
            self.failures += 1  # not an answered input, not a new failure either
            self._draw_notice()  # (the OLED may have drawn it: only its snapshot raised)
            # and goes again in a moment, should play (a timer) have moved on to a screen
            self.loop.call_later(TOAST_SECONDS, lambda: self.take(events.NoticeTurned()), "toast")
            return
        log.exception("the screen could not be drawn; back to the last one that did")
        if self.drawn is not None and self.drawn_writes == self.writes:
            self.box = self.drawn
        else:
            self.box = bare(failed)
        self._answer_failure()

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
            self.loop.call_at(effect.due, lambda: self.take(event), effect.key)
        elif isinstance(effect, Unwake):
            if effect.prefix:
                self.loop.cancel_prefix(effect.key)
            else:
                self.loop.cancel(effect.key)
        elif isinstance(effect, EnrolCard):
            self.registry.enrol(effect.card)
        elif isinstance(effect, KeepResult):
            self._keep_result(effect)
        elif isinstance(effect, KeepPlay):
            self._keep_play(effect)  # app/seating.py
        elif isinstance(effect, NameSeats):
            self._name_seats(effect)  # app/seating.py
        elif isinstance(effect, DiceLeft):
            self.dice.take(effect.dice)
        elif isinstance(effect, NewPairingCode):
            self.phones.pairing.new_code()
            deadline = self.phones.pairing.code_deadline()
            if deadline is not None:  # the screen says so the moment the code runs out
                self.loop.call_at(deadline, lambda: self.take(events.Redraw()), "phones-code")
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
        else:  # no game after it: the answer to "Set aside?" done when given
            self._journal_swap(self.journal.end_game, None, waiting, effect)

    def _take_up(self, taken: GameRecord, waiting: dict[str, GameRecord]) -> None:
        """The journal swaps the waiting game in whole (the old journal goes to history/)."""
        entries = lines(taken)
        self._journal_swap(lambda: self.journal.take_up(entries, taken.game_id), taken, waiting)

    def _journal_swap(
        self,
        change: Callable[[], OSError | None],
        now: GameRecord | None,
        waiting: dict[str, GameRecord],
        made_way: SwapGame | None = None,
    ) -> None:
        """The journal changes its game to ``now`` (a game taken up; None: the game in play
        ``made_way`` set aside or ended, none after it). The storage refusing a step before
        the swap's moment: nothing changed (OSError, the box as it was); after it: the change
        stands and its notice says what the storage did (the journal's own change of
        condition is said with it, not on its own)."""
        self._swap_said = []
        try:
            try:
                unsaved = change()
            except OSError:
                self.shelf.drop_plan()  # the game in play is the old one still
                raise
            self._settle(now, waiting)
            if now is not None:
                self._resume(now)
        except BaseException:
            said, self._swap_said = self._swap_said, None
            if said:  # (the moves that waited written, say, before the swap was refused)
                self.storage_changed(said[-1])
            raise
        said, self._swap_said = self._swap_said, None
        condition = self.journal.condition
        if unsaved is not None and condition != OK:  # not finished since (a write does it)
            if made_way is None:
                done = ""
            else:
                name = made_way.in_play.game if made_way.in_play is not None else ""
                done = f"{games.short_title(name)} {'set aside' if made_way.keep else 'ended'}"
            self.feed(events.SwapUnsaved(condition, str(unsaved), done), draw=False)
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
        self.loop.call_later(0.0, lambda: self.take(event), "storage-notice")

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

    # --- the frame, drawn from the value alone once every effect is done ---------------------

    def current(self) -> tuple[Screen, Lights]:
        return self._with_names(view.current(self.box))  # seating.py

    def public_state(self) -> dict | None:
        return view.public_state(self.box)

    def refresh(self) -> None:
        """Draw the value: the OLED, the LED, the faces. A display that cannot take the frame
        now (OSError: no file handle left) is tried again (``_redraw_later``); a value whose
        screen or snapshot raises is answered (``_undrawable``)."""
        try:
            screen, lights = self._with_names(view.current(self.box))  # seating.py
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
        except Exception:
            self._undrawable()
            return
        self.drawn, self.drawn_writes = self.box, self.writes

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
        try:  # first: one that raises hands nothing over (``refresh`` answers it)
            state = self.public_state()
        except Exception:
            if not self._falling_back:
                raise
            state = None  # the failure's notice over a game whose public state cannot be made
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
            state=state,
            reader=self.box.reader_status,
            rejected=rejected,
            view=screen,
        )


def bare(box: BoxState) -> BoxState:
    """The value with nothing over its game: the game as the journal holds it, without what is
    never journaled (the menu, a question of play, the cards held for it, a notice)."""
    return BoxState(
        session=box.session,
        table_dice=box.table_dice,
        reader_status=box.reader_status,
        storage=box.storage,
    )
