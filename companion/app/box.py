"""The box: config, parts, the loop, the journal, the card registry and the game, wired together.

Everything here runs on the loop's consumer thread. The order that makes power cuts harmless:
rules accept an action -> journal append + fsync -> effects (sound, timers) -> screen.
The App's behaviour is split by what it is about, one module each (see companion/app/__init__.py).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

from companion.app.actions import Actions
from companion.app.dice_source import DiceSource
from companion.app.enrolment import Enrolment
from companion.app.inputs import Inputs
from companion.app.menu_control import MenuControl
from companion.app.parts import Parts
from companion.app.phones import Phones
from companion.app.refresh import Refresh
from companion.app.session import Session, from_journal, restored
from companion.app.toasts import Toasts
from companion.core import statefile, wallclock
from companion.core.clock import Clock
from companion.core.config import Config
from companion.core.events import CardSeen, ReaderStatus
from companion.core.journal import GameRecord, Journal, Step
from companion.core.loop import Loop
from companion.core.records import RECORDS_FILE, Records
from companion.core.registry import Card, Registry, demo_uid
from companion.core.storage import NOTICES, OK, StorageWatch
from companion.faces.hub import Hub
from companion.games import registry as games
from companion.games.base import Action, BadAction, Rejected
from companion.hal.buttons import ButtonPins, PressLogic
from companion.hal.lights import Led
from companion.hal.sound import Sound as Buzzer
from companion.ui import menus
from companion.ui.screen import Lights, Screen

# One name for all the box's log lines, the same as before the App was split into pieces.
log = logging.getLogger("companion.app")


class App(Inputs, Actions, MenuControl, Enrolment, Toasts, Refresh, Phones):
    def __init__(
        self,
        config: Config,
        clock: Clock,
        parts: Parts,
        rng: random.Random | None = None,
        demo_cards: bool = False,
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
        # A full or read-only card: play goes on in memory, with a notice, until it takes the
        # moves again (retried on the loop's clock).
        self.storage = StorageWatch(
            self.journal, self.loop.call_later, self.loop.cancel, self.storage_changed
        )
        self.problems: list[tuple[str, ...]] = []  # shown once the box is up
        self._attach_games(state_dir)
        self.registry, registry_problem = Registry.open_or_set_aside(
            state_dir / statefile.CARDS.name, self._demo_cards() if demo_cards else ()
        )
        if registry_problem:
            self.problems.append(("Card list unreadable", "set aside, see log"))
        # Finished games' results, dated by the wall clock (replay passes its own, fixed one).
        self.today = today or wallclock.today  # "" until the clock is known to be right
        self.records, records_problem = Records.open_or_set_aside(state_dir / RECORDS_FILE)
        if records_problem:
            self.problems.append(("Records unreadable", "set aside, see log"))
        self.table_dice = config.dice.source == "table"
        self.session: Session | None = None
        self.menu: menus.Menu | None = None
        self.play_form: menus.Menu | None = None  # a game's form or pages a tap opened
        self.held_taps: list[Card] = []  # this game's cards tapped while that form was open
        # A menu that is a part of play (Walk.in_play) waiting under the box's own menu, with
        # the state it was opened on: it comes back when the box's menu closes on that state.
        self.under_menu: tuple[menus.Menu, Any] | None = None
        self.toast: tuple[Screen, Lights] | None = None  # a notice over the screen for a moment
        self.toast_pages: tuple[Screen, ...] = ()  # the notice's pages still to come
        self.time_offset = 0.0
        self.runner: Any = None
        self.presence: Any = None
        self.reader_status = "no reader" if parts.reader is None else "reader starting"
        # What replay reports per line, reset by whoever reads it.
        self.recording = recording  # only replay and the simulator read these; the daemon not
        self.sounds: list[str] = []
        self.logs: list[str] = []
        self.rejected: str | None = None
        self.shown: tuple[Screen, Lights] | None = None
        self.on_refresh: list[Callable[[], None]] = []
        self.faces = Hub()  # the terminal, the web page, phones: each sees every refresh
        self.phones: Any = None  # the phones at the table, when a phone face is on (phones.py)

    def _demo_cards(self) -> list[Card]:
        """Every catalog card gets a made-up UID, so the simulator and replay have a deck."""
        from companion.hal.readers.base import canonical_uid

        cards = []
        kind = self.parts.reader_kind if self.parts.reader_kind != "none" else "pn532"
        for name in games.available():
            for entry in games.get(name).catalog():
                uid = canonical_uid(demo_uid(name, entry.id), kind)
                cards.append(Card(uid, name, entry.id, entry.name))
        return cards

    def _attach_games(self, state_dir: Any) -> None:
        """Games that read the owner's own files (a card pack) read them from the state dir."""
        for name in games.available():
            attach = getattr(games.get(name), "attach", None)
            if attach is not None:
                problem = attach(state_dir)
                if problem:
                    self.problems.append(tuple(problem))

    def start(self) -> None:
        record = self.journal.open()
        if record is not None:
            self._resume(record)
        else:
            self.open_game_menu()
        if self.journal.condition != OK:  # said with the problems, not over them
            self.problems.append((NOTICES[self.journal.condition],))
        for aside in self.journal.warnings:  # the journal has logged them
            if aside.kept:  # what still folds was kept: say how much
                kept = f"kept {aside.kept}/{aside.lines or '?'} lines"
                self.problems.append(("Saved game damaged", kept, "rest set aside"))
            else:
                self.problems.append(("Saved game damaged", "set aside, see log"))
        if self.parts.reader is not None:
            self._start_reader()
        if self.problems:  # every one of them, paged
            self._toast(tuple(line for problem in self.problems for line in problem))
        self.refresh()

    def _start_reader(self) -> None:
        from companion.hal.readers.runner import Presence, ReaderRunner

        self.presence = Presence(self.config.reader.removal_seconds)
        self.runner = ReaderRunner(
            self.parts.reader,
            on_seen=lambda uid: self.loop.post(CardSeen(uid, self.clock.now())),
            on_status=lambda text: self.loop.post(ReaderStatus(text)),
        )
        self.runner.start()

    def _resume(self, record: GameRecord) -> None:
        session = None
        try:
            session = self._build(record.game, record.options, record.setup_rolls)
            session.rebuild(from_journal(record.steps))
        except (BadAction, Rejected, KeyError, TypeError, ValueError) as err:
            why = f"cannot replay the saved {record.game} game: {err}"
            self.journal.close()
            if session is not None:  # the game set up, up to the step refused
                self.journal.keep_game(why, record, len(session.steps))
                self._resume(self.journal.open())
                return
            self.journal.move_aside(why)
            self.journal.open()
            self.open_game_menu()
            return
        session.started_at, session.game_id = record.started_at, record.game_id
        self.session = session
        self._restore()
        self.ask_next()  # the question the game was asking when the power went
        self.keep_result(announce=False)  # a cut between the journal and the records
        actions = record.actions
        # Game time goes on from the last moment the journal holds (a clean stop's restore).
        moments = [Action.from_json(s.action).at if s.action else s.at for s in record.steps]
        last_at = max([record.started_at, *(at for at in moments if at is not None)])
        self.time_offset = max(0.0, last_at - self.clock.now())
        log.info("resumed %s after %d actions", record.game, len(actions))

    def _restore(self, at: float | None = None) -> None:
        """Pause what a power cut or an undo (at ``at``) interrupted, and say so in the journal,
        so that folding the journal later gives this very state (not the unpaused one)."""
        session = self.session
        state = restored(session.rules, session.state, at)
        if state != session.state:
            self.journal.restore(at)
            session.state = state
            session.add(Step(None, at=at))

    def workers_alive(self) -> bool:
        reader_ok = self.runner is None or self.runner.alive
        return reader_ok and self.pins.alive()

    def shutdown(self) -> None:
        """Stop cleanly: a running turn timer paused as the screen shows it now (ticks are not
        journaled, so only this line keeps its time), journal closed, LED off, a 'stopped'
        screen."""
        if self.runner is not None:
            self.runner.stop(timeout=1.0)
        if self.session is not None:
            try:
                self._restore(self.game_time())
            except (OSError, RuntimeError) as err:  # a journal that cannot be written now
                log.error("turn timer not paused at the stop: %s", err)
        self.journal.close()
        self.buzzer.close()
        self.led.close()
        self.display.show(Screen("Trap Companion", ("Stopped",), footer=""))
        self.display.close(keep_picture=True)
        self.pins.close()
