"""The box's flow as the explorer drives it: a ``Table`` is one value of the box with what the
App would keep beside it (the virtual clock, the deadlines set, the dice left, the games set
aside, the cards enrolled, the records), and ``Table.after`` is one input a person gives (a
press, a hold, a tap, a wait until the next deadline) through the pure ``step``, with the
effects whose answers the value needs performed in memory, in the App's order
(companion/app/interpreter.py): the journal's id of a new game, a game set aside or taken up,
a result kept. No device, no file, no clock but this one.

The times follow replay's (companion/sim/box.py): a press takes 0.05 s, a hold 1.2 s (long at
the hold time), a tap 0.3 s; so the inputs that reach a value, written as replay lines, give
the same value there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.app import events
from companion.app.boxstate import BoxState
from companion.app.dice_source import Dice
from companion.app.effects import (
    DiceLeft,
    EnrolCard,
    ForgetPhones,
    JournalNewGame,
    KeepResult,
    SwapGame,
    Unwake,
    Wake,
)
from companion.app.session import Session, from_journal, resumed
from companion.app.step import World, step
from companion.core.journal_lines import GameRecord
from companion.core.records import Records, Result
from companion.core.registry import Card, Registry

PRESS_SECONDS = 0.05  # as companion/sim/box.py
HOLD_SECONDS = 1.2  # what the explorer's long press holds (replay's ``hold BUTTON 1.2``)
LONG_AT = 1.0  # the buttons' hold time (companion/core/config.py, buttons.hold_seconds)
TAP_SECONDS = 0.3
TODAY = "2000-01-01"  # replay's date (companion/replay.py)


@dataclass(frozen=True)
class Input:
    """One thing a person does: ``press``/``hold`` a button, ``tap`` a UID, ``wait`` for the
    next deadline; ``remote``: a paired phone's press."""

    verb: str
    what: str = ""
    remote: bool = False

    def line(self, seconds: float = 0.0) -> str:
        """The replay line for it (a wait says how long it waited)."""
        if self.verb == "hold":
            return f"hold {self.what} {HOLD_SECONDS}"
        if self.verb == "wait":
            return f"wait {seconds:.3f}"
        return f"{self.verb} {self.what}"


class MemoryRegistry(Registry):
    """The demo deck and the cards enrolled on this path of the walk; never a file."""

    def __init__(self, demo: dict[str, Card], cards: tuple[Card, ...] = ()) -> None:
        self.path = Path("explore-cards.toml")
        self.demo = demo
        self.cards = {c.uid: c for c in cards}
        self.newer = None
        self._mtime = None

    def lookup(self, uid: str) -> Card | None:
        return self.cards.get(uid) or self.demo.get(uid)

    def save(self) -> None:
        pass


class MemoryRecords(Records):
    """The results kept on this path of the walk; never a file."""

    def __init__(self, results: tuple[Result, ...] = ()) -> None:
        self.path = Path("explore-records.json")
        self.results = list(results)
        self.newer = None

    def _save(self) -> None:
        pass


class TablePhones:
    """A phone face that is on, with a pairing code always showing: the phones' entries of the
    game list and their screens, as a value (nothing to pair with)."""

    missing = ""

    class _Code:
        digits = "246810"

    class _Pairing:
        code: Any = None

        def code_status(self) -> tuple[str, float]:
            return "showing", 300.0

        def wrong_guesses(self) -> int:
            return 0

        def new_code(self) -> None:
            pass

        def end_code(self) -> None:
            pass

        def code_deadline(self) -> None:
            return None

        def forget_all(self) -> int:
            return 0

        def count(self) -> int:
            return 1  # one phone paired: "Forget phones" asks

    def __init__(self) -> None:
        self.pairing = self._Pairing()
        self.pairing.code = self._Code()

    def address(self) -> str:
        return "box.local:8765"

    def status(self) -> str:
        return "phones: explored"


@dataclass(frozen=True)
class Table:
    """One value of the box and what the App keeps beside it."""

    box: BoxState
    now: float
    dice: Dice
    wakes: tuple[tuple[str, float, Any], ...] = ()  # key, due, event: in the order set
    waiting: tuple[tuple[str, GameRecord], ...] = ()  # games set aside, by kind
    enrolled: tuple[Card, ...] = ()
    results: tuple[Result, ...] = ()
    games: int = 0  # games the journal named

    def next_due(self) -> float | None:
        return min((due for _, due, _ in self.wakes), default=None)

    def after(self, move: Input, lend: Lender) -> tuple[Table, float]:
        """The table after ``move`` (and the seconds a wait waited); what the step raises
        propagates."""
        t = self
        if move.verb == "wait":
            due = t.next_due()
            if due is None:
                return t, 0.0
            seconds = math.ceil((due - t.now) * 1000 - 1e-6) / 1000  # as a replay line says it
            seconds = max(seconds, 0.0)
            return t.until(t.now + seconds, lend), seconds
        if move.verb == "press":
            t = t.until(t.now + PRESS_SECONDS, lend)
            return t.fed(events.Pressed(move.what, False, move.remote), lend), 0.0
        if move.verb == "hold":
            end = t.now + HOLD_SECONDS
            t = t.until(t.now + LONG_AT, lend)
            t = t.fed(events.Pressed(move.what, True, move.remote), lend)
            return t.until(end, lend), 0.0
        if move.verb == "tap":
            t = t.fed(events.Tapped(move.what), lend)
            return t.until(t.now + TAP_SECONDS, lend), 0.0
        raise ValueError(f"unknown input {move.verb!r}")

    def until(self, moment: float, lend: Lender) -> Table:
        """The clock moved on to ``moment``: the deadlines due by then fired, in order."""
        t = self
        while True:
            due = t.next_due()
            if due is None or due > moment + 1e-9:
                return replace(t, now=moment)
            i = min(range(len(t.wakes)), key=lambda n: t.wakes[n][1])
            _, at, event = t.wakes[i]
            t = replace(t, now=max(t.now, at), wakes=t.wakes[:i] + t.wakes[i + 1 :])
            t = t.fed(event, lend)

    def fed(self, event: Any, lend: Lender) -> Table:
        """One step of the box, and the effects the App performs for it."""
        box, effects = step(self.box, event, lend.world(self))
        t = replace(self, box=box)
        for effect in effects:
            t = t._do(effect, lend)
        return t

    def _do(self, effect: Any, lend: Lender) -> Table:
        if isinstance(effect, Wake):
            kept = tuple(w for w in self.wakes if w[0] != effect.key)
            return replace(self, wakes=(*kept, (effect.key, effect.due, effect.event)))
        if isinstance(effect, Unwake):
            if effect.prefix:
                kept = tuple(w for w in self.wakes if not w[0].startswith(effect.key))
            else:
                kept = tuple(w for w in self.wakes if w[0] != effect.key)
            return replace(self, wakes=kept)
        if isinstance(effect, DiceLeft):
            return replace(self, dice=effect.dice)
        if isinstance(effect, JournalNewGame):
            t = replace(self, games=self.games + 1)
            return t.fed(events.GameJournaled(f"explore-{t.games}"), lend)
        if isinstance(effect, SwapGame):
            return self._swap(effect, lend)
        if isinstance(effect, EnrolCard):
            kept = tuple(c for c in self.enrolled if c.uid != effect.card.uid)
            return replace(self, enrolled=(*kept, effect.card))
        if isinstance(effect, KeepResult):
            records = MemoryRecords(self.results)
            added = records.sync(effect.key, effect.game, effect.report, effect.date)
            t = replace(self, results=tuple(records.results))
            if added is not None and effect.announce:
                t = t.fed(events.ResultKept(added), lend)
            return t
        if isinstance(effect, ForgetPhones):
            return self.fed(events.PhonesForgotten(0), lend)
        return self  # the journal's lines, sounds, log lines, the pairing code: nothing kept

    def _swap(self, effect: SwapGame, lend: Lender) -> Table:
        waiting = dict(self.waiting)
        taken = waiting.pop(effect.take) if effect.take else None
        if effect.keep and effect.in_play is not None:
            waiting.pop(effect.in_play.game, None)
            waiting[effect.in_play.game] = effect.in_play
        t = replace(self, waiting=tuple(waiting.items()))
        if effect.start is not None:
            t = replace(t, games=t.games + 1)
            return t.fed(events.GameJournaled(f"explore-{t.games}"), lend)
        if taken is not None:
            return t.fed(events.Resumed(folded(taken)), lend)
        return t


def folded(record: GameRecord) -> Session:
    """A game set aside, taken up as the start folds it back (companion/app/start.py)."""
    session = resumed(record.game, record.options, record.setup_rolls)
    if record.checkpoint is not None:
        session = session.from_checkpoint(record.checkpoint)
    for standing in from_journal(record.steps):
        session = session.folded(standing)
    return replace(session, started_at=record.started_at, game_id=record.game_id)


class Lender:
    """What every step of a walk may read (``World``), made from the table, and cached: the
    demo deck, the cards enrolled, the records, the phones."""

    def __init__(self, demo: dict[str, Card], phones: Any = None) -> None:
        self.demo = demo
        self.phones = phones
        # by the cards' and results' identities (a card holds a dict: it does not hash); the
        # registry made keeps them, so an identity is never reused for another
        self._registry: dict[tuple[int, ...], Registry] = {(): MemoryRegistry(demo)}
        self._records: dict[tuple[int, ...], Records] = {(): MemoryRecords()}

    def world(self, t: Table) -> World:
        cards, results = tuple(map(id, t.enrolled)), tuple(map(id, t.results))
        registry = self._registry.get(cards)
        if registry is None:
            registry = self._registry[cards] = MemoryRegistry(self.demo, t.enrolled)
        records = self._records.get(results)
        if records is None:
            records = self._records[results] = MemoryRecords(t.results)
        return World(
            now=t.now,
            game_time=round(t.now, 6),
            today=TODAY,
            dice=t.dice,
            registry=registry,
            records=records,
            phones=self.phones,
            waiting=tuple(kind for kind, _ in t.waiting),
        )
