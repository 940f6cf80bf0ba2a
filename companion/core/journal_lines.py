"""What a journal line is, and how a file of them is read and folded.

One JSON object a line. Folding it rebuilds the current game exactly, because every action
carries its dice and its time. Power may be cut mid-write: a torn last line is dropped (it was
never acknowledged, since acknowledgement comes after fsync). Every entry's shape is checked
when read; a damaged line sets the file aside (never deleted, never a reason to crash at every
boot: ``SetAside``) and the journal goes on with what still folds (``Reading.kept``).

A game in play is its ``game`` entry, its ``checkpoint`` if it has one (its state after its
older steps, a JSON value the app made: never read here) and its standing steps after it.
Start-up reads the file line by line and keeps only the game in play (``stream``, ``Folder``);
``fold`` does the same over entries in memory. The appending, compacting file is the
``Journal`` (core/journal.py).

Every line carries the journal's format version (``v``; a line without one is version 1). A
line of a newer version than ``VERSION`` is a newer release's (rolled back from): the whole file
is refused (``formats.NewerFormat``), never folded, set aside or written to; play goes on in
memory under the storage condition ``newer`` until that file is taken away (core/formats.py).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from companion.core import formats, statefile
from companion.core.nesting import json_too_deep
from companion.core.values import value

log = logging.getLogger("companion.core.journal")  # the journal's one log, read or written

VERSION = 1
KINDS = ("game", "action", "undo", "restore", "checkpoint")
GAME_ID = re.compile(r"[0-9a-f]{0,32}")


class JournalUnreadable(Exception):
    """Raised by ``read_entries`` with the line number and what is wrong there."""


Entry = dict[str, Any]  # an action as the app wrote it: a JSON object, never read into here
A = TypeVar("A")


@value
class Step(Generic[A]):
    """One standing entry of a game: an action (``auto`` when a timer applied it, not a
    person), or, with no action, the app's restore after a power cut or an undo.

    The journal knows nothing of games: its steps hold each action as the JSON object the app
    wrote (``Step[Entry]``); the app turns them back into its actions, and keeps steps of its
    own actions with the same undo rule (``undo_steps``)."""

    action: A | None
    auto: bool = False
    at: float | None = None  # a restore's moment play stopped (None: the last action's)

    @property
    def by_person(self) -> bool:
        """An undo target: an action a person made."""
        return self.action is not None and not self.auto


def undo_steps(steps: list[Step[A]]) -> A | None:
    """Take back the last action a person made, with every step after it (timer ticks,
    restores). The same rule folds the journal and runs the box, so both always agree."""
    for i in range(len(steps) - 1, -1, -1):
        if steps[i].by_person:
            undone = steps[i].action
            del steps[i:]
            return undone
    return None


@value
class Checkpoint:
    """A game's state after its older steps, as the app wrote it (a JSON value the journal
    only keeps): ``at``, the last moment folded into it; ``steps``, how many standing steps it
    holds over the game's life."""

    state: Any
    at: float | None = None
    steps: int = 0
    line: int = field(default=0, compare=False)  # where it was read (0: not read from a file)

    def entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"kind": "checkpoint", "state": self.state, "steps": self.steps}
        if self.at is not None:
            entry["at"] = self.at
        return entry


@dataclass
class GameRecord:
    """The current game as the journal tells it: how it started, its checkpoint if it has
    one, and the steps still standing after it."""

    game: str
    options: dict[str, Any]
    setup_rolls: tuple[int, ...]
    started_at: float
    steps: list[Step[Entry]] = field(default_factory=list)
    game_id: str = ""  # unique to this game (journals before it had none)
    checkpoint: Checkpoint | None = None  # the state the steps start from (None: the start)

    @property
    def actions(self) -> list[Entry]:
        return [s.action for s in self.steps if s.action is not None]


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _whole_numbers(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    )


def _scalars(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, str | int | float) and (not isinstance(v, float) or math.isfinite(v))
        for v in value.values()
    )


def _values_problem(value: dict[str, Any], table: str, words: str, said: str) -> str | None:
    """What is wrong with a game entry's or an action's own values (its table of them under
    ``table``, named ``words``; its rolls; its time), worded by ``said``; or None."""
    for key, default, good, wrong in (
        (table, {}, _scalars, f"{words} are not a table of values"),
        ("rolls", [], _whole_numbers, "rolls are not whole numbers"),
        ("at", 0.0, _finite, "time is not a number"),
    ):
        if not good(value.get(key, default)):
            return said.format(wrong)
    return None


def _problem(entry: Any) -> str | None:
    """What is wrong with one entry's shape, or None: checked here so that folding and
    replaying the game never meet a value of the wrong type."""
    if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
        return "not a journal entry"
    kind = entry["kind"]
    if kind == "game":
        if not isinstance(entry.get("game"), str) or not entry["game"]:
            return "a game entry without a game name"
        problem = _values_problem(entry, "options", "options", "a game entry whose {}")
        if problem:
            return problem
        if not isinstance(entry.get("id", ""), str) or not GAME_ID.fullmatch(entry.get("id", "")):
            return "a game entry whose id is not up to 32 hex digits"
    elif kind == "action":
        action = entry.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("name"), str):
            return "malformed action (no name)"
        problem = _values_problem(action, "args", "arguments", "malformed action (its {})")
        if problem:
            return problem
        for flag in ("auto", "nav"):
            if not isinstance(entry.get(flag, False), bool):
                return f"malformed action ({flag} is not true or false)"
    elif kind == "restore" and not _finite(entry.get("at", 0.0)):
        return "a restore entry whose time is not a number"
    elif kind == "checkpoint":
        if "state" not in entry:
            return "a checkpoint without a state"
        if not _finite(entry.get("at", 0.0)):
            return "a checkpoint whose time is not a number"
        steps = entry.get("steps", 0)
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
            return "a checkpoint whose count of steps is not a whole number"
    return None


def parse_line(raw: bytes, where: Path | str = "the journal") -> tuple[dict[str, Any] | None, str]:
    """One line: its entry, or None and why not. NewerFormat for a line of a newer version
    (``where``: the file, named in its message)."""
    if json_too_deep(raw):
        return None, "not JSON (nested too deep)"
    try:
        entry = json.loads(raw.decode("utf-8"))
    except ValueError as err:  # not UTF-8, not JSON, or a number of more than 4300 digits
        return None, f"not JSON ({err})"
    if isinstance(entry, dict):
        formats.check(entry.get("v"), VERSION, where)
    problem = _problem(entry)
    return (None, problem) if problem else (entry, "")


@value
class Reading:
    """A journal file as read: what still folds, and what is damaged.

    With damage, ``kept`` is the file to go on with: every line before the first damaged one
    (the games before it and the current game up to it), and the current game's own lines if
    it started after the damage. ``sound`` is the length without a torn last line."""

    entries: list[dict[str, Any]]
    kept: bytes
    sound: int
    damage: list[str]
    lines: int  # lines with something on them, damaged ones included


def read_journal(data: bytes, where: str) -> Reading:
    """NewerFormat (nothing read) when a line is of a newer version than this release's."""
    pieces = data.split(b"\n")
    tail = pieces.pop()  # after the last newline: empty, or a line torn by a power cut
    if tail.strip():
        log.warning(
            "journal %s: dropped a torn last line (%d bytes) left by a power cut", where, len(tail)
        )
    lines: list[tuple[bytes, dict[str, Any] | None]] = []
    damage: list[str] = []
    for number, raw in enumerate(pieces, start=1):
        if raw.strip():
            entry, why = parse_line(raw, where)
            if entry is None:
                damage.append(f"{where}:{number}: {why}")
            lines.append((raw, entry))
    keep = lines
    if damage:
        first_bad = next(i for i, (_, entry) in enumerate(lines) if entry is None)
        keep = lines[:first_bad]
        games = [i for i, (_, e) in enumerate(lines) if e is not None and e["kind"] == "game"]
        if games and games[-1] > first_bad:  # the current game began after the damage
            start = games[-1]
            end = next((i for i in range(start, len(lines)) if lines[i][1] is None), len(lines))
            keep = keep + lines[start:end]
    entries = [entry for _, entry in keep if entry is not None]
    kept = b"".join(raw + b"\n" for raw, _ in keep)
    return Reading(entries, kept, len(data) - len(tail), damage, len(lines))


def read_entries(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Entries of a journal file and the byte length of its sound part (without a torn tail);
    JournalUnreadable names the first damaged line."""
    try:
        data = statefile.read_bytes(path, statefile.JOURNAL.cap)
    except statefile.Unreadable as err:
        raise JournalUnreadable(str(err)) from None
    if data is None:
        raise JournalUnreadable(f"{path}: no such file")
    reading = read_journal(data, str(path))
    if reading.damage:
        raise JournalUnreadable(reading.damage[0])
    return reading.entries, reading.sound


class Folder:
    """Folds entries one at a time, keeping only the game in play: a start reads the file a
    line at a time through one, so memory holds one game whatever the file holds."""

    def __init__(self) -> None:
        self.record: GameRecord | None = None
        self.entries = 0  # entries taken, of every game
        self.game_lines = 0  # of those, the lines of the game in play (its entry first)
        self.seq = 0  # the highest line number read (a compacted file has fewer lines)

    def take(self, entry: dict[str, Any], line: int = 0) -> None:
        self.entries += 1
        seq = entry.get("seq")
        if type(seq) is int and seq > self.seq:
            self.seq = seq
        kind = entry["kind"]
        record = self.record
        if kind == "game":
            self.record = GameRecord(
                game=entry["game"],
                options=dict(entry.get("options", {})),
                setup_rolls=tuple(entry.get("rolls", ())),
                started_at=float(entry.get("at", 0.0)),
                game_id=entry.get("id", ""),
            )
            self.game_lines = 1
            return
        self.game_lines += 1
        if record is None:
            return  # actions of a game whose start was archived
        if kind == "action" and entry.get("nav"):
            # A menu move written by an older version (Trap Attack's menus were journaled):
            # skipped, as it only moved a menu that the next action or the restore closes.
            return
        if kind == "action":
            record.steps.append(Step(dict(entry["action"]), bool(entry.get("auto"))))
        elif kind == "restore":
            at = entry.get("at")
            record.steps.append(Step(None, at=None if at is None else float(at)))
        elif kind == "undo":
            undo_steps(record.steps)
        elif kind == "checkpoint":  # the state after every step so far: they fold into it
            at = entry.get("at")
            record.checkpoint = Checkpoint(
                entry["state"], None if at is None else float(at), entry.get("steps", 0), line
            )
            record.steps.clear()


def fold(entries: list[dict[str, Any]]) -> GameRecord | None:
    """The current game: the last ``game`` entry, its checkpoint if any, and the actions after
    it, less undone ones."""
    folder = Folder()
    for entry in entries:
        folder.take(entry)
    return folder.record


def stream(lines: Iterable[bytes], where: Path) -> tuple[Folder | None, int | None]:
    """A file's lines (each with its newline) folded one at a time, keeping only the game in
    play: the folder, None at a damaged line (the file is then read whole: ``read_journal``);
    and after a line torn by a power cut, the length of the sound part to cut back to."""
    folder = Folder()
    sound = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.endswith(b"\n"):  # after the last newline: a line torn by a cut
            if raw.strip():
                log.warning(
                    "journal %s: dropped a torn last line (%d bytes) left by a power cut",
                    where,
                    len(raw),
                )
            return folder, sound
        sound += len(raw)
        if not raw.strip():
            continue
        entry, _ = parse_line(raw[:-1], where)
        if entry is None:
            return None, None
        folder.take(entry, number)
    return folder, None


def game_in_tail(tail: bytes, where: str) -> list[dict[str, Any]] | None:
    """The game in play as the end of a file too big to read holds it (its first line cut),
    numbered again from 1; None when it does not lie whole there."""
    tail = tail[tail.find(b"\n") + 1 :]  # the first line is cut
    reading = read_journal(tail, where)
    games = [i for i, e in enumerate(reading.entries) if e["kind"] == "game"]
    if reading.damage or not games:
        return None
    return [{**e, "seq": n} for n, e in enumerate(reading.entries[games[-1] :], start=1)]


def game_entry(
    game: str, options: dict[str, Any], rolls: tuple[int, ...], at: float, game_id: str = ""
) -> dict[str, Any]:
    entry = {"kind": "game", "game": game, "options": options, "rolls": list(rolls), "at": at}
    if game_id:
        entry["id"] = game_id
    return entry


def new_game_id() -> str:
    """Unique to one game, whatever the clocks say: its records are kept under it (two games
    started at the same moment, as every game of a replay is, or after a reboot that set the
    clock back, never share one). ``os.urandom`` is what ``secrets.token_hex`` reads, without
    the hmac and hashlib it imports."""
    return os.urandom(8).hex()


def game_lines(record: GameRecord) -> list[dict[str, Any]]:
    """A game as journal entries: its start, its checkpoint and its standing steps."""
    first = game_entry(
        record.game, dict(record.options), record.setup_rolls, record.started_at, record.game_id
    )
    checkpoint = [record.checkpoint.entry()] if record.checkpoint is not None else []
    return [first, *checkpoint, *(step_entry(step) for step in record.steps)]


def step_entry(step: Step[Entry]) -> dict[str, Any]:
    """The entry a standing step folds back from."""
    if step.action is None:
        return {"kind": "restore"} if step.at is None else {"kind": "restore", "at": step.at}
    entry: dict[str, Any] = {"kind": "action", "action": dict(step.action)}
    if step.auto:
        entry["auto"] = True
    return entry


@value
class SetAside:
    """A journal file that could not be used whole: where it went and how much was kept."""

    why: str
    moved_to: Path
    kept: int  # lines kept in the new journal
    lines: int  # lines the damaged file had (0: too big to count)

    def __str__(self) -> str:
        kept = f"kept {self.kept} of its {self.lines} lines" if self.kept else "kept nothing"
        if self.kept and not self.lines:  # too big to count: its end was read
            kept = f"kept the {self.kept} lines of the game in play"
        return f"journal damaged ({self.why}); moved to {self.moved_to}, {kept}"
