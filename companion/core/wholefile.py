"""A JSON state file with a format version, written whole as records.json is (temp file, fsync,
rename): a power cut leaves the old file or the new one. Reading follows statefile's rules; a
damaged file is set aside with a notice and the box starts without it; a newer release's file
is left as it is and nothing is written over it (``formats.Refused``) while it is there.

The players (players.py) and the plays (plays.py) are kept this way."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from companion.core import formats, statefile
from companion.core.durable import replace_whole
from companion.errors import DataError

log = logging.getLogger(__name__)


class WholeFile:
    """Subclasses name their file (``KEPT``), their version and the list they keep (``LIST``),
    and parse one item of it (``_item``: DataError for a malformed one)."""

    KEPT: statefile.Kept
    VERSION = 1
    LIST = "items"
    WHAT = "items"  # said in the notice: "starting with no {WHAT}"

    def __init__(self, path: Path, read: bool = True) -> None:
        self.path = path
        self.newer: formats.NewerFormat | None = None
        self._empty()
        if read:
            try:
                text = statefile.read_text(path, self.KEPT.cap)
                if text is not None:
                    self._load(statefile.parse_json(path, text), str(path))
            except statefile.Unreadable as err:
                raise DataError(f"{path}: {self.WHAT} unreadable: {err.why}") from None

    @classmethod
    def open_or_set_aside(cls, path: Path) -> tuple[Any, str]:
        """For the daemon: a damaged file is kept aside for a human, never a reason to stop."""
        try:
            return cls(path), ""
        except formats.NewerFormat as err:
            log.error("%s %s; starting with none, and keeping none meanwhile", cls.WHAT, err)
            kept = cls(path, read=False)
            kept.newer = err
            return kept, str(err)
        except DataError as err:
            message = statefile.set_aside(path, str(err), f"starting with no {cls.WHAT}")
            return cls(path, read=False), message

    def _load(self, data: Any, where: str) -> None:
        if isinstance(data, dict):
            formats.check(data.get("version"), self.VERSION, where)
        if not isinstance(data, dict) or data.get("version") != self.VERSION:
            raise DataError(f"{where}: not a version {self.VERSION} {self.WHAT} file")
        items = data.get(self.LIST)
        if not isinstance(items, list):
            raise DataError(f"{where}: {self.LIST!r} must be a list")
        for i, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                raise DataError(f"{where}: {self.LIST} item {i} is not a table")
            try:
                self._item(item)
            except (KeyError, TypeError, ValueError) as err:
                raise DataError(f"{where}: {self.LIST} item {i} is malformed ({err})") from None
        try:
            self._more(data, where)
        except (KeyError, TypeError, ValueError) as err:
            raise DataError(f"{where}: malformed ({err})") from None

    def _empty(self) -> None:
        raise NotImplementedError

    def _item(self, item: dict[str, Any]) -> None:
        raise NotImplementedError

    def _more(self, data: dict[str, Any], where: str) -> None:
        """The file's other keys, if any."""

    def _data(self) -> dict[str, Any]:
        raise NotImplementedError

    def save(self) -> None:
        if self.newer is not None and statefile.exists(self.path):
            raise formats.Refused(self.newer)
        data = {"version": self.VERSION, **self._data()}
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_whole(self.path, text.encode("utf-8"))
