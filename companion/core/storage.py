"""Whether the state directory takes writes now: ok, full or read-only (or failing).

An SD card fills up or turns read-only under a running box. That is a condition of the
storage, not an error of the game: the journal keeps what it could not write in memory and
says which condition stops it; ``StorageWatch`` retries on a deadline of the loop's clock
(never polling) and tells the app when the condition changes, so the table sees a lasting
notice while it lasts and play never stops.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from companion.core import formats

log = logging.getLogger(__name__)

OK = "ok"
FULL = "full"
READ_ONLY = "read-only"
FAILING = "failing"  # an I/O error: a card wearing out
NEWER = "newer"  # a file there is a newer release's: left as it is, nothing written over it

# What the table is told while the condition lasts (STATUS says it too).
NOTICES = {
    FULL: "storage full: moves not saved",
    READ_ONLY: "storage read-only",
    FAILING: "storage error: moves not saved",
    NEWER: "newer release's file: not saved",
}
# The same, short enough for the title line of every screen.
TITLES = {
    FULL: "Storage full",
    READ_ONLY: "Read-only",
    FAILING: "Storage error",
    NEWER: "Newer files",
}
# The condition in "its storage is ...".
WORDS = {
    FULL: "full",
    READ_ONLY: "read-only",
    FAILING: "failing",
    NEWER: "holding a newer release's file",
}

RETRY_SECONDS = 5.0  # how soon unwritten moves are tried again
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}


def condition_of(err: OSError) -> str:
    """The storage condition an error of a write means."""
    if isinstance(err, formats.Refused) or isinstance(err.__cause__, formats.Refused):
        return NEWER
    if err.errno in _FULL:
        return FULL
    if err.errno in _READ_ONLY:
        return READ_ONLY
    return FAILING


def is_condition(err: OSError) -> bool:
    """A refusal of the storage (full, read-only), not a state dir that cannot exist."""
    return err.errno in _FULL | _READ_ONLY


def probe(directory: Path) -> str:
    """The condition of ``directory`` as far as a look tells (no write): a read-only mount or
    no write permission, no free block, else ok."""
    try:
        st = os.statvfs(directory)
    except OSError:
        return OK  # nothing to say before a write tries
    if st.f_flag & os.ST_RDONLY or not os.access(directory, os.W_OK):
        return READ_ONLY
    if st.f_bavail == 0:
        return FULL
    return OK


class Refusing(Protocol):
    """What the watch needs of the journal."""

    condition: str
    on_condition: Callable[[str], None] | None

    def flush(self) -> bool: ...


class StorageWatch:
    """While the journal's storage refuses writes, try again every RETRY_SECONDS on the
    loop's clock; ``on_change(condition)`` on the loop's thread each time it changes."""

    def __init__(
        self,
        journal: Refusing,
        call_later: Callable[[float, Callable[[], None], str], object],
        cancel: Callable[[str], object],
        on_change: Callable[[str], None],
    ) -> None:
        self.journal = journal
        self.call_later = call_later
        self.cancel = cancel
        self.on_change = on_change
        self.shown = OK
        journal.on_condition = self._changed

    def _changed(self, condition: str) -> None:
        if condition == self.shown:
            return
        self.shown = condition
        if condition == OK:
            self.cancel("storage-retry")
        else:
            self._arm()
        self.on_change(condition)

    def _arm(self) -> None:
        self.call_later(RETRY_SECONDS, self._retry, "storage-retry")

    def _retry(self) -> None:
        if not self.journal.flush():
            self._arm()
