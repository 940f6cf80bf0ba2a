"""The format version each kept file carries, and the refusal of one a newer release wrote.

A release may be rolled back (issue 34): the one before it must then meet what the newer one
wrote. The rule (docs/architecture.md, "Format versions of the kept files"): a release writes a
new format of a file only once the one before it reads it (fields added, never changed in
meaning), or not before it has proven itself; and a release that meets a version above the one
it knows refuses the file whole (``NewerFormat``: the file named, both versions), never
misreading it and never moving, rewriting or setting it aside: the file is left exactly as it is,
for the newer release to use again. A file without a version is read as version 1 (the files
written before versions were).
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

from companion.errors import DataError


class NewerFormat(DataError):
    """A kept file in a format newer than this release reads (exit 75 from a shell command:
    not damage, and fixed by updating, not by editing the file)."""

    exit_status = 75

    def __init__(self, path: Path | str, found: int, known: int) -> None:
        super().__init__(
            f"{path}: written by a newer release (format {found}; this release reads up to "
            f"{known}): left as it is; update the box to use it"
        )
        self.path, self.found, self.known = path, found, known


class Refused(OSError):
    """A write the box does not make: the file there is a newer release's (``NewerFormat``).
    Told apart from the storage's own refusals by its condition (``storage.condition_of``)."""

    def __init__(self, newer: NewerFormat) -> None:
        super().__init__(errno.EPERM, str(newer), str(newer.path))
        self.newer = newer


def newer(value: Any, known: int, path: Path | str) -> NewerFormat | None:
    """The refusal of a file whose declared ``value`` (its version field as read, None when it
    has none) is a whole number above ``known``; None for anything else, which the file's own
    reader judges (a version it knows, none at all, or damage)."""
    if isinstance(value, int) and not isinstance(value, bool) and value > known:
        return NewerFormat(path, value, known)
    return None


def check(value: Any, known: int, path: Path | str) -> None:
    """Raise ``NewerFormat`` for a version above ``known`` (see ``newer``)."""
    refusal = newer(value, known, path)
    if refusal is not None:
        raise refusal


def notice(what: str) -> tuple[str, ...]:
    """What the box shows at a start for a file a newer release wrote (short OLED lines)."""
    return (f"{what}:", "newer release's file", "left as is, see log")
