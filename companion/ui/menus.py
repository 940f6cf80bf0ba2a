"""Menus driven by up/down/ok/back (and green/red as the big yes/no): small values that draw a
Screen and answer a button with the menu as the press leaves it and a command for the app,
never doing I/O themselves. A menu is frozen (its sequences are tuples, its mappings are never
changed in place): a press makes a new menu with ``dataclasses.replace``, so a value that holds
one (the box's ``BoxState``) never changes under it."""

from __future__ import annotations

from dataclasses import field, replace
from typing import Any

from companion.core.values import frozen
from companion.ui.forms import Ask, CardKind, DieLabel, Field, Form, Option, Pages, Showing
from companion.ui.notice import wrap
from companion.ui.screen import Screen

VISIBLE = 3  # menu rows that fit between the title and the footer


@frozen
class Command:
    """What a menu asks the app to do: ``kind`` plus data."""

    kind: str  # close, pick_game, start, undo, new_game, switch_game, enrol, enrol_done, stay
    data: dict[str, Any] = field(default_factory=dict)


STAY = Command("stay")
CLOSE = Command("close")

# The footer convention of every menu (README, "Menus"): the buttons that matter now, in this
# order and with these words. Green does what ok does unless "G" is named; red always does what
# back does; back always leaves (its entry may give way when two others need the room).
FOOTER_WORDS = {
    "^v": ("change", "page"),  # a value or a die face; the pages of a board
    "ok": ("pick", "change", "next", "done", "yes", "mark", "undo"),
    "G": ("start", "done"),
    "back": ("out", "no"),
}


def footer(*, updown: str = "", ok: str = "", green: str = "", back: str = "") -> str:
    """A menu's footer in the one convention (FOOTER_WORDS)."""
    parts = [("^v", updown), ("ok", ok), ("G", green), ("back", back)]
    return "  ".join(f"{button} {verb}" for button, verb in parts if verb)


PICK = footer(ok="pick", back="out")
ASK = footer(ok="yes", back="no")


def window(items: tuple[str, ...] | list[str], cursor: int) -> tuple[str, ...]:
    """The kit's list layout: VISIBLE rows around the cursor, the chosen one marked "> "
    (games that walk a list of their own draw it with this too)."""
    top = max(0, min(cursor - 1, len(items) - VISIBLE))
    return tuple(
        ("> " if i == cursor else "  ") + items[i]
        for i in range(top, min(len(items), top + VISIBLE))
    )


@frozen
class ListMenu:
    """Pick one of ``items``; ok or green chooses, back or red leaves."""

    title: str
    items: tuple[str, ...]
    keys: tuple[str, ...]
    on_pick: str
    cursor: int = 0
    footer: str = PICK

    def screen(self) -> Screen:
        return Screen(self.title, window(self.items, self.cursor), footer=self.footer)

    def press(self, button: str, long: bool) -> tuple[ListMenu, Command]:
        if button in ("up", "down"):
            step = 1 if button == "down" else -1
            return replace(self, cursor=(self.cursor + step) % len(self.items)), STAY
        if button in ("ok", "green"):
            return self, Command(self.on_pick, {"key": self.keys[self.cursor]})
        if button in ("back", "red"):
            return self, CLOSE
        return self, STAY


@frozen
class OptionsMenu:
    """A game's options before it starts: up/down choose a row, ok changes it, green starts.

    A choice option cycles through its values. A number that may take any value (a turn
    length) cycles through its presets, and a long press on ok edits it: up/down step by one,
    a long press by ten, ok again when done. Options that do not matter with the others'
    values (``Option.only_if``) are left out, and not given to the game.
    """

    game: str
    title: str
    all_options: tuple[Option, ...]
    values: dict[str, str] = field(default_factory=dict)
    cursor: int = 0
    editing: bool = False

    def __post_init__(self) -> None:
        values = dict(self.values)  # the caller's mapping is never changed
        for option in self.all_options:
            values.setdefault(option.name, option.default)
        object.__setattr__(self, "values", values)

    @property
    def options(self) -> tuple[Option, ...]:
        """The options shown now: those that matter with the values picked so far."""
        return _applying(self.all_options, self.values)

    def screen(self) -> Screen:
        if self.editing:
            option = self.options[self.cursor]
            return Screen(
                option.label,
                big=self.values[option.name],
                footer=footer(updown="change", ok="done"),
            )
        rows = [f"{o.label}: {self.values[o.name]}" for o in self.options] or ["no options"]
        return Screen(
            self.title, window(rows, self.cursor), footer=footer(ok="change", green="start")
        )

    @staticmethod
    def _numeric(option: Option) -> bool:
        return not option.choices and all(v.isdigit() for v in option.menu_values())

    def press(self, button: str, long: bool) -> tuple[OptionsMenu, Command]:
        if self.editing:
            return self._edit(button, long), STAY
        if button == "green":
            shown = {o.name: self.values[o.name] for o in self.options}
            return self, Command("start", {"game": self.game, "options": shown})
        if button in ("back", "red"):
            return self, CLOSE
        if not self.options:
            return self, STAY
        if button in ("up", "down"):
            step = 1 if button == "down" else -1
            return replace(self, cursor=(self.cursor + step) % len(self.options)), STAY
        if button == "ok":
            option = self.options[self.cursor]
            if long and self._numeric(option):
                return replace(self, editing=True), STAY
            values = option.menu_values()
            current = self.values[option.name]
            i = values.index(current) if current in values else -1
            changed = {**self.values, option.name: values[(i + 1) % len(values)]}
            shown = _applying(self.all_options, changed)
            names = [o.name for o in shown]  # the cursor stays on the option it changed
            cursor = names.index(option.name) if option.name in names else self.cursor
            cursor = max(0, min(cursor, len(shown) - 1))
            return replace(self, values=changed, cursor=cursor), STAY
        return self, STAY

    def _edit(self, button: str, long: bool) -> OptionsMenu:
        name = self.options[self.cursor].name
        if button in ("up", "down"):
            step = (10 if long else 1) * (1 if button == "up" else -1)
            value = int(self.values[name]) if self.values[name].isdigit() else 0
            low, high = self.options[self.cursor].bounds or (0, 999)
            return replace(
                self, values={**self.values, name: str(max(low, min(high, value + step)))}
            )
        if button in ("ok", "back", "green", "red"):
            return replace(self, editing=False)
        return self


def _applying(options: tuple[Option, ...], values: dict[str, str]) -> tuple[Option, ...]:
    """The options that matter with ``values``."""
    return tuple(o for o in options if o.applies(values))


@frozen
class Confirm:
    """A yes/no question: green yes, red or back no. ``yes`` names what ok does where "yes"
    could be read as the answer to another question (the undo over a question of play)."""

    title: str
    question: tuple[str, ...]
    on_yes: Command
    yes: str = "yes"

    def screen(self) -> Screen:
        return Screen(self.title, self.question, footer=footer(ok=self.yes, back="no"))

    def press(self, button: str, long: bool) -> tuple[Confirm, Command]:
        if button in ("green", "ok"):
            return self, self.on_yes
        if button in ("red", "back"):
            return self, CLOSE
        return self, STAY


@frozen
class Enrol:
    """Teach the box a card: pick its kind from the catalog, then any values it carries.

    Without a ``uid`` it starts a run (EnrolRun): the kind and values picked once, for every
    copy tapped after.
    """

    uid: str
    game: str
    kinds: tuple[CardKind, ...]
    cursor: int = 0
    kind: CardKind | None = None
    values: dict[str, int] = field(default_factory=dict)
    field_index: int = 0

    def screen(self) -> Screen:
        if self.kind is None:
            items = [k.short or k.name for k in self.kinds]
            title = f"Enrol {self.uid}" if self.uid else "Enrol copies of"
            return Screen(title, window(items, self.cursor), footer=PICK)
        name = self.kind.fields[self.field_index]
        low, high = self.kind.field_range(self.field_index)
        shown = self.values.get(name, self.kind.field_start(self.field_index))
        last = self.field_index == len(self.kind.fields) - 1
        return Screen(
            self.kind.name,
            (f"{name} ({low}-{high}):", f"  {shown}"),
            footer=footer(updown="change", ok="done" if last else "next"),
        )

    def press(self, button: str, long: bool) -> tuple[Enrol, Command]:
        if button in ("back", "red"):
            return self, CLOSE
        if self.kind is None:
            if button in ("up", "down"):
                step = 1 if button == "down" else -1
                return replace(self, cursor=(self.cursor + step) % len(self.kinds)), STAY
            if button in ("ok", "green"):
                chosen = replace(self, kind=self.kinds[self.cursor])
                return chosen, (STAY if chosen.kind.fields else chosen._done())
            return self, STAY
        name = self.kind.fields[self.field_index]
        low, high = self.kind.field_range(self.field_index)
        start = self.kind.field_start(self.field_index)
        if button in ("up", "down"):
            step = 1 if button == "up" else -1
            value = max(low, min(high, self.values.get(name, start) + step))
            return replace(self, values={**self.values, name: value}), STAY
        if button in ("ok", "green"):
            answered = replace(
                self,
                values={**self.values, name: self.values.get(name, start)},
                field_index=self.field_index + 1,
            )
            done = answered.field_index >= len(self.kind.fields)
            return answered, (answered._done() if done else STAY)
        return self, STAY

    def _done(self) -> Command:
        assert self.kind is not None
        if not self.uid:
            return Command("enrol_run", {"run": EnrolRun(self.game, self.kind, dict(self.values))})
        return Command(
            "enrol_done",
            {
                "uid": self.uid,
                "game": self.game,
                "card": self.kind.id,
                "name": self.kind.name,
                "fields": dict(self.values),
            },
        )


@frozen
class EnrolRun:
    """A run of copies of one card: each tag tapped while it is open becomes this kind with
    these values. The app enrols and counts them; a tag that is already something else is
    named and changed only after a yes; one that already is this card is just counted."""

    game: str
    kind: CardKind
    values: dict[str, int]
    count: int = 0  # tags enrolled as this card in this run
    seen: frozenset[str] = frozenset()  # their UIDs: a second tap counts once
    said: str = ""  # what the last tap did
    asking: tuple[str, str] | None = None  # (uid, what it is now) waiting for a yes
    waiting: tuple[str, ...] = ()  # tapped during the question, in order

    def values_text(self) -> str:
        return ", ".join(f"{name} {value}" for name, value in self.values.items())

    def screen(self) -> Screen:
        if self.asking is not None:
            uid, now = self.asking
            lines = [*wrap(f"is {now}."), *wrap(f"Make it {self.kind.name}?")]
            if len(lines) > VISIBLE:
                lines = [f"is {now}", f"-> {self.kind.name}?"]
            return Screen(f"Card {uid}", tuple(lines), footer=ASK)
        copies = "1 copy" if self.count == 1 else f"{self.count} copies"
        lines = (self.values_text(), f"{copies} enrolled", self.said or "tap each copy")
        shown = tuple(line for line in lines if line)
        return Screen(self.kind.name, shown, footer=footer(back="out"))

    def press(self, button: str, long: bool) -> tuple[EnrolRun, Command]:
        if self.asking is not None:
            uid = self.asking[0]
            if button in ("ok", "green"):
                answered = replace(self, asking=None)
                return answered, Command("enrol_copy", {"uid": uid, "run": answered})
            if button in ("back", "red"):
                return replace(self, asking=None, said=f"kept {uid}"), STAY
            return self, STAY
        if button in ("back", "red"):
            return self, CLOSE
        return self, STAY


@frozen
class DiceEntry:
    """Read the table's own dice into the box: up/down set each die, ok takes it."""

    faces: tuple[int, ...]
    action: Any  # the Action waiting for these rolls
    labels: tuple[DieLabel, ...] = ()  # the game's names for the dice, if it gives them
    values: tuple[int, ...] = ()
    current: int = 1

    def screen(self) -> Screen:
        n = len(self.values)
        label = self.labels[n] if n < len(self.labels) else None
        title = label.name if label else f"Enter d{self.faces[n]}"
        if label and self.current in label.faces:
            line = f"{self.current} = {label.faces[self.current]}"
        elif len(self.faces) > 1:
            line = f"die {n + 1} of {len(self.faces)}"
        else:
            line = f"a d{self.faces[n]}"
        last = n == len(self.faces) - 1
        return Screen(
            title,
            (line,),
            big=str(self.current),
            footer=footer(updown="change", ok="done" if last else "next"),
        )

    def press(self, button: str, long: bool) -> tuple[DiceEntry, Command]:
        faces = self.faces[len(self.values)]
        if button in ("back", "red"):
            return self, CLOSE
        if button in ("up", "down"):
            step = 1 if button == "up" else -1
            return replace(self, current=(self.current - 1 + step) % faces + 1), STAY
        if button in ("ok", "green"):
            entered = replace(self, values=(*self.values, self.current), current=1)
            if len(entered.values) == len(self.faces):
                return entered, Command(
                    "dice_entered", {"rolls": entered.values, "action": self.action}
                )
            return entered, STAY
        return self, STAY


@frozen
class FormMenu:
    """A game's own menu (``Ask``): pick an entry, answer its questions, and the app submits the
    action it builds. Nothing here is journaled: only the finished action is.

    up/down move (a long press by five), ok or green answers, back or red steps back one
    question. A question with ``many`` marks choices with ok and takes them with green.
    """

    ask: Ask
    form: Form | None = None
    cursor: int = 0
    index: int = 0  # the question being asked
    values: dict[str, str] = field(default_factory=dict)  # answers so far, never changed in place
    marked: frozenset[int] = frozenset()

    def start(self) -> tuple[FormMenu, Command]:
        """A menu of one entry asks its questions at once."""
        if len(self.ask.forms) == 1:
            return self._choose(self.ask.forms[0])
        return self, STAY

    def _field(self) -> Field:
        """The question being asked, without the choices earlier answers rule out."""
        assert self.form is not None
        return self.form.questions(self.values)[self.index].limited(self.values)

    def showing(self) -> Showing:
        """What is on screen, for a game that draws its menus itself. A menu whose one entry
        asked nothing (its action went on, to the table's dice) names its list."""
        if self.form is None or not self.form.questions(self.values):
            labels = tuple(f.label for f in self.ask.forms)
            return Showing("list", self.ask.title, self.cursor, labels)
        return Showing(
            "question",
            self.ask.title,
            self.cursor,
            form=self.form,
            question=self._field(),
            answers=dict(self.values),
        )

    def screen(self) -> Screen:
        if self.form is None:
            labels = [f.label for f in self.ask.forms]
            return Screen(self.ask.title, window(labels, self.cursor), footer=PICK)
        question = self._field()
        items = [question.shown(i) for i in range(len(question.choices))]
        if question.many:
            items = [("*" if i in self.marked else "-") + " " + t for i, t in enumerate(items)]
            marks = footer(ok="mark", green="done")
            return Screen(question.label, window(items, self.cursor), footer=marks)
        return Screen(question.label, window(items, self.cursor), footer=PICK)

    def press(self, button: str, long: bool) -> tuple[FormMenu, Command]:
        if button in ("back", "red"):
            return self._back()
        count = len(self.ask.forms) if self.form is None else len(self._field().choices)
        if button in ("up", "down"):
            return self._move(button, long, count), STAY
        if button not in ("ok", "green"):
            return self, STAY
        if self.form is None:
            return self._choose(self.ask.forms[self.cursor])
        question = self._field()
        if question.many:
            if button == "ok":
                return replace(self, marked=self.marked ^ {self.cursor}), STAY
            picked = [question.choices[i] for i in sorted(self.marked)]
            answer = ",".join(picked)
        else:
            answer = question.choices[self.cursor]
        answered = replace(self, values={**self.values, question.key: answer})
        return answered._ask(self.index + 1)

    def _move(self, button: str, long: bool, count: int) -> FormMenu:
        walk = self.ask.walk
        down = button == "down"
        if (
            self.form is not None
            and walk.up_raises
            and all(c.isdigit() for c in self._field().choices)
        ):
            down = not down  # the numbers run upwards: up raises
        step = 1 if down else -1
        if long and count > walk.long_after:
            step *= 5
            if not walk.long_wraps:
                return replace(self, cursor=max(0, min(count - 1, self.cursor + step)))
        return replace(self, cursor=(self.cursor + step) % count)

    def _choose(self, form: Form) -> tuple[FormMenu, Command]:
        if form.refused:
            return self, Command("refused", {"reason": form.refused})
        return replace(self, form=form, values={})._ask(0)

    def _ask(self, index: int) -> tuple[FormMenu, Command]:
        assert self.form is not None
        if index >= len(self.form.questions(self.values)):
            args = {**self.form.args, **self.values}
            done = self
            if self.index >= len(self.form.questions(self.values)):
                # an entry with no question: the menu as it stands is its list, the cursor on
                # that entry (what stays on screen when its action is refused)
                done = replace(self, form=None, values={}, index=0)
            if self.form.build is not None:
                return done, Command("form_built", {"reply": self.form.build(args)})
            return done, Command("form_done", {"name": self.form.action, "args": args})
        asking = replace(self, index=index)
        question = asking._field()
        cursor = question.start if 0 <= question.start < len(question.choices) else 0
        return replace(asking, cursor=cursor, marked=frozenset()), STAY

    def _back(self) -> tuple[FormMenu, Command]:
        if self.form is None:
            return self, CLOSE
        if self.index > 0:
            key = self.form.questions(self.values)[self.index - 1].key
            answer = self.values.get(key)
            values = {k: v for k, v in self.values.items() if k != key}
            back, _ = replace(self, values=values)._ask(self.index - 1)
            if self.ask.walk.back_keeps:
                choices = back._field().choices
                back = replace(back, cursor=choices.index(answer) if answer in choices else 0)
            return back, STAY
        if len(self.ask.forms) == 1:
            return self, CLOSE
        return replace(self, cursor=self.ask.forms.index(self.form), form=None), STAY


@frozen
class PageMenu:
    """Information pages (a scoreboard, the seats): up/down turn them, any other button closes.
    It opens on the pages' own ``start`` (``index`` None)."""

    pages: Pages
    index: int | None = None

    def __post_init__(self) -> None:
        if self.index is None:
            start = max(0, min(len(self.pages.screens) - 1, self.pages.start))
            object.__setattr__(self, "index", start)

    def screen(self) -> Screen:
        page = self.pages.screens[self.index]
        n = len(self.pages.screens)
        turn = f"page {self.index + 1}/{n}" if n > 1 else ""
        shown = footer(updown=turn, back="out")
        return Screen(page.title, page.lines, page.big, shown, page.inverted, page.picture)

    def showing(self) -> Showing:
        """What is on screen, for a game that draws its pages itself."""
        page = self.pages.screens[self.index]
        return Showing("pages", page.title, self.index, page=page)

    def press(self, button: str, long: bool) -> tuple[PageMenu, Command]:
        in_play = self.pages.walk.in_play
        if button in ("up", "down") and (len(self.pages.screens) > 1 or in_play):
            step = 1 if button == "down" else -1
            return replace(self, index=(self.index + step) % len(self.pages.screens)), STAY
        if in_play and button in ("ok", "green"):  # on as on the game screen
            return self, Command("play_press", {"button": button, "long": long})
        return self, CLOSE


Menu = ListMenu | OptionsMenu | Confirm | Enrol | EnrolRun | DiceEntry | FormMenu | PageMenu
