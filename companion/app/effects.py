"""What the box's step asks the world to do, as values; the App performs them in order.

The step puts a journal entry before anything it affects is shown: the App appends and fsyncs
each ``Journal*`` as it comes and draws the screen only once every effect is done. An effect
whose outcome the box needs (the game's id, a result kept) is answered with an event (see
events.py), fed to the step at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.app.dice_source import Dice
from companion.core.journal_lines import Entry, GameRecord
from companion.core.registry import Card
from companion.core.values import value


@value
class JournalNewGame:
    game: str
    options: Mapping[str, Any]
    rolls: tuple[int, ...]
    at: float


@value
class JournalAction:
    action: Entry  # Action.to_json()
    auto: bool = False


@value
class JournalRestore:
    at: float | None = None


@value
class JournalUndo:
    pass


@value
class SwapGame:
    """The game in play makes way: set aside to wait (``keep``), or left to the journal's
    history (it ended, or no one played it), for a new game (``start``) or the waiting game of
    kind ``take``, or for none (neither: the table answered "Set aside?" and no game is in play
    until the next starts). One effect, because the order of its file moves is what makes a
    power cut harmless (companion/core/shelf.py). Answered with GameJournaled or Resumed."""

    in_play: GameRecord | None  # the game in play, as the journal folds it
    keep: bool
    start: JournalNewGame | None = None
    take: str | None = None


@value
class Note:
    """A line for replay's ``log``, the faces and journald."""

    text: str


@value
class LogLine:
    """A line for journald only."""

    level: int
    text: str


@value
class Play:
    """A buzzer cue (noted for replay's ``sounds`` and the faces)."""

    cue: str


@value
class Refusal:
    """What replay reports as ``rejected``."""

    reason: str


@value
class Wake:
    """Feed ``event`` at ``due`` (the loop's clock); a wake with the same key is replaced."""

    key: str
    due: float
    event: Any  # an Event


@value
class Unwake:
    """Forget the wake of ``key`` (every key starting with it when ``prefix``)."""

    key: str
    prefix: bool = False


@value
class EnrolCard:
    card: Card


@value
class KeepResult:
    """Make the records agree with the game's result (None: not finished)."""

    key: str
    game: str
    report: Mapping[str, Any] | None
    date: str
    announce: bool


@value
class KeepPlay:
    """Make the plays agree with the game (issue 48: app/playkeep.py): its play, or None
    while it is not finished; ``seats`` the named seats' count, ``seconds`` its length so far."""

    key: str
    game: str
    options: Mapping[str, Any]
    report: Mapping[str, Any] | None
    seats: int
    date: str
    seconds: float


@value
class NameSeats:
    """Name the seats of the game ``key`` (issue 48: app/seat_menus.py), seat order."""

    key: str
    names: tuple[str | None, ...]


@value
class DiceLeft:
    """The dice the step rolled from are used up to here."""

    dice: Dice


@value
class NewPairingCode:
    """Show a new pairing code (the screen redraws when it runs out)."""


@value
class EndPairingCode:
    """The pairing code's screen was left: the code is void."""


@value
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
    | KeepPlay
    | NameSeats
    | DiceLeft
    | NewPairingCode
    | EndPairingCode
    | ForgetPhones
)

# The effects that write the journal: the App puts the value back when one cannot be written.
JOURNALED = (JournalNewGame, JournalAction, JournalRestore, JournalUndo, SwapGame)
