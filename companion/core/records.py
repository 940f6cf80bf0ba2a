"""Results of finished games, kept across games and restarts (the solo mode's fewest rolls).

Rules stay pure: a game only says what its finished state amounts to (``result(state)``, a
small dict); the app dates it with the wall clock and keeps it here, in ``records.json`` in the
state directory. The file is written whole (temp file, fsync, rename; mode 0640), so a power
cut leaves the old records or the new ones; a file that cannot be read is set aside with a
notice and the box starts with no records, never a crash.

Each result belongs to one game session (``key``): when the same game ends again after an
undo, its result replaces the old one, and an undo past the end withdraws it.

The file says its format (``version``; none is version 1). One of a newer version is a newer
release's: it is left as it is, the box starts with no records and writes none over it
(``formats.Refused``) while it is there.
"""

from __future__ import annotations

import errno
import json
import logging
from collections.abc import Mapping
from dataclasses import asdict, field, replace
from pathlib import Path
from typing import Any

from companion.core import formats, statefile
from companion.core.durable import replace_whole
from companion.core.values import value
from companion.errors import DataError

log = logging.getLogger(__name__)

RECORDS_FILE = statefile.RECORDS.name
VERSION = 1
KEEP = 500  # results kept per game and board; the oldest go first
SHOWN_BEST = 10  # the best results are never dropped
BETTER = ("lower", "higher")


@value
class Result:
    """One finished game: how it went (``score`` in ``unit``, lower or higher is better)."""

    key: str
    game: str
    board: str  # which table of records, e.g. "solo"
    won: bool
    score: int
    better: str
    unit: str
    date: str  # the day it was played, YYYY-MM-DD; "" while the clock was not known right
    details: dict[str, int] = field(default_factory=dict)

    @property
    def shown_date(self) -> str:
        return self.date or "undated"

    def rank_key(self) -> tuple[int, str]:
        """Sorts the best first; on equal scores the earlier game first."""
        return (self.score if self.better == "lower" else -self.score, self.date)


def from_report(key: str, game: str, report: Mapping[str, Any], date: str) -> Result:
    """A game's ``result(state)`` dict, checked, as a dated record (ValueError if malformed:
    that is a bug in the game, not bad data)."""
    board, unit, better = (report.get(k) for k in ("board", "unit", "better"))
    score, won = report.get("score"), report.get("won")
    if not (isinstance(board, str) and isinstance(unit, str) and better in BETTER):
        raise ValueError(f"{game}: a result needs board, unit and better, got {dict(report)}")
    if not isinstance(score, int) or isinstance(score, bool) or not isinstance(won, bool):
        raise ValueError(f"{game}: a result needs a whole score and won, got {dict(report)}")
    details = {
        k: v
        for k, v in report.items()
        if k not in ("board", "unit", "better", "score", "won")
        and isinstance(v, int)
        and not isinstance(v, bool)
    }
    return Result(key, game, board, won, score, str(better), unit, date, details)


def _parse(data: Any, where: str) -> list[Result]:
    if isinstance(data, dict):
        formats.check(data.get("version"), VERSION, where)
        if "version" not in data:
            data = {**data, "version": 1}  # written before versions
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise DataError(f"{where}: not a version {VERSION} records file")
    items = data.get("results")
    if not isinstance(items, list):
        raise DataError(f"{where}: 'results' must be a list")
    out = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise DataError(f"{where}: result {i} is not a table")
        try:
            report = {**item.get("details", {}), **item}
            result = from_report(str(item["key"]), str(item["game"]), report, str(item["date"]))
        except (KeyError, TypeError, ValueError) as err:
            raise DataError(f"{where}: result {i} is malformed ({err})") from None
        out.append(result)
    return out


class Records:
    def __init__(self, path: Path, read: bool = True) -> None:
        self.path = path
        self.results: list[Result] = []
        self.newer: formats.NewerFormat | None = None  # a newer release's file: left alone
        self.blocked: statefile.NoAccess | None = None  # one this process may not open: kept
        if read:
            try:
                text = statefile.read_text(path, statefile.RECORDS.cap)
                if text is not None:
                    self.results = _parse(statefile.parse_json(path, text), str(path))
            except statefile.Unreadable as err:
                raise DataError(f"{path}: records unreadable: {err.why}") from None

    @classmethod
    def open_or_set_aside(cls, path: Path) -> tuple[Records, str]:
        """For the daemon: damaged records are kept aside for a human, never a reason to stop."""
        try:
            return cls(path), ""
        except formats.NewerFormat as err:
            log.error("records %s; starting with none, and keeping none meanwhile", err)
            records = cls(path, read=False)
            records.newer = err
            return records, str(err)
        except DataError as err:
            message = statefile.set_aside(path, str(err), "starting with no records")
            records = cls(path, read=False)
            records.blocked = statefile.blocks(path)
            return records, message

    def sync(
        self, key: str, game: str, report: Mapping[str, Any] | None, date: str
    ) -> Result | None:
        """Make the records agree with a session's result: add or replace it, or withdraw it
        when the game is no longer finished. Returns the result when it is new (to announce).
        Writes only when something changed. A known ``date`` also dates the results kept while
        the clock was not known to be right ("" is not known: see core/wallclock.py)."""
        if date and any(not r.date for r in self.results):
            self.results = [r if r.date else replace(r, date=date) for r in self.results]
            self._save()
        old = next((r for r in self.results if r.key == key), None)
        if report is None:
            if old is not None:
                self.results.remove(old)
                self._save()
            return None
        new = from_report(key, game, report, date)
        if old is not None and _same_game(old, new):
            return None
        if old is not None:
            self.results.remove(old)
        self.results.append(new)
        self._trim(game, new.board)
        self._save()
        return new

    def of(self, game: str, board: str) -> list[Result]:
        return [r for r in self.results if r.game == game and r.board == board]

    def boards(self, game: str) -> list[str]:
        return sorted({r.board for r in self.results if r.game == game})

    def best(self, game: str, board: str, n: int = 3) -> list[Result]:
        """The best won games, best first."""
        return sorted((r for r in self.of(game, board) if r.won), key=Result.rank_key)[:n]

    def place(self, result: Result) -> int | None:
        """Where a won result stands among the won games of its board (1 = the best)."""
        if not result.won:
            return None
        ranked = self.best(result.game, result.board, n=len(self.results))
        return next(i for i, r in enumerate(ranked, start=1) if r.key == result.key)

    def tally(self, game: str, board: str) -> tuple[int, int]:
        """Games finished and games won."""
        results = self.of(game, board)
        return len(results), sum(r.won for r in results)

    def _trim(self, game: str, board: str) -> None:
        """Past KEEP results, the oldest go, but never the best few."""
        mine = self.of(game, board)
        kept = {r.key for r in self.best(game, board, SHOWN_BEST)}
        extra = len(mine) - KEEP
        for old in [r for r in mine if r.key not in kept][: max(0, extra)]:
            self.results.remove(old)

    def _save(self) -> None:
        if self.newer is not None and statefile.exists(self.path):
            raise formats.Refused(self.newer)
        if self.blocked is not None and (refusal := statefile.blocks(self.path)) is not None:
            raise PermissionError(errno.EACCES, refusal.why, str(self.path))
        data = {"version": VERSION, "results": [asdict(r) for r in self.results]}
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_whole(self.path, text.encode("utf-8"))


def _same_game(a: Result, b: Result) -> bool:
    """The same outcome (the date aside): a restart re-syncing it writes nothing."""
    return (a.won, a.score, a.board, a.details) == (b.won, b.score, b.board, b.details)
