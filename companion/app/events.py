"""What the box's step takes: every input to the box's flow, as a value. Dice and time do not
come in here: they come with the step's ``World`` (see step.py).

Inputs from the table (a press, a tap, the reader's word, a deadline) and commands from whoever
drives the box (replay, a face, the daemon), and the answers the box gets back from the effects
it asked for (a game's id from the journal, a result kept in the records)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.app.session import Session
from companion.core.values import value
from companion.games.base import Action
from companion.ui.forms import CardKind

# --- from the table ---------------------------------------------------------------------------


@value
class Pressed:
    """A debounced button press (``long``: held past the hold time)."""

    button: str
    long: bool = False
    remote: bool = False  # from a phone's remote: pairing stays on the box


@value
class Tapped:
    """A card put on the reader (its UID; the registry says what it is)."""

    uid: str


@value
class ReaderSaid:
    """The card reader's status line changed."""

    text: str


@value
class TimerFired:
    """A game's timer ran out (a turn's time, a claim's wait): its action is due."""

    action: Action
    journal: bool = True  # false: a tick the screen shows, never journaled


@value
class NoticeTurned:
    """A notice's moment is over: its next page, or the screen under it."""


@value
class Redraw:
    """Nothing changed but the screen should be drawn again (a pairing code ran out)."""


# --- from whoever drives the box ----------------------------------------------------------------


@value
class NewGame:
    """Start ``game`` with these options; BadAction (unknown game or option) propagates."""

    game: str
    options: Mapping[str, str]


@value
class Perform:
    """Replay's ``do``: an action, or the question the game opens for it."""

    action: Action


@value
class Submit:
    """An action submitted as it is (the bench, tests)."""

    action: Action


@value
class Refuse:
    """Say no, with this reason (replay's refused lines)."""

    reason: str


@value
class ShowNotice:
    """A notice from outside the box's flow (a face, start-up's problems)."""

    lines: tuple[str, ...]


@value
class OpenGameMenu:
    """The choice of game (no game saved, or a face asks for it)."""


@value
class OpenSessionMenu:
    """The game menu, as back opens it."""


@value
class EnrolCopies:
    """A face chose a kind to enrol copies of; PermissionError while a question is open."""

    kind: CardKind
    values: Mapping[str, int]
    source: str


@value
class PhoneCommand:
    """An entry of the phones' menus: pair_phone, new_code, forget_phones, forget_yes."""

    what: str


@value
class PhonesChanged:
    """From the phones' server: a phone paired (``paired``), the code went void, the port."""

    what: str


@value
class Resumed:
    """A saved game folded back from the journal at start-up."""

    session: Session


@value
class Stopping:
    """The box stops cleanly: a running timer pauses as it stands."""


# --- answers from the effects -------------------------------------------------------------------


@value
class GameJournaled:
    """The journal took the new game and named it."""

    game_id: str


@value
class ResultKept:
    """The records took a new result of the game being played: announce it."""

    result: Any  # companion.core.records.Result


@value
class RecordsFailed:
    """The records could not be written."""


@value
class PhonesForgotten:
    """The paired phones were forgotten (how many), or not at all: ``failed`` is the state
    dir's condition that refused it (full, read-only)."""

    count: int
    failed: str = ""


@value
class Failed:
    """A step raised, or its screen could not be drawn: the interpreter put back a value that
    holds (interpreter.py, ``take``); the box says so."""


@value
class StorageFailed:
    """A journal entry could not be written: the box was left as it was before the step (the
    error goes on to whoever fed the step). The seam where a lasting notice can go."""

    error: str


@value
class StorageChanged:
    """The state dir refuses writes (full, read-only, failing) or takes them again (``ok``):
    moves wait in the journal's memory meanwhile. ``announce`` false: only the title and
    STATUS say it (at start, where the start's own notice names it)."""

    condition: str
    announce: bool = True


@value
class EnrolFailed:
    """A card enrolment the state dir refused: the box was left as it was before the step."""

    uid: str
    condition: str
    error: str


@value
class SwapFailed:
    """A game could not be set aside or taken up (the state dir refused the move): the box was
    left as it was before the step, the game in play still in play. ``paused``: the moment
    the journal paused it at, as the move began (the game in play takes the pause too)."""

    condition: str
    error: str
    paused: float | None = None


@value
class SwapUnsaved:
    """A game was taken up (or, ``done``, the game in play set aside or ended with none
    after it), but the state dir refused a step after the moment the journal changed its game
    (an fsync, the last rename): the change stands, the journal finishes the move before its
    next write (a start does too), and moves wait in memory until then, as they do while the
    storage refuses them (``condition``)."""

    condition: str
    error: str
    done: str = ""  # e.g. "Trapwords set aside"; empty: the game in play was taken up


Event = (
    Pressed
    | Tapped
    | ReaderSaid
    | TimerFired
    | NoticeTurned
    | Redraw
    | NewGame
    | Perform
    | Submit
    | Refuse
    | ShowNotice
    | OpenGameMenu
    | OpenSessionMenu
    | EnrolCopies
    | PhoneCommand
    | PhonesChanged
    | Resumed
    | Stopping
    | GameJournaled
    | ResultKept
    | RecordsFailed
    | PhonesForgotten
    | Failed
    | StorageFailed
    | StorageChanged
    | EnrolFailed
    | SwapFailed
    | SwapUnsaved
)
