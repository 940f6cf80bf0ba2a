"""The box's flow as one pure function: ``step(box, event, world) -> (box, effects)``.

Every input goes through here (a press, a tap, the reader's word, a deadline, a face's or
replay's command, an effect's answer). The step reads the value it is given and what the world
lends it (``World``: the clocks' readings, the dice, the card list and the records, read only)
and returns a new value and the effects to perform, in order; it performs none itself. The App
(box.py) performs them: the journal first, the screen last.

Within one step the work is done on a ``Draft``, a working copy of the value that the
functions of play.py, menu_flow.py, cards.py and phones.py change; the draft becomes the new
value at the end and is thrown away. A step that raises (a replay line the rules cannot read)
leaves the value as it was.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from companion.app import cards, menu_flow, phones, play
from companion.app.boxstate import BoxState, thawed
from companion.app.dice_source import Dice
from companion.app.effects import DiceLeft, Effect, LogLine, Note, Play, Refusal, Unwake, Wake
from companion.app.events import (
    EnrolCopies,
    EnrolFailed,
    Event,
    GameJournaled,
    NewGame,
    NoticeTurned,
    OpenGameMenu,
    OpenSessionMenu,
    Perform,
    PhoneCommand,
    PhonesChanged,
    PhonesForgotten,
    Pressed,
    ReaderSaid,
    RecordsFailed,
    Redraw,
    Refuse,
    ResultKept,
    Resumed,
    ShowNotice,
    Stopping,
    StorageChanged,
    StorageFailed,
    Submit,
    SwapFailed,
    SwapUnsaved,
    Tapped,
    TimerFired,
)
from companion.app.session import restored
from companion.app.view import MENU_LIGHT, READER_DOWN
from companion.core import storage
from companion.core.journal import Step
from companion.core.records import Records
from companion.core.registry import Card, Registry
from companion.ui import notice
from companion.ui.screen import RED, RGB, Lights

TOAST_SECONDS = 2.5


@dataclass(frozen=True)
class World:
    """What one step may read but not change: the clocks' readings, the dice as they stand,
    the card list, the records and the phones' pairing."""

    now: float  # the loop's clock: deadlines are set on it
    game_time: float  # the clock as games see it, continuous across restarts
    today: str  # the date results are kept under
    dice: Dice
    registry: Registry
    records: Records
    phones: Any = None  # the phones' part when a phone face is on (see phones.py)
    waiting: tuple[str, ...] = ()  # the kinds of the games set aside (companion/core/shelf.py)


class Draft:
    """The value being made by one step, and the effects asked for so far."""

    def __init__(self, box: BoxState, world: World) -> None:
        self.world = world
        self.session = box.session
        self.menu = thawed(box.menu)
        self.play_form = self.menu if box.menu_of_play else None
        self.under_menu = box.under_menu
        self.held_taps: list[Card] = list(box.held_taps)
        self.toast, self.toast_pages = box.toast, box.toast_pages
        self.table_dice = box.table_dice
        self.ending = box.ending
        self.reader_status = box.reader_status
        self.storage = box.storage
        self.dice = world.dice
        self.remote = False  # the input came from a phone's remote (see phones.py)
        self.enrolled: dict[str, Card] = {}  # cards enrolled in this step, not yet in the list
        self.out: list[Effect] = []

    def finished(self) -> tuple[BoxState, tuple[Effect, ...]]:
        if self.dice != self.world.dice:
            self.out.append(DiceLeft(self.dice))
        box = BoxState(
            session=self.session,
            menu=self.menu,
            menu_of_play=self.menu is not None and self.menu is self.play_form,
            under_menu=self.under_menu,
            held_taps=tuple(self.held_taps),
            toast=self.toast,
            toast_pages=self.toast_pages,
            table_dice=self.table_dice,
            ending=self.ending and self.menu is not None,
            reader_status=self.reader_status,
            storage=self.storage,
        )
        return box, tuple(self.out)

    # --- what every part of the flow says ----------------------------------------------------

    def lookup(self, uid: str) -> Card | None:
        return self.enrolled.get(uid) or self.world.registry.lookup(uid)

    def note(self, text: str) -> None:
        self.out.append(Note(text))

    def play(self, cue: str) -> None:
        self.out.append(Play(cue))

    def log(self, level: int, text: str) -> None:
        self.out.append(LogLine(level, text))

    def wake(self, key: str, seconds: float, event: Event) -> None:
        self.out.append(Wake(key, self.world.now + seconds, event))

    def reject(self, reason: str) -> None:
        self.out.append(Refusal(reason))
        self.play("error")
        self.note(f"not allowed: {reason}")
        self.toast_up((reason,), RED, title="Not allowed")

    def toast_up(self, lines: tuple[str, ...], color: RGB = MENU_LIGHT, title: str = "") -> None:
        """A notice for a moment, a page at a time: all its words, none cut."""
        title = title or (self.session.rules.title if self.session else "Trap Companion")
        first, *rest = notice.pages(title, [line for line in lines if line])
        self.toast, self.toast_pages = (first, Lights(color)), tuple(rest)
        self.wake("toast", TOAST_SECONDS, NoticeTurned())

    def dismiss_toast(self) -> None:
        """Any input answers at once: an old notice must not cover the answer."""
        self.toast, self.toast_pages = None, ()
        self.out.append(Unwake("toast"))


def step(box: BoxState, event: Event, world: World) -> tuple[BoxState, tuple[Effect, ...]]:
    """The box after ``event``, and the effects to perform in order."""
    d = Draft(box, world)
    _take(d, event)
    return d.finished()


def _take(d: Draft, event: Event) -> None:
    if isinstance(event, Pressed):
        d.remote = event.remote
        if not phones.remote_refused(d):  # the box's pairing screens answer its own buttons
            menu_flow.on_press(d, event.button, event.long)
    elif isinstance(event, Tapped):
        cards.on_tap(d, event.uid)
    elif isinstance(event, ReaderSaid):
        _reader_said(d, event.text)
    elif isinstance(event, TimerFired):
        play.timer_fired(d, event.action, event.journal)
    elif isinstance(event, NoticeTurned):
        _toast_over(d)
    elif isinstance(event, Redraw):
        pass
    elif isinstance(event, NewGame):
        play.new_game(d, event.game, dict(event.options))
    elif isinstance(event, Perform):
        play.perform(d, event.action)
    elif isinstance(event, Submit):
        play.submit(d, event.action)
    elif isinstance(event, Refuse):
        d.reject(event.reason)
    elif isinstance(event, ShowNotice):
        d.toast_up(event.lines)
    elif isinstance(event, OpenGameMenu):
        menu_flow.open_game_menu(d)
    elif isinstance(event, OpenSessionMenu):
        menu_flow.open_session_menu(d)
    elif isinstance(event, EnrolCopies):
        cards.enrol_copies(d, event.kind, dict(event.values), event.source)
    elif isinstance(event, PhoneCommand):
        phones.phone_command(d, event.what)
    elif isinstance(event, PhonesChanged):
        phones.phones_changed(d, event.what)
    elif isinstance(event, PhonesForgotten):
        phones.forgotten(d, event.count, event.failed)
    elif isinstance(event, Resumed):
        play.resumed(d, event.session)
    elif isinstance(event, Stopping):
        if d.session is not None:
            play.restore(d, d.world.game_time)
    elif isinstance(event, GameJournaled):
        if d.session is not None:
            d.session = d.session.with_id(event.game_id)
    elif isinstance(event, ResultKept):
        play.result_kept(d, event.result)
    elif isinstance(event, RecordsFailed):
        d.toast_up(("Records not saved", "see log"), RED)
    elif isinstance(event, StorageFailed):
        d.log(logging.ERROR, f"journal not written: {event.error}")
    elif isinstance(event, StorageChanged):
        _storage_changed(d, event.condition, event.announce)
    elif isinstance(event, EnrolFailed):
        d.log(logging.ERROR, f"card {event.uid} not enrolled: {event.error}")
        d.play("error")
        d.toast_up((storage.TITLES[event.condition], "card not enrolled"), RED)
    elif isinstance(event, SwapFailed):
        if event.paused is not None and d.session is not None:
            _paused_as_journaled(d, event.paused)
        d.log(logging.ERROR, f"game not set aside or taken up: {event.error}")
        d.play("error")
        d.toast_up((storage.TITLES[event.condition], "the game in play", "stays in play"), RED)
    elif isinstance(event, SwapUnsaved):
        d.storage = event.condition
        d.log(logging.ERROR, f"game taken up; the card refused a step after it: {event.error}")
        d.play("error")
        title = d.session.rules.title if d.session is not None else "The game"
        d.toast_up((f"{title} taken up", storage.NOTICES[event.condition], "play goes on"), RED)


def _paused_as_journaled(d: Draft, at: float) -> None:
    """A move refused after the journal paused the game in play (``play._make_way``): the
    game takes that pause too, so that the journal folds back to this very state."""
    session = d.session
    state = restored(session.rules, session.state, at)
    if state != session.state:
        d.session = session.with_state(state).added(Step(None, at=at))


def _reader_said(d: Draft, text: str) -> None:
    was_down = d.reader_status.startswith(READER_DOWN)
    d.reader_status = text
    if not text.startswith(READER_DOWN):
        d.log(logging.INFO, text)
    elif was_down:
        d.log(logging.DEBUG, text)  # every retry: said once per outage
    else:
        d.log(logging.WARNING, f"card reader unavailable, games without cards play on: {text}")
        d.toast_up(("Card reader", "not answering", "retrying..."))


def _storage_changed(d: Draft, condition: str, announce: bool) -> None:
    """Moves wait in memory while the state dir refuses them (every screen's title says so,
    ``view.current``); once it takes them again, records refused meanwhile are synced."""
    d.storage = condition
    if not announce:
        return
    if condition == storage.OK:
        d.toast_up(("storage takes moves again", "all saved"))
        if d.session is not None:
            play.keep_result(d, announce=False)
    else:
        d.toast_up((storage.NOTICES[condition], "play goes on"), RED)


def _toast_over(d: Draft) -> None:
    if d.toast is not None and d.toast_pages:
        (page, *rest), lights = d.toast_pages, d.toast[1]
        d.toast, d.toast_pages = (page, lights), tuple(rest)
        d.wake("toast", TOAST_SECONDS, NoticeTurned())
    else:
        d.toast = None
