"""What the box's step asks the world to do, as values; the App performs them in order.

The step puts a journal entry before anything it affects is shown: the App appends and fsyncs
each ``Journal*`` as it comes and draws the screen only once every effect is done. An effect
whose outcome the box needs (the game's id, a result kept) is answered with an event (see
events.py), fed to the step at once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.app.dice_source import Dice
from companion.core.journal import Entry, GameRecord
from companion.core.registry import Card


@dataclass(frozen=True)
class JournalNewGame:
    game: str
    options: Mapping[str, Any]
    rolls: tuple[int, ...]
    at: float


@dataclass(frozen=True)
class JournalAction:
    action: Entry  # Action.to_json()
    auto: bool = False


@dataclass(frozen=True)
class JournalRestore:
    at: float | None = None


@dataclass(frozen=True)
class JournalUndo:
    pass


@dataclass(frozen=True)
class SwapGame:
    """The game in play makes way: set aside to wait (``keep``), or left to the journal's
    history (it ended, or no one played it), for a new game (``start``) or the waiting game of
    kind ``take``. One effect, because the order of its file moves is what makes a power cut
    harmless (companion/core/shelf.py). Answered with GameJournaled or Resumed."""

    in_play: GameRecord | None  # the game in play, as the journal folds it
    keep: bool
    start: JournalNewGame | None = None
    take: str | None = None


@dataclass(frozen=True)
class Note:
    """A line for replay's ``log``, the faces and journald."""

    text: str


@dataclass(frozen=True)
class LogLine:
    """A line for journald only."""

    level: int
    text: str


@dataclass(frozen=True)
class Play:
    """A buzzer cue (noted for replay's ``sounds`` and the faces)."""

    cue: str


@dataclass(frozen=True)
class Refusal:
    """What replay reports as ``rejected``."""

    reason: str


@dataclass(frozen=True)
class Wake:
    """Feed ``event`` at ``due`` (the loop's clock); a wake with the same key is replaced."""

    key: str
    due: float
    event: Any  # an Event


@dataclass(frozen=True)
class Unwake:
    """Forget the wake of ``key`` (every key starting with it when ``prefix``)."""

    key: str
    prefix: bool = False


@dataclass(frozen=True)
class EnrolCard:
    card: Card


@dataclass(frozen=True)
class KeepResult:
    """Make the records agree with the game's result (None: not finished)."""

    key: str
    game: str
    report: Mapping[str, Any] | None
    date: str
    announce: bool


@dataclass(frozen=True)
class DiceLeft:
    """The dice the step rolled from are used up to here."""

    dice: Dice


@dataclass(frozen=True)
class NewPairingCode:
    """Show a new pairing code (the screen redraws when it runs out)."""


@dataclass(frozen=True)
class EndPairingCode:
    """The pairing code's screen was left: the code is void."""


@dataclass(frozen=True)
class ForgetPhones:
    pass


Effect = (
    JournalNewGame
    | JournalAction
    | JournalRestore
    | JournalUndo
    | SwapGame
    | Note
    | LogLine
    | Play
    | Refusal
    | Wake
    | Unwake
    | EnrolCard
    | KeepResult
    | DiceLeft
    | NewPairingCode
    | EndPairingCode
    | ForgetPhones
)

# The effects that write the journal: the App puts the value back when one cannot be written.
JOURNALED = (JournalNewGame, JournalAction, JournalRestore, JournalUndo, SwapGame)
