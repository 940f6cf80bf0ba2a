"""What one step of the box works on: the ``World`` it may read (the clocks' readings, the
dice as they stand, the card list, the records, the phones' pairing) and the ``Draft``, a working
copy of the value that the step's handlers change (play.py, cards.py, box_menus.py,
menu_flow.py, phones.py), with what every one of them says: a log line, a sound, a deadline, a
refusal, a notice. The draft becomes the new value at the end of the step and is thrown away.

Nothing here calls a handler: the handlers import this, never the other way round.
"""

from __future__ import annotations

from typing import Any

from companion.app.boxstate import BoxState
from companion.app.dice_source import Dice
from companion.app.effects import DiceLeft, Effect, LogLine, Note, Play, Refusal, Unwake, Wake
from companion.app.events import Event, NoticeTurned
from companion.app.view import MENU_LIGHT
from companion.core.records import Records
from companion.core.registry import Card, Registry
from companion.core.values import frozen
from companion.ui import notice
from companion.ui.screen import RED, RGB, Lights

TOAST_SECONDS = 2.5
# What the box says when a step or its screen failed (interpreter.py: ``take``, ``refresh``):
# it went back to a value that holds, and nothing the journal took is lost.
FAILED_NOTICE = ("Something went wrong", "the game is safe")


@frozen
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
    players: Any = None  # the players' names and seats named (companion/core/players.py)
    plays: Any = None  # every finished game kept (companion/core/plays.py)


class Draft:
    """The value being made by one step, and the effects asked for so far."""

    def __init__(self, box: BoxState, world: World) -> None:
        self.world = world
        self.session = box.session
        self.menu = box.menu
        self.play_form = self.menu if box.menu_of_play else None
        self.under_menu = box.under_menu
        self.held_taps: list[Card] = list(box.held_taps)
        self.form_by_tap = box.form_by_tap
        self.toast, self.toast_pages = box.toast, box.toast_pages
        self.table_dice = box.table_dice
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
            form_by_tap=self.form_by_tap and self.play_form is not None,
            toast=self.toast,
            toast_pages=self.toast_pages,
            table_dice=self.table_dice,
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
