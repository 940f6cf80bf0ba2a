"""The box's flow as one pure function: ``step(box, event, world) -> (box, effects)``.

Every input goes through here (a press, a tap, the reader's word, a deadline, a face's or
replay's command, an effect's answer). The step reads the value it is given and what the world
lends it (``World``: the clocks' readings, the dice, the card list and the records, read only)
and returns a new value and the effects to perform, in order; it performs none itself. The App
performs them (interpreter.py): the journal first, the screen last.

Within one step the work is done on a ``Draft`` (draft.py), a working copy of the value that
the handlers change: step.py hands each kind of event to one of them (menu_flow.py for a press,
cards.py for a tap, phones.py, box_menus.py, play.py) and the draft becomes the new value at the
end. The imports run one way (step -> menu_flow -> phones -> box_menus, cards -> play ->
draft): no handler calls one above it, and the one loop of play (an action, the question it
brings, the answer that is an action again) stays whole in play.py. A step that raises (a replay
line the rules cannot read) leaves the value as it was.
"""

from __future__ import annotations

import logging

from companion.app import box_menus, cards, menu_flow, phones, play
from companion.app.boxstate import BoxState
from companion.app.draft import FAILED_NOTICE, TOAST_SECONDS, Draft, World
from companion.app.effects import Effect
from companion.app.events import (
    EnrolCopies,
    EnrolFailed,
    Event,
    Failed,
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
from companion.app.view import READER_DOWN
from companion.core import storage
from companion.core.journal_lines import Step
from companion.ui.screen import RED

__all__ = ["TOAST_SECONDS", "World", "step"]  # what the package names (companion/app/__init__.py)


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
        box_menus.open_game_menu(d)
    elif isinstance(event, OpenSessionMenu):
        box_menus.open_session_menu(d)
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
    elif isinstance(event, Failed):
        d.play("error")
        d.toast_up(FAILED_NOTICE, RED)
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
        # none in play: a take-up from the list refused (the game still waits)
        said = ("the game in play", "stays in play") if d.session else ("not taken up", "it waits")
        d.toast_up((storage.TITLES[event.condition], *said), RED)
    elif isinstance(event, SwapUnsaved):
        d.storage = event.condition
        title = d.session.rules.title if d.session is not None else "The game"
        done = event.done or f"{title} taken up"
        d.log(logging.ERROR, f"{done}; the card refused a step after it: {event.error}")
        d.play("error")
        after = () if event.done else ("play goes on",)  # none in play after a set-aside
        d.toast_up((done, storage.NOTICES[event.condition], *after), RED)


def _paused_as_journaled(d: Draft, at: float) -> None:
    """A move refused after the journal paused the game in play (``play._make_way``): the
    game takes that pause too, so that the journal folds back to this very state."""
    session = d.session
    state = restored(session.rules, session.state, at)
    if state != session.state:
        d.session = session.took(Step(None, at=at), (), state)


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
