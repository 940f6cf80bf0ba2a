"""The journal: every accepted action, appended and fsync'ed before the screen changes.

One JSON object a line. Folding it rebuilds the current game exactly, because every action
carries its dice and its time. Power may be cut mid-write: a torn last line is dropped (it was
never acknowledged, since acknowledgement comes after fsync). A journal that cannot be read is
moved aside, never deleted and never a reason to crash at every boot.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.games.base import Action

log = logging.getLogger(__name__)

VERSION = 1
KINDS = ("game", "action", "undo", "restore")
ROTATE_BYTES = 256 * 1024  # past this, a new game starts a fresh file; the old one is kept


class JournalUnreadable(Exception):
    """Raised by ``read_entries`` with the line number and what is wrong there."""


@dataclass(frozen=True)
class Step:
    """One standing entry of a game: an action (``auto`` when a timer applied it, not a
    person; ``nav`` when it only moved a menu), or, with no action, the app's restore after a
    power cut or an undo."""

    action: Action | None
    auto: bool = False
    nav: bool = False

    @property
    def by_person(self) -> bool:
        """An undo target: a game action a person made (menu moves are never taken back on
        their own; they go with the game action before them)."""
        return self.action is not None and not self.auto and not self.nav


def undo_steps(steps: list[Step]) -> Action | None:
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
    steps: list[Step] = field(default_factory=list)

    @property
    def actions(self) -> list[Action]:
        return [s.action for s in self.steps if s.action is not None]


def _check_entry(entry: Any, where: str) -> None:
    if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
        raise JournalUnreadable(f"{where}: not a journal entry")
    if entry["kind"] == "game" and not isinstance(entry.get("game"), str):
        raise JournalUnreadable(f"{where}: a game entry without a game name")
    if entry["kind"] == "action":
        try:
            Action.from_json(entry["action"])
        except (KeyError, TypeError, ValueError) as err:
            raise JournalUnreadable(f"{where}: malformed action ({err})") from None


def read_entries(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Entries of a journal file and the byte length of its sound part (without a torn tail)."""
    data = path.read_bytes()
    entries: list[dict[str, Any]] = []
    good = 0
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        is_last = number == len(lines)
        if is_last:
            if raw.strip():
                log.warning(
                    "journal %s: dropped a torn last line (%d bytes) left by a power cut",
                    path,
                    len(raw),
                )
            break
        if raw.strip():
            try:
                entry = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise JournalUnreadable(f"{path}:{number}: not JSON ({err})") from None
            _check_entry(entry, f"{path}:{number}")
            entries.append(entry)
        good += len(raw) + 1
    return entries, good


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
            )
        elif record is None:
            continue  # actions of a game whose start was archived
        elif kind == "action":
            action = Action.from_json(entry["action"])
            record.steps.append(Step(action, bool(entry.get("auto")), bool(entry.get("nav"))))
        elif kind == "restore":
            record.steps.append(Step(None))
        elif kind == "undo":
            undo_steps(record.steps)
    return record


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._seq = 0
        self.warnings: list[str] = []  # problems worth showing (a file set aside)

    def open(self) -> GameRecord | None:
        """Read what is there (moving an unreadable file aside), then open for appending."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        entries: list[dict[str, Any]] = []
        if self.path.exists():
            try:
                entries, good = read_entries(self.path)
            except (JournalUnreadable, OSError) as err:
                self.move_aside(str(err))
            else:
                if good != self.path.stat().st_size:
                    os.truncate(self.path, good)  # so the next append starts on a clean line
        self._seq = len(entries)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        _fsync_dir(self.path.parent)
        return fold(entries)

    def move_aside(self, why: str) -> Path:
        """Keep an unreadable journal for a human to look at, and start a fresh one."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        target = self.path.with_name(f"{self.path.name}.unreadable-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.name}.unreadable-{stamp}-{n}")
        os.replace(self.path, target)
        message = f"journal unreadable ({why}); moved to {target}, starting a new one"
        log.error(message)
        self.warnings.append(message)
        return target

    def append(self, entry: dict[str, Any]) -> None:
        """Write one entry and fsync: when this returns, the entry survives a power cut."""
        if self._fd is None:
            raise RuntimeError("journal is not open")
        self._seq += 1
        line = json.dumps({"v": VERSION, "seq": self._seq, **entry}, separators=(",", ":"))
        data = (line + "\n").encode("utf-8")
        written = 0
        while written < len(data):
            written += os.write(self._fd, data[written:])
        os.fsync(self._fd)

    def new_game(
        self, game: str, options: dict[str, Any], rolls: tuple[int, ...], at: float
    ) -> None:
        if self._fd is not None and os.fstat(self._fd).st_size > ROTATE_BYTES:
            self.rotate()
        self.append(
            {"kind": "game", "game": game, "options": options, "rolls": list(rolls), "at": at}
        )

    def action(self, action: Action, auto: bool = False, nav: bool = False) -> None:
        entry: dict[str, Any] = {"kind": "action", "action": action.to_json()}
        if auto:
            entry["auto"] = True
        if nav:
            entry["nav"] = True
        self.append(entry)

    def restore(self) -> None:
        """The app paused what a power cut or an undo interrupted: the fold must do it too."""
        self.append({"kind": "restore"})

    def undo(self) -> None:
        self.append({"kind": "undo"})

    def rotate(self) -> Path:
        """Move the finished games to history/ so start-up reads only the current one."""
        history = self.path.parent / "history"
        history.mkdir(exist_ok=True)
        target = history / f"journal-{time.strftime('%Y%m%dT%H%M%S')}-{self._seq}.jsonl"
        self.close()
        os.replace(self.path, target)
        _fsync_dir(history)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        _fsync_dir(self.path.parent)
        log.info("journal history moved to %s", target)
        return target

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
