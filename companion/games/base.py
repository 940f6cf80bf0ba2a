"""The game protocol: pure rules that the app drives.

A game never reads a clock, a die or a device. Time arrives as ``Action.at`` (the app's monotonic
clock when the action was accepted) and dice as ``Action.rolls`` (rolled by the app before
``apply``, as ``dice_for`` asked). So folding the journal's actions always rebuilds the same
state, and undo is "fold all but the last".
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any

from companion.core.values import value
from companion.ui.forms import (
    Ask,
    CardKind,
    DieLabel,
    Field,
    Form,
    Option,
    Pages,
    Scalar,
    Showing,
    Walk,
)
from companion.ui.screen import Lights, Screen

# The menu kit's value types are ui's (companion/ui/forms.py): named here too, so a game takes
# everything of the protocol from this one module.
__all__ = [
    "Action",
    "Ask",
    "BadAction",
    "Cancel",
    "CardKind",
    "DieLabel",
    "Effect",
    "Field",
    "Form",
    "Game",
    "Input",
    "Log",
    "Option",
    "Outcome",
    "Pages",
    "Press",
    "Rejected",
    "Reply",
    "Scalar",
    "Schedule",
    "Showing",
    "Sound",
    "Tap",
    "Walk",
    "check_arguments",
    "decimal_number",
    "whole_number",
]


_WHOLE = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")


def whole_number(text: str) -> int | None:
    """A whole number as a script or an option writes it, else None. Only ASCII digits:
    ``int()`` would also take '٣' (an Arabic-Indic 3), ' 3', '+3' or '3_0'."""
    return int(text) if _WHOLE.fullmatch(text) else None


def decimal_number(text: str) -> float | None:
    """A number of seconds as a script or an option writes it (``12``, ``0.5``), else None.
    ``float()`` would also take '٣', '1e3', 'inf' or 'nan'."""
    return float(text) if _DECIMAL.fullmatch(text) else None


class BadAction(ValueError):
    """The action cannot be understood (unknown name, missing or malformed argument).

    Replay treats this as a script error (exit 2); the app logs it and ignores the input.
    """


class Rejected(Exception):
    """The rules do not allow this action now. The state is unchanged; the reason is shown."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@value
class Action:
    """One player intention. ``args`` are JSON scalars; ``rolls`` are the die faces it needs."""

    name: str
    args: Mapping[str, Scalar] = field(default_factory=dict)
    rolls: tuple[int, ...] = ()
    at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.args:
            out["args"] = dict(self.args)
        if self.rolls:
            out["rolls"] = list(self.rolls)
        out["at"] = round(self.at, 6)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        return cls(
            name=str(data["name"]),
            args=dict(data.get("args", {})),
            rolls=tuple(int(r) for r in data.get("rolls", ())),
            at=float(data.get("at", 0.0)),
        )

    def arg(self, key: str, default: Scalar | None = None) -> Scalar:
        if key in self.args:
            return self.args[key]
        if default is None:
            raise BadAction(f"action '{self.name}' needs {key}=...")
        return default

    def int_arg(self, key: str, lo: int, hi: int, default: int | None = None) -> int:
        raw = self.arg(key, default)
        value = whole_number(raw) if isinstance(raw, str) else raw
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise BadAction(f"{key}={raw!r} is not a whole number")
        value = int(value)
        if not lo <= value <= hi:
            raise BadAction(f"{key}={value} is outside {lo}..{hi}")
        return value

    def choice_arg(self, key: str, choices: Sequence[str], default: str | None = None) -> str:
        value = str(self.arg(key, default))
        if value not in choices:
            raise BadAction(f"{key}={value!r} is not one of {', '.join(choices)}")
        return value


def check_arguments(game: str, action: Action, accepted: Mapping[str, Sequence[str]]) -> None:
    """Refuse, as malformed, an action the game does not have or an argument it does not
    take: a typo (``amout=3``) must stop a script, not quietly mean the default."""
    if action.name not in accepted:
        raise BadAction(f"{game} has no action {action.name!r} (known: {', '.join(accepted)})")
    known = accepted[action.name]
    extra = sorted(set(action.args) - set(known))
    if extra:
        takes = f"it takes {', '.join(known)}" if known else "it takes no arguments"
        raise BadAction(f"'{action.name}' has no argument {extra[0]!r} ({takes})")


# --- effects: what a rule asks the outside world to do -------------------------------------


@value
class Log:
    """A human-readable line for the replay log and journald ("AI moves 4: 30 -> 26")."""

    text: str


@value
class Sound:
    """A named sound cue (see companion/hal/sound.py for the names)."""

    cue: str


@value
class Schedule:
    """Apply ``action`` after ``seconds``; replaces an earlier schedule with the same key.

    The app turns it into a deadline on its clock and, when it comes, applies the action
    (stamped with ``at``) like any other. Used for turn timers and their ticks. With ``journal``
    false the action only refreshes the screen (a timer's tick): it is applied but never
    journaled, so it must change nothing a fold of the journal would need.
    """

    key: str
    seconds: float
    action: Action
    journal: bool = True


@value
class Cancel:
    """Drop the schedule with this key, if any."""

    key: str


Effect = Log | Sound | Schedule | Cancel


@value
class Outcome:
    state: Any
    effects: tuple[Effect, ...] = ()


# --- input events the control map sees --------------------------------------------------------


@value
class Press:
    """A debounced button press: ``long`` when held past the hold time."""

    button: str  # up, down, ok, green, red (back belongs to the app's menu and undo)
    long: bool = False


@value
class Tap:
    """A card presented to the reader, resolved against the registry (``card`` None: unknown)."""

    uid: str
    card: Mapping[str, Any] | None  # {"game", "card", "name", ...fields}


Input = Press | Tap


Reply = Action | Ask | Pages | None


class Game(ABC):
    """What a game provides, declared once: the hooks every game has, and the optional ones
    with what a game that leaves them out gets. A game is an object of a subclass (the app
    looks nothing up by name)."""

    name: str  # replay name, e.g. "trap-attack"
    title: str  # shown on screen, e.g. "Trap Attack"
    options: tuple[Option, ...] = ()
    uses_dice: bool = True  # False: the game never rolls, its menu offers no dice source

    @abstractmethod
    def check_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        """Parse and validate options (defaults filled in); raise BadAction naming the bad one."""

    def setup_dice(self, options: Mapping[str, Any]) -> tuple[int, ...]:
        """Faces of the dice ``initial`` needs (e.g. a random monster); usually ()."""
        return ()

    @abstractmethod
    def initial(self, options: Mapping[str, Any], rolls: tuple[int, ...]) -> Outcome:
        """The state of a new game, with any opening effects."""

    @abstractmethod
    def dice_for(self, state: Any, action: Action) -> tuple[int, ...]:
        """Faces of the dice ``action`` needs in this state, in roll order (``(4, 6)`` = d4, d6).

        Raise BadAction for an action this game does not know.
        """

    @abstractmethod
    def apply(self, state: Any, action: Action) -> Outcome:
        """The rules. Raise Rejected (rule refusal) or BadAction (malformed)."""

    @abstractmethod
    def public(self, state: Any) -> dict[str, Any]:
        """The replay contract's ``state`` object (JSON-safe)."""

    @abstractmethod
    def view(self, state: Any) -> tuple[Screen, Lights]:
        """What the OLED and the LED show now."""

    @abstractmethod
    def control(self, state: Any, event: Input) -> Reply:
        """The control map: a button or card event to an action, a menu (Ask) or pages to show
        (Pages), or None to ignore it."""

    @abstractmethod
    def restore(self, state: Any) -> Any:
        """The state after a power cut (e.g. a running timer comes back paused)."""

    def catalog(self) -> tuple[CardKind, ...]:
        """Cards of this game that can be enrolled."""
        return ()

    # --- optional: a game that has nothing to say here keeps these -----------------------------

    def restore_at(self, state: Any, at: float) -> Any:
        """As ``restore``, for play stopped at game time ``at`` rather than at the last
        journaled action (an undo: the moment of the action taken back). Games whose timers
        tick without journaling need it."""
        return self.restore(state)

    def dice_labels(self, state: Any, action: Action) -> tuple[DieLabel, ...]:
        """One per die of ``dice_for``, to name the dice when the table rolls its own."""
        return ()

    def before_older_step(self, state: Any, action: Action) -> Any:
        """The state a journal's step is folded onto. A journal written by an older box may
        hold a step where this box's rules now ask something first (Trap Attack's roll for who
        starts): the game answers it as the older box did. Only the fold calls it; play
        never reaches such a state with such a step."""
        return state

    def result(self, state: Any) -> dict[str, Any] | None:
        """A finished game's result for the box's records (companion/core/records.py): board,
        won, score, unit, better ("lower" or "higher"), and any whole-number details; None
        while the game is not finished. The app dates and keeps it."""
        return None

    def ended(self, state: Any) -> bool:
        """The game is over (a result, or its final standings on screen): another game takes
        its place without asking, and it goes to history rather than waiting to be resumed."""
        return self.result(state) is not None

    @property
    def keeps_records(self) -> bool:
        """The game reports results (it has its own ``result``): its menu offers Records."""
        return type(self).result is not Game.result

    def navigation(self, action: Action) -> bool:
        """True for an action that only changes what is shown (the dice tool's history page):
        applied and shown but never journaled and never an undo step, so ``restore`` must
        undo what it shows."""
        return False

    def opens(self, state: Any, action: Action) -> Ask | Pages | None:
        """Replay's ``do`` of an action that is a question (``do ask form=...``): the menu to
        open, or None to submit the action as it is."""
        return None

    def next_question(self, state: Any) -> Ask | None:
        """A question the game asks by itself after an accepted action, an undo or a power
        cut, when no menu is open."""
        return None

    def menu_view(self, state: Any, showing: Showing) -> tuple[Screen, Lights] | None:
        """The menu of play that is open (a ``Showing``) drawn in the game's own way, with its
        own LED; None: the kit draws it."""
        return None

    def menu_public(self, showing: Showing | None) -> dict[str, Any]:
        """Added to the public state: what the menu of play shows (None: none is open)."""
        return {}

    def pause_action(self, state: Any) -> Action | None:
        """Submitted (as an automatic step, never an undo step) when the box's own menu opens:
        a turn timer stands still while the table is in the menu."""
        return None

    def resume_action(self, state: Any) -> Action | None:
        """Submitted when the box's menu is left to play on (Resume, back, the dice switch)."""
        return None

    def secret_card(self, card: Mapping[str, Any]) -> str | None:
        """What to call a tapped card of this game instead of its name wherever the box would
        show it (None: its name): cards in a hidden hand must not be named to the table."""
        return None

    def demo_copies(self, kind: CardKind) -> int:
        """How many numbered copies of ``kind`` the simulators' demo deck holds (as many as a
        table can lay together; companion/games/demo.py)."""
        return 1

    def attach(self, state_dir: Any) -> tuple[str, ...]:
        """Read the owner's own data files kept in the state directory (a card pack); lines to
        show the owner if one was bad."""
        return ()
