"""Games set aside: at most one unfinished game of each kind waits here, to be taken up again.

They live in one file of the state directory (``WAITING``), in the journal's own lines: each
game's ``game`` entry, its ``checkpoint`` if it has one, and its standing steps. A change (a
game set aside, one taken up) is made in three moves, so that a power cut at any moment leaves
the old arrangement or the new one, never a lost game:

1. ``plan``: the waiting games as they will be are written whole to ``waiting.jsonl.next``,
   with the identity of the game in play *before* the change (``was``);
2. the journal changes its game in play (a new game appended, or a waiting game swapped in
   whole): this is the moment the change happens;
3. ``settle``: with the journal's game in play no longer ``was``, the next file takes the
   waiting file's place (the games it drops that are not in play go to history/ first); with
   it still ``was``, the change never happened and the next file is removed.

``settle`` runs again at every start, so a cut between the moves is finished or undone there.
A change the storage refuses before move 2 happens (a write, an fsync, a rename failing, the
box running on) drops its plan at once (``drop_plan``).
A waiting game that is also the journal's game in play (a cut after a game was taken up) is
dropped from the waiting file: the journal holds it.

The header and every line carry the format version (``v``; none is version 1). A waiting file
(or a next file) of a newer version is a newer release's: no game waits, and neither file is
moved, rewritten or removed while it is there (``formats.Refused`` for a change).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import time
from pathlib import Path
from typing import Any

from companion.core import durable, formats, statefile
from companion.core.journal_lines import GameRecord, fold, game_lines, read_journal
from companion.core.nesting import json_too_deep
from companion.core.values import value

log = logging.getLogger(__name__)

WAITING = statefile.WAITING.name  # the file of games set aside, in the one list of kept files
VERSION = 1


def identity(record: GameRecord | None) -> str | None:
    """What tells one game from another: its id, or for journals before ids, its start."""
    if record is None:
        return None
    return record.game_id or f"{record.game}@{record.started_at:.6f}"


def lines(record: GameRecord) -> list[dict[str, Any]]:
    """A game as journal entries: its start, its checkpoint (a long game's older steps, folded:
    the waiting file stays as bounded as the journal) and its standing steps."""
    return game_lines(record)


def _encode(entries: list[dict[str, Any]]) -> bytes:
    numbered = [{"v": VERSION, "seq": n, **e} for n, e in enumerate(entries, start=1)]
    return b"".join((json.dumps(e, separators=(",", ":")) + "\n").encode() for e in numbered)


@value
class Waiting:
    """The games waiting, by kind (the game's registry name), in the order they were set aside."""

    games: dict[str, GameRecord]
    was: str | None = None  # in a next file: the game in play before the change
    # Written by a box that never lets an ended game wait; a file without it may hold one (an
    # older box set aside games that had ended), which the next start sends to history/.
    no_ended: bool = True


def _segments(entries: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = []
    for entry in entries:
        if entry["kind"] == "game":
            out.append([entry])
        elif out:
            out[-1].append(entry)
    return out


class CutShort(statefile.Unreadable):
    """A waiting file whose last line is cut off: a file written whole and renamed into place
    is never torn by a power cut, so something else cut it (a card failing, a hand). The games
    whole in it go on (``waiting``); a copy of it as it was is kept (``data``)."""

    def __init__(self, path: Path, waiting: Waiting, data: bytes) -> None:
        super().__init__(path, "cut short: its last line is incomplete")
        self.waiting, self.data = waiting, data


def _read(path: Path) -> Waiting | None:
    """A waiting file, or None when there is none. Unreadable (set aside by the caller) when it
    is not one the box wrote; CutShort when its last line is cut off."""
    data = statefile.read_bytes(path, statefile.WAITING.cap)
    if data is None:
        return None
    head, _, rest = data.partition(b"\n")
    try:
        header = None if json_too_deep(head) else json.loads(head.decode("utf-8"))
    except ValueError:
        header = None
    if isinstance(header, dict):
        formats.check(header.get("v"), VERSION, path)
    if not isinstance(header, dict) or header.get("kind") != "waiting":
        raise statefile.Unreadable(path, "does not start as a file of games set aside")
    was = header.get("was")
    no_ended = header.get("no_ended") is True
    reading = read_journal(rest, str(path))
    if reading.damage or (was is not None and not isinstance(was, str)):
        raise statefile.Unreadable(path, reading.damage[0] if reading.damage else "bad header")
    games: dict[str, GameRecord] = {}
    for segment in _segments(reading.entries):
        record = fold(segment)
        if record is not None:
            games[record.game] = record
    if reading.sound < len(rest) or (rest and not data.endswith(b"\n")):
        raise CutShort(path, Waiting(games, was, no_ended), data)
    return Waiting(games, was, no_ended)


def _write(path: Path, waiting: Waiting) -> None:
    header = {"v": VERSION, "kind": "waiting", "was": waiting.was, "no_ended": waiting.no_ended}
    header = json.dumps(header) + "\n"
    body = [entry for record in waiting.games.values() for entry in lines(record)]
    durable.write_new(path, header.encode() + _encode(body))


class Shelf:
    """The games set aside in ``state_dir``, as the App keeps and changes them."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / WAITING
        self.next = state_dir / f"{WAITING}.next"
        self.history = state_dir / "history"
        self.games: dict[str, GameRecord] = {}
        self.checked = True  # False: the waiting file may hold a game that has ended (retire)
        self.newer: formats.NewerFormat | None = None  # a newer release's file: left alone

    def open(
        self, in_play: GameRecord | None, journal_newer: formats.NewerFormat | None = None
    ) -> dict[str, GameRecord]:
        """Read the waiting games, finishing or undoing a change a power cut interrupted. A
        newer release's file, this one or the journal (``journal_newer``: its game in play is
        not known): none wait, nothing is touched (``newer`` says why)."""
        if journal_newer is not None:
            self.refuse(journal_newer)
            return self.games
        with contextlib.suppress(formats.Refused):  # refused, and said so
            self.settle(in_play)
        return self.games

    def refuse(self, err: formats.NewerFormat) -> None:
        """Leave the files as they are: no game waits, and no change is written while a newer
        release's file is there (the journal's is one too: its game in play is not known)."""
        if self.newer is None:
            log.error("games set aside: %s; none wait meanwhile", err)
        self.newer, self.games, self.checked = err, {}, True

    def _refusing(self) -> None:
        if self.newer is not None:
            raise formats.Refused(self.newer)

    def _load(self, path: Path) -> Waiting | None:
        try:
            return _read(path)
        except CutShort as cut:  # the whole games go on; the file as it was is kept, and said
            if path == self.next:  # torn by a cut while move 1 wrote it: the plan never was
                log.info("games set aside: %s was cut while it was written", path)
                return None
            copy = durable.aside_name(path)
            try:
                durable.write_new(copy, cut.data)
            except OSError as err:
                where = f"no copy could be kept ({err.strerror or err})"
            else:
                where = f"a copy of it as it was is in {copy}"
            log.error(
                "games set aside: %s is cut short (its last line is incomplete); %s; the %d "
                "games whole in it wait on, the cut one without its last step",
                path,
                where,
                len(cut.waiting.games),
            )
            return cut.waiting
        except statefile.Unreadable as err:
            statefile.set_aside(path, f"games set aside: {err}", "the box goes on without it")
            return None

    def plan(self, games: dict[str, GameRecord], was: GameRecord | None) -> None:
        """Move 1: the waiting games as they will be once the journal has changed its game."""
        self._refusing()
        _write(self.next, Waiting(games, identity(was), self.checked))
        durable.fsync_dir(self.next.parent)

    def drop_plan(self) -> None:
        """A change the journal refused (its game in play never changed): the plan goes, so
        that no later change of the game in play passes for it. A start drops it too."""
        if self.newer is not None:
            return
        try:
            self.next.unlink(missing_ok=True)
            durable.fsync_dir(self.next.parent)
        except OSError as err:
            log.warning("games set aside: %s not removed (%s); at the next start", self.next, err)

    def settle(self, in_play: GameRecord | None) -> None:
        """Move 3 (and the start's check): keep the planned games if the journal's game in play
        changed since the plan, else the old ones; a game in play never also waits.
        ``formats.Refused`` (nothing changed) when either file is a newer release's."""
        self._refusing()
        try:
            self._settle(in_play)
        except formats.NewerFormat as err:
            self.refuse(err)
            raise formats.Refused(err) from None

    def _settle(self, in_play: GameRecord | None) -> None:
        current = identity(in_play)
        now = self._load(self.path) if statefile.exists(self.path) else None
        games = dict(now.games) if now else {}
        checked = now.no_ended if now else True
        planned = None
        if statefile.exists(self.next) and _empty(self.next):
            # a cut while move 1 wrote it, before a byte was on the card: no plan, no damage
            log.info("games set aside: %s is empty (a cut while it was written)", self.next)
        elif statefile.exists(self.next):
            planned = self._load(self.next)
        if planned is not None and planned.was != current:  # the change happened
            dropped = [
                r for k, r in games.items() if identity(r) != current and planned.games.get(k) != r
            ]
            if dropped:
                self._to_history(dropped)
            os.replace(self.next, self.path)
            durable.fsync_dir(self.path.parent)
            games = dict(planned.games)
            checked = planned.no_ended
        elif statefile.exists(self.next):  # never happened (or unreadable, set aside already)
            self.next.unlink(missing_ok=True)
            durable.fsync_dir(self.path.parent)
        kept = {k: r for k, r in games.items() if identity(r) != current}
        if kept != games:  # taken up, and the cut came before the file knew it
            _write_whole(self.path, kept, checked)
        self.games, self.checked = kept, checked

    def retire(self, records: list[GameRecord]) -> None:
        """Waiting games that are over: kept in history/, no longer waiting; the file then says
        that none of its games has ended (none: it is only marked so)."""
        self._refusing()
        if records:
            self._to_history(records)
        kept = {k: r for k, r in self.games.items() if r not in records}
        _write_whole(self.path, kept, no_ended=True)
        self.games, self.checked = kept, True

    def _to_history(self, records: list[GameRecord]) -> None:
        """Games replaced by a newer one of their kind: kept in history/ for good."""
        self.history.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        target = self.history / f"set-aside-{stamp}-{identity(records[0])}.jsonl"
        n = 1
        while os.path.lexists(target):
            n += 1
            target = self.history / f"set-aside-{stamp}-{n}-{identity(records[0])}.jsonl"
        body = _encode([entry for record in records for entry in lines(record)])
        durable.write_new(target, body)
        durable.fsync_dir(self.history)
        log.info("games set aside before, replaced: kept in %s", target)


def _empty(path: Path) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == 0


def _write_whole(path: Path, games: dict[str, GameRecord], no_ended: bool = True) -> None:
    tmp = path.with_name(f"{path.name}.tmp")
    _write(tmp, Waiting(games, None, no_ended))
    os.replace(tmp, path)
    durable.fsync_dir(path.parent)
