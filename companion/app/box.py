"""The box: config, parts, the loop, the journal, the card list, the records and the value of
what the box is doing, wired together, with the inputs as the loop, replay and the faces give
them, and the clean stop. The App holds no other state about play. It is the interpreter of the
box's step (interpreter.py: the effects performed in order, the journal first, the frame last)
and the box's start and resume (start.py).

Everything here runs on the loop's consumer thread.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

from companion.app import events, view
from companion.app.boxstate import BoxState
from companion.app.dice_source import DiceSource
from companion.app.interpreter import Interpreter
from companion.app.parts import Parts
from companion.app.seating import Seating
from companion.app.session import Session
from companion.app.start import Start
from companion.core import formats, statefile, wallclock
from companion.core.clock import Clock
from companion.core.config import Config
from companion.core.events import ButtonEdge, Call, CardSeen, ReaderStatus
from companion.core.events import Event as LoopEvent
from companion.core.journal import Journal
from companion.core.loop import Loop
from companion.core.players import Players
from companion.core.plays import Plays
from companion.core.records import RECORDS_FILE, Records
from companion.core.registry import Registry
from companion.core.shelf import Shelf
from companion.core.storage import NOTICES, OK, StorageWatch
from companion.faces.hub import Hub
from companion.games import registry as games
from companion.games.base import Action, Rejected
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


class App(Interpreter, Start, Seating):
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
        self._update_notice(state_dir)
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
        # Every finished game as a play, and the players' names (issue 48: seating.py).
        self.plays, plays_problem = Plays.open_or_set_aside(state_dir / statefile.PLAYS.name)
        if plays_problem:
            self.problems.append(_unread("Plays", self.plays.newer))
        self.players, players_problem = Players.open_or_set_aside(
            state_dir / statefile.PLAYERS.name
        )
        if players_problem:
            self.problems.append(_unread("Players", self.players.newer))
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
        self.plays_added: list[dict[str, Any]] = []  # plays kept since the last line
        self.shown: tuple[Screen, Lights] | None = None
        self.draw_failed = False  # the last frame could not be drawn: a "redraw" deadline is set
        self._feeding = 0  # steps being performed (one feeds another): the journal is bounded
        # once the outermost is done, never between an entry and the next
        self.on_refresh: list[Callable[[], None]] = []
        self.faces = Hub()  # the terminal, the web page, phones: each sees every refresh
        self.phones: Any = None  # the phones at the table, when a phone face is on (phones.py)
        self._swap_said: list[str] | None = None  # the storage's changes during a take-up
        # A failing step or screen (interpreter.py: ``take``): where the box goes back to
        self.writes = 0
        self.drawn: BoxState | None = None
        self.drawn_writes = 0
        self.failures = self.in_a_row = 0
        self._notice_up: BoxState | None = None
        self._falling_back = False

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

    # --- inputs, as the loop, replay and the faces give them ------------------------------------
    # The table's inputs, a face's and the deadlines' go through ``take``: a failure is answered
    # on the box (interpreter.py). Commands whose errors their caller answers (replay's ``do``,
    # a phone's ask) go through ``feed`` and raise.

    def handle(self, event: LoopEvent) -> None:
        if isinstance(event, ButtonEdge):
            self.presses.edge(event.button, event.pressed, event.t)
        elif isinstance(event, CardSeen):
            self._card_seen(event.uid, event.t)
        elif isinstance(event, ReaderStatus):
            self.take(events.ReaderSaid(event.text))

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
        self.take(events.Pressed(button, long))

    def remote_press(self, button: str, long: bool) -> None:
        """A press from the phones' remote: as the box's own, but pairing stays on the box."""
        self.take(events.Pressed(button, long, remote=True))

    def on_tap(self, uid: str) -> None:
        self.take(events.Tapped(uid))

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
        self.take(events.ShowNotice(tuple(lines)))

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
        self.loop.post(Call(lambda: self.take(events.PhonesChanged(what))))

    # --- start and stop -----------------------------------------------------------------------

    def _update_notice(self, state_dir: Any) -> None:
        """An update that failed and went back says so once (companion/release/notice.py)."""
        from companion.core import update_notice

        self.problems.extend(update_notice.take(state_dir))

    def _attach_games(self, state_dir: Any) -> None:
        """Games that read the owner's own files (a card pack) read them from the state dir."""
        self.problems.extend(games.attach(state_dir))

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
