"""The journal: every accepted action, appended and fsync'ed before the screen changes.

What a line is and how a file is read and folded: core/journal_lines.py. Here, the file the box
appends to: opened (read through ``stream``, a damaged one set aside), appended to and fsync'ed,
entries kept in memory while the storage refuses writes, finished games moved to history/. The
journal is only ever replaced whole (a new file written, then renamed), so a power cut leaves
the old file or the new one.

The journal's bound: a game of any length keeps a journal of bounded size. When the app's game
in play has folded its older steps into a checkpoint (its state after them, a JSON value the
app made: the journal never reads it), or the game's lines pile up (undo after undo), the file
is replaced whole by what it held before the game, the game's entry, its ``checkpoint`` and its
standing steps after it (``compact``). Both files fold to the same game.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import stat
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.core import durable, formats, statefile, storage
from companion.core.journal_lines import (
    VERSION,
    Entry,
    Folder,
    GameRecord,
    SetAside,
    Step,
    game_entry,
    game_in_tail,
    game_lines,
    new_game_id,
    parse_line,
    read_journal,
    step_entry,
    stream,
)

log = logging.getLogger(__name__)

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
        with statefile.lines_of(self._live, statefile.JOURNAL.cap) as lines:
            if lines is None:
                return Folder()
            folder, cut = stream(lines, self.path)
        if cut is not None:
            self._cut = cut  # the next append starts a clean line
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
        kept = game_in_tail(tail, str(self.path))
        if kept is None:
            self._set_aside(f"{why}, and the game in play does not lie whole in its end", b"", 0)
            return []
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
        entry = game_entry(game, options, rolls, at, game_id)
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
        return self.append(step_entry(Step(action, auto)))

    def restore(self, at: float | None = None) -> bool:
        """The app paused what a power cut or an undo interrupted (at ``at``, the moment play
        stopped, if not the last action's): the fold must do it too."""
        return self.append(step_entry(Step(None, at=at)))

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
                entry, _ = parse_line(line.rstrip(b"\n"), self.path)
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
