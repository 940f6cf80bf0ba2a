"""The menu kit's value types: what a game says it wants asked (options, card kinds, dice names,
forms, information pages) in terms the box's menus can walk.

They live in ui, beside ``screen``'s Screen and Lights, so that both sides may use them without an
arrow back up: games describe their menus with these values, ui/menus.py walks them, and only the
app (which knows both) turns a finished form into a game's Action. Nothing here imports a game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field, replace
from typing import Any

from companion.core.values import value
from companion.ui.screen import Screen

Scalar = str | int | float | bool


@value
class Option:
    """A game option, picked in the menu or given as ``K=V`` in replay."""

    name: str
    label: str
    default: str
    choices: tuple[str, ...] = ()  # empty: any value that ``check`` accepts
    presets: tuple[str, ...] = ()  # values the menu cycles through when choices is empty
    bounds: tuple[int, int] | None = None  # a whole number in this range (lowest, highest)
    # Only when every named option has one of these values does this one matter (Cover Your
    # Asps' vault means nothing to one player): the menu leaves it out otherwise.
    only_if: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Or, when given, when every option named here has one of these values (Trap Attack's AI
    # route matters with the AI pawn on, or left to "auto" with one player).
    also_if: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def menu_values(self) -> tuple[str, ...]:
        return self.choices or self.presets or (self.default,)

    def applies(self, values: Mapping[str, str]) -> bool:
        """Whether this option matters with these values of the others."""

        def holds(rule: tuple[tuple[str, tuple[str, ...]], ...]) -> bool:
            return all(str(values.get(name, "")) in allowed for name, allowed in rule)

        return holds(self.only_if) or (bool(self.also_if) and holds(self.also_if))


@value
class DieLabel:
    """How to ask for one die read off the table: its name and, where faces mean something
    other than their number, what each face reads ("AI action die", {3: "Relic"})."""

    name: str
    faces: Mapping[int, str] = field(default_factory=dict)


@value
class CardKind:
    """One entry of a game's card catalog: what a tagged card can be enrolled as."""

    id: str
    name: str
    group: str = ""  # e.g. "attack", "item", "relic": for menus
    fields: tuple[str, ...] = ()  # extra values asked at enrolment, e.g. ("value", "combo")
    ranges: tuple[tuple[int, int], ...] = ()  # lowest and highest of each field, if bounded
    starts: tuple[int, ...] = ()  # the value each field offers first (else its lowest)
    short: str = ""  # the name where a list line is too narrow for it (else ``name``)

    def field_range(self, index: int) -> tuple[int, int]:
        return self.ranges[index] if index < len(self.ranges) else (0, 99)

    def field_start(self, index: int) -> int:
        low, high = self.field_range(index)
        start = self.starts[index] if index < len(self.starts) else low
        return max(low, min(high, start))


# --- what a control map may answer besides an action -------------------------------------------
#
# Questions and information pages are the app's business, not the game's: walking a menu is
# never journaled and never an undo step. Only the action a finished form builds reaches the
# rules (and the journal), exactly as ``do ACTION`` would in replay.


@value
class Field:
    """One question of a form: pick one of ``choices`` (shown as ``names``), or with ``many``
    several of them (given to the action joined with commas)."""

    key: str
    label: str
    choices: tuple[str, ...]
    names: tuple[str, ...] = ()
    start: int = 0
    many: bool = False
    # The key of a number asked earlier in the form that this answer may not exceed (wilds
    # among the cards of a play: no more than the cards); choices above it are not offered.
    at_most: str = ""

    def shown(self, index: int) -> str:
        return (self.names or self.choices)[index]

    def limited(self, answers: Mapping[str, object]) -> Field:
        """This question as it is asked after ``answers``: without the choices above the
        answer ``at_most`` names (the whole question if that was not asked)."""
        bound = str(answers.get(self.at_most, "")) if self.at_most else ""
        if not (bound.isascii() and bound.isdigit()):
            return self
        keep = [i for i, c in enumerate(self.choices) if not c.isdigit() or int(c) <= int(bound)]
        names = tuple(self.names[i] for i in keep) if self.names else ()
        start = max(0, min(self.start, len(keep) - 1))
        choices = tuple(self.choices[i] for i in keep)
        return replace(self, choices=choices, names=names, start=start, at_most="")


@value
class Form:
    """A menu entry that ends in one action: ``action`` with ``args`` plus the fields' answers.

    ``refused`` is the reason the entry cannot be used now; picking it shows the reason instead
    of asking questions whose answer the rules would refuse anyway.
    """

    label: str
    action: str
    fields: tuple[Field, ...] = ()
    args: Mapping[str, Scalar] = field(default_factory=dict)
    refused: str | None = None
    # Where a later question depends on earlier answers (no crystal: no space to ask): the
    # questions given the answers so far, in place of ``fields``.
    more: Callable[[Mapping[str, str]], tuple[Field, ...]] | None = None
    # Where the answers make the action in code rather than as its arguments: what it
    # answers (an action, or another Ask or Pages to open), given ``args`` and the answers.
    build: Callable[[Mapping[str, str]], Any] | None = None

    def questions(self, answers: Mapping[str, str]) -> tuple[Field, ...]:
        """The questions of this form after ``answers``."""
        return self.more(answers) if self.more is not None else self.fields


@value
class Walk:
    """How a game's menu is walked where it differs from the kit's defaults."""

    up_raises: bool = False  # in a question of numbers, up picks the next higher one
    long_after: int = 0  # a long press moves by five only in lists longer than this...
    long_wraps: bool = False  # ...and goes round the end as a short press does
    back_keeps: bool = False  # back to the previous question shows the answer it had
    # The menu is a part of play, as if drawn on the game screen: the back button opens the
    # box's menu over it (it waits underneath), a card tapped is played at once, an action
    # refused leaves it as it was, and any other action accepted closes it.
    in_play: bool = False


@value
class Ask:
    """Open a menu of forms (one form: its questions at once)."""

    title: str
    forms: tuple[Form, ...]
    walk: Walk = Walk()


@value
class Pages:
    """Show information pages (a scoreboard, the seats): up/down turn them, any other button
    closes them. ``start`` is the page shown first. With ``walk.in_play`` red closes them and
    ok or green go on as on the game screen."""

    screens: tuple[Screen, ...]
    start: int = 0
    walk: Walk = Walk()


@value
class Showing:
    """What a game's menu shows now, for a game that draws its menus itself (``menu_view``)
    or names them in its public state (``menu_public``): the list of an Ask's entries, one of
    its questions, or a page."""

    kind: str  # list, question or pages
    title: str
    cursor: int = 0  # the entry, the choice or the page
    labels: tuple[str, ...] = ()  # the list's entries
    form: Form | None = None  # the form being answered
    question: Field | None = None  # the question being asked
    answers: Mapping[str, str] = field(default_factory=dict)
    page: Screen | None = None  # the page shown
