"""The journal: every accepted action, appended and fsync'ed before the screen changes.

One JSON object a line. Folding it rebuilds the current game exactly, because every action
carries its dice and its time. Power may be cut mid-write: a torn last line is dropped (it was
never acknowledged, since acknowledgement comes after fsync). Every entry's shape is checked
when read; a damaged line sets the file aside (never deleted, never a reason to crash at every
boot) and the journal goes on with what still folds. The journal is only ever replaced whole
(a new file written, then renamed), so a power cut leaves the old file or the new one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import math
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from companion.core import durable, statefile, storage
from companion.core.nesting import json_too_deep

log = logging.getLogger(__name__)

VERSION = 1
KINDS = ("game", "action", "undo", "restore")
GAME_ID = re.compile(r"[0-9a-f]{0,32}")
ROTATE_BYTES = 256 * 1024  # past this, a new game starts a fresh file; the old one is kept


class JournalUnreadable(Exception):
    """Raised by ``read_entries`` with the line number and what is wrong there."""


Entry = dict[str, Any]  # an action as the app wrote it: a JSON object, never read into here
A = TypeVar("A")


@dataclass(frozen=True)
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


@dataclass
class GameRecord:
    """The current game as the journal tells it: how it started and the steps still standing."""

    game: str
    options: dict[str, Any]
    setup_rolls: tuple[int, ...]
    started_at: float
    steps: list[Step[Entry]] = field(default_factory=list)
    game_id: str = ""  # unique to this game (journals before it had none)

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


def _problem(entry: Any) -> str | None:
    """What is wrong with one entry's shape, or None: checked here so that folding and
    replaying the game never meet a value of the wrong type."""
    if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
        return "not a journal entry"
    kind = entry["kind"]
    if kind == "game":
        if not isinstance(entry.get("game"), str) or not entry["game"]:
            return "a game entry without a game name"
        if not _scalars(entry.get("options", {})):
            return "a game entry whose options are not a table of values"
        if not _whole_numbers(entry.get("rolls", [])):
            return "a game entry whose rolls are not whole numbers"
        if not _finite(entry.get("at", 0.0)):
            return "a game entry whose time is not a number"
        if not isinstance(entry.get("id", ""), str) or not GAME_ID.fullmatch(entry.get("id", "")):
            return "a game entry whose id is not up to 32 hex digits"
    elif kind == "action":
        action = entry.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("name"), str):
            return "malformed action (no name)"
        if not _scalars(action.get("args", {})):
            return "malformed action (its arguments are not a table of values)"
        if not _whole_numbers(action.get("rolls", [])):
            return "malformed action (its rolls are not whole numbers)"
        if not _finite(action.get("at", 0.0)):
            return "malformed action (its time is not a number)"
        for flag in ("auto", "nav"):
            if not isinstance(entry.get(flag, False), bool):
                return f"malformed action ({flag} is not true or false)"
    elif kind == "restore" and not _finite(entry.get("at", 0.0)):
        return "a restore entry whose time is not a number"
    return None


def _parse(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    """One line: its entry, or None and why not."""
    if json_too_deep(raw):
        return None, "not JSON (nested too deep)"
    try:
        entry = json.loads(raw.decode("utf-8"))
    except ValueError as err:  # not UTF-8, not JSON, or a number of more than 4300 digits
        return None, f"not JSON ({err})"
    problem = _problem(entry)
    return (None, problem) if problem else (entry, "")


@dataclass(frozen=True)
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
            entry, why = _parse(raw)
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


def fold(entries: list[dict[str, Any]]) -> GameRecord | None:
    """The current game: the last ``game`` entry and the actions after it, less undone ones."""
    record: GameRecord | None = None
    for entry in entries:
        kind = entry["kind"]
        if kind == "game":
            record = GameRecord(
                game=entry["game"],
                options=dict(entry.get("options", {})),
                setup_rolls=tuple(entry.get("rolls", ())),
                started_at=float(entry.get("at", 0.0)),
                game_id=entry.get("id", ""),
            )
        elif record is None:
            continue  # actions of a game whose start was archived
        elif kind == "action" and entry.get("nav"):
            # A menu move written by an older version (Trap Attack's menus were journaled):
            # skipped, as it only moved a menu that the next action or the restore closes.
            continue
        elif kind == "action":
            record.steps.append(Step(dict(entry["action"]), bool(entry.get("auto"))))
        elif kind == "restore":
            at = entry.get("at")
            record.steps.append(Step(None, at=None if at is None else float(at)))
        elif kind == "undo":
            undo_steps(record.steps)
    return record


def _game_entry(
    game: str, options: dict[str, Any], rolls: tuple[int, ...], at: float, game_id: str = ""
) -> dict[str, Any]:
    entry = {"kind": "game", "game": game, "options": options, "rolls": list(rolls), "at": at}
    if game_id:
        entry["id"] = game_id
    return entry


def new_game_id() -> str:
    """Unique to one game, whatever the clocks say: its records are kept under it (two games
    started at the same moment, as every game of a replay is, or after a reboot that set the
    clock back, never share one)."""
    return secrets.token_hex(8)


def _step_entry(step: Step[Entry]) -> dict[str, Any]:
    """The entry a standing step folds back from."""
    if step.action is None:
        return {"kind": "restore"} if step.at is None else {"kind": "restore", "at": step.at}
    entry: dict[str, Any] = {"kind": "action", "action": dict(step.action)}
    if step.auto:
        entry["auto"] = True
    return entry


@dataclass(frozen=True)
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


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._seq = 0
        self._game_id = ""  # the current game's: names its file in history/
        self.warnings: list[SetAside] = []  # problems worth showing (a file set aside)
        # The storage: while it refuses writes, accepted entries wait here, oldest first, and
        # are written (in order, all or nothing) as soon as it takes them again.
        self.condition = storage.OK
        self.on_condition: Callable[[str], None] | None = None  # told of each change
        self.backlog: list[bytes] = []
        self._size = 0  # bytes of whole lines on disk: a refused write is cut back to it
        self._cut: int | None = None  # a length to cut the file back to before any write
        self._deferred: tuple[bytes, Path] | None = None  # a set-aside storage refused

    @property
    def _next(self) -> Path:
        """The file a swap writes before it takes the journal's place."""
        return self.path.with_name(f"{self.path.name}.next")

    def open(self) -> GameRecord | None:
        """Read what is there (setting a damaged file aside, keeping what still folds), then
        open for appending."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._finish_swap()
        except OSError as err:  # storage that refuses writes: the swap is finished later
            self._refused(err)
        entries: list[dict[str, Any]] = []
        try:
            data = self._read()
        except statefile.TooBig as err:
            entries = self._keep_tail_game(str(err))
        except statefile.Unreadable as err:
            self._set_aside(str(err), b"", 0)
        else:
            if data is not None:
                reading = read_journal(data, str(self.path))
                entries = reading.entries
                if reading.damage:
                    more = len(reading.damage) - 1
                    why = reading.damage[0] + (f" and {more} more damaged" if more else "")
                    self._set_aside(why, reading.kept, reading.lines)
                elif reading.sound != len(data):
                    self._cut = reading.sound  # the next append starts a clean line
        self._seq = len(entries)
        try:
            self._ready()
        except OSError as err:  # a read-only or full card: play goes on, in memory for now
            self._refused(err)
        else:
            self._set_condition(storage.probe(self.path.parent))
        record = fold(entries)
        self._game_id = record.game_id if record is not None else ""
        return record

    def _read(self) -> bytes | None:
        """The journal as it stands: a set-aside the storage refused still counts as done."""
        if self._deferred is not None:
            return self._deferred[0]
        return statefile.read_bytes(self.path, statefile.JOURNAL.cap)

    def _ready(self) -> int:
        """The descriptor to append to, with whatever a refusing storage left to do done
        first: a set-aside, the cut of a torn or refused tail. OSError if it still refuses."""
        if self._deferred is not None:
            kept, target = self._deferred
            self._swap(kept, target if not os.path.lexists(target) else None)
            self._deferred = None
            log.warning("journal %s: moved to %s now that storage takes writes", self.path, target)
        if self._fd is None:
            self._fd = durable.open_append(self.path)
            self._size = os.fstat(self._fd).st_size
            durable.fsync_dir(self.path.parent)
        if self._cut is not None:
            os.ftruncate(self._fd, self._cut)
            os.fsync(self._fd)
            self._size, self._cut = self._cut, None
        return self._fd

    def _write(self, data: bytes) -> None:
        """Append ``data`` and fsync, all or nothing: a write the storage refuses in part is
        cut back to the file as it was (now, or before the next write if even that fails), so
        no line is ever appended onto a torn one."""
        fd = self._ready()
        start = self._size
        written = 0
        try:
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except OSError:
            if not written and os.fstat(fd).st_size == start:
                raise  # refused whole: the file is as it was, nothing to cut (or fsync)
            self._cut = start
            try:
                os.ftruncate(fd, start)
                os.fsync(fd)
                self._cut = None
            except OSError:
                pass  # cut before the next write (``_ready``)
            raise
        self._size = start + len(data)

    def flush(self) -> bool:
        """Write the entries that wait for the storage, in order, all or nothing; with none
        waiting, look whether it would take one. True when the storage takes writes."""
        try:
            self._ready()
            if self.backlog:
                self._write(b"".join(self.backlog))
                if self.condition != storage.OK:
                    log.warning(
                        "journal %s: %d entries kept in memory are written",
                        self.path,
                        len(self.backlog),
                    )
                self.backlog.clear()
                self._set_condition(storage.OK)  # it took them: whatever a look said
                return True
        except OSError as err:
            self._refused(err)
            return False
        if self.condition != storage.OK:
            self._set_condition(storage.probe(self.path.parent))
        return self.condition == storage.OK

    def _refused(self, err: OSError) -> None:
        self._set_condition(storage.condition_of(err), err)

    def _set_condition(self, condition: str, err: OSError | None = None) -> None:
        """Say each change of the storage's condition once: in the log, and to the app."""
        if condition == self.condition:
            return
        self.condition = condition
        if condition == storage.OK:
            log.warning("journal %s: storage takes writes again", self.path)
        else:
            why = f" ({err.strerror or err})" if err is not None else ""
            log.error(
                "journal %s: %s%s; play goes on, its moves kept in memory until it takes them",
                self.path,
                storage.NOTICES[condition],
                why,
            )
        if self.on_condition is not None:
            self.on_condition(condition)

    def _keep_tail_game(self, why: str) -> list[dict[str, Any]]:
        """A journal past its cap (finished games piled up where history/ could not be
        written): set it aside and go on with the game in play, if it lies whole in the last
        cap's worth of bytes. Its entries, as the new journal holds them."""
        tail = statefile.read_tail(self.path, statefile.JOURNAL.cap)
        tail = tail[tail.find(b"\n") + 1 :]  # the first line is cut
        reading = read_journal(tail, str(self.path))
        games = [i for i, e in enumerate(reading.entries) if e["kind"] == "game"]
        if reading.damage or not games:
            self._set_aside(f"{why}, and the game in play does not lie whole in its end", b"", 0)
            return []
        kept = [{**e, "seq": n} for n, e in enumerate(reading.entries[games[-1] :], start=1)]
        data = b"".join(
            (json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8") for entry in kept
        )
        self._set_aside(f"{why}; the game in play is kept", data, 0)
        return kept

    def _finish_swap(self) -> None:
        """After a power cut during a swap: with the journal still in place the swap never
        happened (its next file may be partial); without it, the next file is complete."""
        if not statefile.exists(self._next):
            return
        if not statefile.is_regular(self._next):
            mode = os.lstat(self._next).st_mode
            target = durable.set_aside(self._next)
            log.error(
                "journal %s: %s was %s; moved to %s",
                self.path,
                self._next,
                durable.kind(mode),
                target,
            )
            return
        if statefile.exists(self.path):
            self._next.unlink()
        else:
            os.replace(self._next, self.path)
            log.warning("journal %s: finished a move cut short by a power cut", self.path)
        durable.fsync_dir(self.path.parent)

    def _swap(self, content: bytes, old_to: Path | None) -> None:
        """Put ``content`` in the journal's place and move the old file to ``old_to`` (None: a
        new set-aside name), so that at any moment one complete journal is on disk: the old
        one or the new one."""
        self._close_fd()
        old_to = old_to or durable.aside_name(self.path)
        try:
            durable.write_new(self._next, content)
        except OSError:
            with contextlib.suppress(OSError):  # a partial copy must not take the room
                self._next.unlink()
            raise
        durable.fsync_dir(self.path.parent)
        os.replace(self.path, old_to)  # from here on, the next file is the journal
        durable.fsync_dir(old_to.parent)
        os.replace(self._next, self.path)
        durable.fsync_dir(self.path.parent)

    def _set_aside(self, why: str, kept: bytes, lines: int) -> Path:
        target = durable.aside_name(self.path)
        try:
            self._swap(kept, target)
        except OSError as err:  # storage refusing writes: done as soon as it takes them
            self._deferred = (kept, target)
            self._refused(err)
        aside = SetAside(why, target, kept.count(b"\n"), lines)
        log.error("%s", aside)
        self.warnings.append(aside)
        return target

    def move_aside(self, why: str) -> Path:
        """Keep a journal the games cannot use for a human to look at, and start a fresh one."""
        lines = len([line for line in self.path.read_bytes().splitlines() if line.strip()])
        return self._set_aside(why, b"", lines)

    def keep_game(self, why: str, record: GameRecord, steps: int) -> Path:
        """Set aside a journal whose current game the rules refuse from one step on, and go on
        with the games before it and that game's first ``steps`` standing steps."""
        lines = [line for line in self.path.read_bytes().splitlines() if line.strip()]
        kinds = [json.loads(line)["kind"] for line in lines]  # read whole by open() already
        start = max(i for i, kind in enumerate(kinds) if kind == "game")
        self._seq = start
        kept = [line + b"\n" for line in lines[:start]]
        game = _game_entry(
            record.game, record.options, record.setup_rolls, record.started_at, record.game_id
        )
        kept.append(self._line(game))
        kept += [self._line(_step_entry(step)) for step in record.steps[:steps]]
        return self._set_aside(why, b"".join(kept), len(lines))

    def _line(self, entry: dict[str, Any]) -> bytes:
        self._seq += 1
        line = json.dumps({"v": VERSION, "seq": self._seq, **entry}, separators=(",", ":"))
        return (line + "\n").encode("utf-8")

    def append(self, entry: dict[str, Any]) -> bool:
        """Write one entry and fsync, all or nothing. True: it survives a power cut. False:
        the storage refused it (``condition`` says why); it waits in memory, after any
        others that wait, and is written when the storage takes them (``flush``)."""
        self.backlog.append(self._line(entry))
        return self.flush()

    def new_game(
        self, game: str, options: dict[str, Any], rolls: tuple[int, ...], at: float
    ) -> str:
        """Journal a new game; returns its id (``GameRecord.game_id`` when folded back)."""
        game_id = new_game_id()
        entry = _game_entry(game, options, rolls, at, game_id)
        if self._fd is not None and not self.backlog and self._size > ROTATE_BYTES:
            seq = self._seq
            try:
                self.rotate(self._line(entry))
                self._game_id = game_id
                return game_id
            except OSError as err:
                # A history/ that cannot be one only costs a longer journal: never the game.
                log.warning(
                    "journal %s: finished games stay here, not in history/: %s", self.path, err
                )
                self._seq = seq
        self.append(entry)
        self._game_id = game_id
        return game_id

    def action(self, action: Entry, auto: bool = False) -> bool:
        """An accepted action, as the JSON object the app made of it (``Action.to_json``).
        True when written (see ``append``)."""
        return self.append(_step_entry(Step(action, auto)))

    def restore(self, at: float | None = None) -> bool:
        """The app paused what a power cut or an undo interrupted (at ``at``, the moment play
        stopped, if not the last action's): the fold must do it too."""
        return self.append(_step_entry(Step(None, at=at)))

    def undo(self) -> bool:
        return self.append({"kind": "undo"})

    def rotate(self, first: bytes) -> Path:
        """Move the finished games to history/ so start-up reads only the current one, in the
        same step as the new game's first line takes their place: a power cut keeps one game."""
        history = self.path.parent / "history"
        history.mkdir(exist_ok=True)
        if not stat.S_ISDIR(os.lstat(history).st_mode):  # a link: the finished games stay here
            raise NotADirectoryError(errno.ENOTDIR, "not a folder of its own", str(history))
        target = self._history_name(history)
        try:
            self._swap(first, target)
        except OSError:
            with contextlib.suppress(OSError):
                if os.lstat(target).st_size == 0:  # still only the name it took
                    target.unlink()
            raise
        log.info("journal history moved to %s", target)
        try:
            self._ready()
        except OSError as err:  # the move is done: the next append opens it again
            self._refused(err)
        return target

    def take_up(self, entries: list[dict[str, Any]], game_id: str) -> Path:
        """A game set aside becomes the journal whole (its entries in one swap, so a power cut
        keeps the old journal or the new one); the old file goes to history/ (shelf.py). Not
        while entries wait for the storage: they belong to the old file."""
        if self.backlog and not self.flush():
            raise OSError(errno.ENOSPC, "entries still wait for the storage", str(self.path))
        target = self.rotate(b"".join(self._line(entry) for entry in entries))
        self._game_id = game_id
        return target

    def _history_name(self, history: Path) -> Path:
        """A name in history/ no other file has or will have: the finished game's id in it, and
        taken exclusively (numbered if a power cut left one), so no move ever overwrites a
        file there, whatever the clock says or how often the box restarts."""
        base = f"journal-{time.strftime('%Y%m%dT%H%M%S')}-{self._game_id or self._seq}"
        n = 1
        while True:
            target = history / (f"{base}.jsonl" if n == 1 else f"{base}-{n}.jsonl")
            try:
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, durable.OWNER_MODE))
            except FileExistsError:
                n += 1
                continue
            return target

    def close(self) -> None:
        """A last try at what waits for the storage, then closed."""
        if self.backlog and not self.flush():
            log.error(
                "journal %s: %d entries not written at the stop (%s)",
                self.path,
                len(self.backlog),
                storage.NOTICES[self.condition],
            )
            self.backlog.clear()
        self._close_fd()

    def _close_fd(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
