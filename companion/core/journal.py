"""The journal: every accepted action, appended and fsync'ed before the screen changes.

One JSON object a line. Folding it rebuilds the current game exactly, because every action
carries its dice and its time. Power may be cut mid-write: a torn last line is dropped (it was
never acknowledged, since acknowledgement comes after fsync). Every entry's shape is checked
when read; a damaged line sets the file aside (never deleted, never a reason to crash at every
boot) and the journal goes on with what still folds. The journal is only ever replaced whole
(a new file written, then renamed), so a power cut leaves the old file or the new one.

The journal's bound: a game of any length keeps a journal of bounded size. When the app's game
in play has folded its older steps into a checkpoint (its state after them, a JSON value the
app made: the journal never reads it), or the game's lines pile up (undo after undo), the file
is replaced whole by what it held before the game, the game's entry, its ``checkpoint`` and its
standing steps after it (``compact``). Both files fold to the same game. Start-up reads the
file line by line and keeps only the game in play (``Folder``).

Every line carries the journal's format version (``v``; a line without one is version 1). A
line of a newer version than ``VERSION`` is a newer release's (rolled back from): the whole file
is refused (``formats.NewerFormat``), never folded, set aside or written to; play goes on in
memory under the storage condition ``newer`` until that file is taken away (core/formats.py).
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import math
import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from companion.core import durable, formats, statefile, storage
from companion.core.nesting import json_too_deep
from companion.core.values import value

log = logging.getLogger(__name__)

VERSION = 1
KINDS = ("game", "action", "undo", "restore", "checkpoint")
GAME_ID = re.compile(r"[0-9a-f]{0,32}")
ROTATE_BYTES = 256 * 1024  # past this, a new game starts a fresh file; the old one is kept
# The journal's bound (the app folds a game's older steps into a checkpoint: app/session.py).
# Past this many lines of the game in play (undo after undo piles up lines, not steps), the
# file is made shorter too; a compaction the storage refused is tried again this many later.
GAME_LINES = 3000
COMPACT_RETRY_LINES = 200
# A line's text, as json.dumps with these separators writes it, by one encoder made once (not
# one a line: a compaction writes hundreds).
_ENCODE = json.JSONEncoder(separators=(",", ":")).encode
# The error a condition of the storage is told by, where no error of a write is at hand.
_ERRNO = {
    storage.FULL: errno.ENOSPC,
    storage.READ_ONLY: errno.EROFS,
    storage.FAILING: errno.EIO,
    storage.NEWER: errno.EPERM,
}


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
    elif kind == "checkpoint":
        if "state" not in entry:
            return "a checkpoint without a state"
        if not _finite(entry.get("at", 0.0)):
            return "a checkpoint whose time is not a number"
        steps = entry.get("steps", 0)
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
            return "a checkpoint whose count of steps is not a whole number"
    return None


def _parse(raw: bytes, where: Path | str = "the journal") -> tuple[dict[str, Any] | None, str]:
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
            entry, why = _parse(raw, where)
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
    clock back, never share one). ``os.urandom`` is what ``secrets.token_hex`` reads, without
    the hmac and hashlib it imports."""
    return os.urandom(8).hex()


def game_lines(record: GameRecord) -> list[dict[str, Any]]:
    """A game as journal entries: its start, its checkpoint and its standing steps."""
    first = _game_entry(
        record.game, dict(record.options), record.setup_rolls, record.started_at, record.game_id
    )
    checkpoint = [record.checkpoint.entry()] if record.checkpoint is not None else []
    return [first, *checkpoint, *(_step_entry(step) for step in record.steps)]


def _step_entry(step: Step[Entry]) -> dict[str, Any]:
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
        # A swap the storage refused after its moment (the old file moved away): the folder
        # the old file went to, whose fsync, the last rename and the journal's folder's fsync
        # are still to do, before any write (``_swap_rest``).
        self._swap_left: Path | None = None
        # The game in play as the file holds it: its lines (its entry first, waiting ones
        # included) and the steps its checkpoint holds (``compact`` keeps them bounded).
        self.game_lines = 0
        self.base_steps = 0
        self._compact_after = 0  # a compaction the storage refused: tried again past this
        # A newer release's journal (rolled back from): left as it is, nothing written to it
        # while it is there; play goes on in memory (the storage condition ``newer``).
        self.newer: formats.NewerFormat | None = None

    @property
    def _tmp(self) -> Path:
        """The file a compaction writes before it takes the journal's place."""
        return self.path.with_name(f"{self.path.name}.tmp")

    @property
    def _next(self) -> Path:
        """The file a swap writes before it takes the journal's place."""
        return self.path.with_name(f"{self.path.name}.next")

    @property
    def _live(self) -> Path:
        """The file that is the journal: its own, or the next file while the last rename of a
        swap waits for the storage."""
        if self._swap_left is not None and not statefile.exists(self.path):
            return self._next
        return self.path

    def open(self) -> GameRecord | None:
        """Read what is there (setting a damaged file aside, keeping what still folds), then
        open for appending."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._finish_swap()
        except OSError as err:  # storage that refuses writes: the swap is finished later
            if not statefile.exists(self.path) and statefile.is_regular(self._next):
                self._swap_left = self.path.parent  # the next file is the journal until then
            self._refused(err)
        with contextlib.suppress(OSError):  # a compaction a power cut left half written
            durable.clear_leftover(self._tmp)
        try:
            folder = self._read_or_keep()
        except formats.NewerFormat as err:  # met before anything is set aside, cut or written
            folder = Folder()
            self._cut = None
            self.newer = err
            log.error("journal %s; play goes on, its moves not saved while it is there", err)
        self._seq = max(folder.entries, folder.seq)  # numbers go on from the file's last
        try:
            self._ready()
        except OSError as err:  # a read-only or full card: play goes on, in memory for now
            self._refused(err)
        else:
            self._set_condition(storage.probe(self.path.parent))
        record = folder.record
        self._game_id = record.game_id if record is not None else ""
        self.game_lines = folder.game_lines if record is not None else 0
        checkpoint = record.checkpoint if record is not None else None
        self.base_steps = checkpoint.steps if checkpoint is not None else 0
        return record

    def _read_or_keep(self) -> Folder:
        """The journal folded: streamed, else read whole (damaged), else its end (too big) or
        nothing (unreadable), the rest set aside. NewerFormat before any of that."""
        try:
            folder = self._stream() if self._deferred is None else None
            if folder is None:  # damaged, or set aside already: read whole
                folder = self._read_whole()
        except statefile.TooBig as err:
            folder = Folder()
            for entry in self._keep_tail_game(str(err)):
                folder.take(entry)
        except statefile.Unreadable as err:
            folder = Folder()
            self._set_aside(str(err), b"", 0)
        return folder

    def _stream(self) -> Folder | None:
        """The journal folded a line at a time, keeping only the game in play. A damaged line
        gives up (None): ``_read_whole`` then keeps what still folds."""
        folder = Folder()
        sound = 0
        with statefile.lines_of(self._live, statefile.JOURNAL.cap) as lines:
            if lines is None:
                return folder
            for number, raw in enumerate(lines, start=1):
                if not raw.endswith(b"\n"):  # after the last newline: a line torn by a cut
                    if raw.strip():
                        log.warning(
                            "journal %s: dropped a torn last line (%d bytes) left by a power cut",
                            self.path,
                            len(raw),
                        )
                    self._cut = sound  # the next append starts a clean line
                    break
                sound += len(raw)
                if not raw.strip():
                    continue
                entry, _ = _parse(raw[:-1], self.path)
                if entry is None:
                    return None
                folder.take(entry, number)
        return folder

    def _read_whole(self) -> Folder:
        """The journal read whole, as a damaged one must be: what still folds is kept and the
        file set aside."""
        self._cut = None
        folder = Folder()
        data = self._read()
        if data is None:
            return folder
        reading = read_journal(data, str(self.path))
        for entry in reading.entries:
            folder.take(entry)
        if reading.damage:
            more = len(reading.damage) - 1
            why = reading.damage[0] + (f" and {more} more damaged" if more else "")
            self._set_aside(why, reading.kept, reading.lines)
        elif reading.sound != len(data):
            self._cut = reading.sound  # the next append starts a clean line
        return folder

    def _read(self) -> bytes | None:
        """The journal as it stands: a set-aside the storage refused still counts as done."""
        if self._deferred is not None:
            return self._deferred[0]
        return statefile.read_bytes(self._live, statefile.JOURNAL.cap)

    def _ready(self) -> int:
        """The descriptor to append to, with whatever a refusing storage left to do done
        first: a set-aside, the rest of a swap, the cut of a torn or refused tail. OSError if it
        still refuses; ``formats.Refused`` while a newer release's journal is there."""
        if self.newer is not None:
            if statefile.exists(self.path):
                raise formats.Refused(self.newer)
            log.warning("journal %s: the newer release's file is gone: saved again", self.path)
            self.newer = None
        if self._deferred is not None:
            kept, target = self._deferred
            self._swap(kept, target if not os.path.lexists(target) else None)
            self._deferred = None
            log.warning("journal %s: moved to %s now that storage takes writes", self.path, target)
        if self._swap_left is not None:  # never a fresh file where the swapped-in one goes
            self._swap_rest()
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
            said = err is None or isinstance(err, formats.Refused)  # the refusal said it all
            why = "" if said else f" ({err.strerror or err})"
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
        tail = statefile.read_tail(self._live, statefile.JOURNAL.cap)
        tail = tail[tail.find(b"\n") + 1 :]  # the first line is cut
        reading = read_journal(tail, str(self.path))
        games = [i for i, e in enumerate(reading.entries) if e["kind"] == "game"]
        if reading.damage or not games:
            self._set_aside(f"{why}, and the game in play does not lie whole in its end", b"", 0)
            return []
        kept = [{**e, "seq": n} for n, e in enumerate(reading.entries[games[-1] :], start=1)]
        data = b"".join((_ENCODE(entry) + "\n").encode("utf-8") for entry in kept)
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

    def _swap(self, content: bytes, old_to: Path | None) -> OSError | None:
        """Put ``content`` in the journal's place and move the old file to ``old_to`` (None: a
        new set-aside name), so that at any moment one complete journal is on disk: the old
        one or the new one.

        The swap happens when the old file moves away (a start finishes it from there). A step
        refused before that raises OSError: nothing changed, the old file is the journal. A
        step refused after it (an fsync, the last rename) is returned: the swap stands, the
        journal's condition says the storage refused it, and the rest is done before the next
        write (``_swap_rest``), never a fresh file in the journal's place meanwhile."""
        if self.newer is not None and statefile.exists(self.path):
            raise formats.Refused(self.newer)  # never moved from its place
        if self._swap_left is not None:  # the last swap first: its next file is the journal
            self._swap_rest()
        self._close_fd()
        old_to = old_to or durable.aside_name(self.path)
        try:
            durable.write_new(self._next, content)
            durable.fsync_dir(self.path.parent)
            os.replace(self.path, old_to)  # the moment: from here on, the next file is the journal
        except OSError:
            if statefile.exists(self.path) or not statefile.exists(self._next):
                with contextlib.suppress(OSError):  # a partial or unused copy takes no room
                    self._next.unlink()
                raise
            # no old file in the journal's place all the same (moved by a rename that said it
            # failed, or none there): the next file is the journal, the swap stands
        self._swap_left = old_to.parent
        try:
            self._swap_rest()
        except OSError as err:
            log.error(
                "journal %s: the swap stands, but the storage refused a step after it (%s); "
                "finished before the next write or at the next start",
                self.path,
                err.strerror or err,
            )
            self._refused(err)
            return err
        return None

    def _swap_rest(self) -> None:
        """What a swap does after its moment, each step done again until all are: the old
        file's folder fsync'ed, the next file renamed into the journal's place, the journal's
        folder fsync'ed. OSError while the storage refuses one."""
        left = self._swap_left
        if left is None:
            return
        durable.fsync_dir(left)
        if not statefile.exists(self.path):
            os.replace(self._next, self.path)
        durable.fsync_dir(self.path.parent)
        self._swap_left = None

    def _set_aside(self, why: str, kept: bytes, lines: int) -> Path:
        target = durable.aside_name(self.path)
        try:
            self._swap(kept, target)  # refused after its moment: done, the rest waits
        except OSError as err:  # storage refusing writes: done as soon as it takes them
            self._deferred = (kept, target)
            self._refused(err)
        aside = SetAside(why, target, kept.count(b"\n"), lines)
        log.error("%s", aside)
        self.warnings.append(aside)
        return target

    def move_aside(self, why: str) -> Path:
        """Keep a journal the games cannot use for a human to look at, and start a fresh one."""
        lines = len([line for line in self._live.read_bytes().splitlines() if line.strip()])
        return self._set_aside(why, b"", lines)

    def keep_game(self, why: str, record: GameRecord, steps: int) -> Path:
        """Set aside a journal whose current game the rules refuse from one step on, and go on
        with the games before it and that game's first ``steps`` standing steps."""
        lines = [line for line in self._live.read_bytes().splitlines() if line.strip()]
        entries = [json.loads(line) for line in lines]  # read whole by open() already
        start = max(i for i, entry in enumerate(entries) if entry["kind"] == "game")
        self._seq = max([start, *(e.get("seq", 0) for e in entries[:start])])
        kept = [line + b"\n" for line in lines[:start]]
        head = replace(record, steps=record.steps[:steps])
        kept += [self._line(entry) for entry in game_lines(head)]
        return self._set_aside(why, b"".join(kept), len(lines))

    def _line(self, entry: dict[str, Any]) -> bytes:
        self._seq += 1
        line = _ENCODE({"v": VERSION, "seq": self._seq, **entry})
        return (line + "\n").encode("utf-8")

    def append(self, entry: dict[str, Any]) -> bool:
        """Write one entry and fsync, all or nothing. True: it survives a power cut. False:
        the storage refused it (``condition`` says why); it waits in memory, after any
        others that wait, and is written when the storage takes them (``flush``)."""
        self.backlog.append(self._line(entry))
        self.game_lines = 1 if entry.get("kind") == "game" else self.game_lines + 1
        if entry.get("kind") == "game":
            self.base_steps = 0
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
                self.game_lines, self.base_steps = 1, 0
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

    def rotate(self, first: bytes) -> OSError | None:
        """Move the finished games to history/ so start-up reads only the current one, in the
        same step as the new game's first line takes their place: a power cut keeps one game.
        OSError raised: nothing moved. Returned: moved, a step after that refused (``_swap``)."""
        history = self.path.parent / "history"
        history.mkdir(exist_ok=True)
        if not stat.S_ISDIR(os.lstat(history).st_mode):  # a link: the finished games stay here
            raise NotADirectoryError(errno.ENOTDIR, "not a folder of its own", str(history))
        target = self._history_name(history)
        try:
            left = self._swap(first, target)
        except OSError:
            with contextlib.suppress(OSError):
                if os.lstat(target).st_size == 0:  # still only the name it took
                    target.unlink()
            raise
        log.info("journal history moved to %s", target)
        if left is not None:  # the rest is done before the next write
            return left
        try:
            self._ready()
        except OSError as err:  # the move is done: the next append opens it again
            self._refused(err)
        return None

    def take_up(self, entries: list[dict[str, Any]], game_id: str) -> OSError | None:
        """A game set aside becomes the journal whole (its entries in one swap, so a power cut
        keeps the old journal or the new one); the old file goes to history/ (shelf.py). Not
        while entries wait for the storage: they belong to the old file.

        OSError raised: the old journal is the journal still, whole. Returned: the game is
        taken up, but the storage refused a step after the moment of the swap; the journal's
        condition says so and the rest is done before its next write (``_swap``)."""
        if self.backlog and not self.flush():
            why = _ERRNO.get(self.condition, errno.EIO)
            raise OSError(why, "moves still wait for the storage", str(self.path))
        seq = self._seq
        try:
            left = self.rotate(b"".join(self._line(entry) for entry in entries))
        except OSError:
            self._seq = seq
            raise
        self._game_id = game_id
        self.game_lines = len(entries)
        checkpoints = [e for e in entries if e["kind"] == "checkpoint"]
        self.base_steps = checkpoints[-1].get("steps", 0) if checkpoints else 0
        return left

    def end_game(self) -> OSError | None:
        """The game in play leaves the journal with none after it (set aside to wait, or ended
        to history, as the table answered): the file goes to history/ whole and an empty one
        takes its place, in one swap (``rotate``). Raised and returned as ``take_up``."""
        if self.backlog and not self.flush():
            why = _ERRNO.get(self.condition, errno.EIO)
            raise OSError(why, "moves still wait for the storage", str(self.path))
        seq = self._seq
        try:
            left = self.rotate(b"")
        except OSError:
            self._seq = seq
            raise
        self._game_id = ""
        self.game_lines, self.base_steps = 0, 0
        return left

    def compact(self, record: GameRecord) -> bool:
        """Replace the journal whole by what it holds before the game in play, then that game
        as ``record`` has it (its entry, its checkpoint, its standing steps): a new file,
        fsync'ed, renamed over the old one, the folder fsync'ed, so a power cut leaves the old
        file or the new one, and both fold to the same game. False (logged) when the storage
        does not take it now: the old file stands and still folds to the game, and the next
        compaction is tried once more lines have come."""
        if self.backlog and not self.flush():
            return False
        if self._deferred is not None or self._cut is not None or self._swap_left is not None:
            return False
        if self.newer is not None:
            return False
        entries = game_lines(record)
        try:
            head = self._before_game()
            body = b"".join(self._line(entry) for entry in entries)
            self._close_fd()
            try:
                durable.replace_whole(self.path, head + body)
            finally:
                self._ready()
        except (OSError, statefile.Unreadable) as err:
            self.postpone_compaction()
            log.warning(
                "journal %s: not made shorter now (%s); it still holds the game", self.path, err
            )
            return False
        self.game_lines = len(entries)
        self.base_steps = record.checkpoint.steps if record.checkpoint is not None else 0
        self._compact_after = 0
        log.info(
            "journal %s: the game in play kept as a checkpoint and %d steps (%d bytes)",
            self.path,
            len(record.steps),
            len(head) + len(body),
        )
        return True

    def postpone_compaction(self) -> None:
        """Try the next compaction only once some lines more have come."""
        self._compact_after = self.game_lines + COMPACT_RETRY_LINES

    def compaction_due(self, base_steps: int) -> bool:
        """Whether the file should be made shorter now: the game's checkpoint moved on (the app
        folded ``base_steps`` standing steps into it), or its lines piled up past
        ``GAME_LINES`` (undo after undo)."""
        if self.game_lines <= 0 or self.game_lines <= self._compact_after:
            return False
        if self.backlog or self.condition != storage.OK:  # once the storage takes them again
            return False
        return base_steps != self.base_steps or self.game_lines > GAME_LINES

    def _before_game(self) -> bytes:
        """The file up to the game in play's entry (the games before it)."""
        data = statefile.read_bytes(self.path, statefile.JOURNAL.cap) or b""
        end = len(data)
        while end > 0:
            start = data.rfind(b"\n", 0, end - 1) + 1
            line = data[start:end]
            if b'"game"' in line:  # a look before the parse: most lines are not
                entry, _ = _parse(line.rstrip(b"\n"), self.path)
                if entry is not None and entry["kind"] == "game":
                    return data[:start]
            end = start
        raise statefile.Unreadable(self.path, "holds no game in play")

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
