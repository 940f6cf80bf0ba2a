"""Files that hold the owner's data (the journal, the card registry): written whole and fsync'ed
before they replace the old ones, one mode for all of them, and set aside under a name that is
never reused when they cannot be read, so no damaged copy overwrites another."""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import time
from pathlib import Path

log = logging.getLogger(__name__)

OWNER_MODE = 0o640  # the daemon's user and its group (the owner's shell) may read it; no one else
_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a directory",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
}


def kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` survive a power cut."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def open_append(path: Path) -> int:
    """A descriptor appending to ``path`` (created with the owner's mode if new)."""
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, OWNER_MODE)


def write_new(path: Path, data: bytes) -> None:
    """Write ``path`` afresh with the owner's mode and fsync it (not yet its directory)."""
    clear_leftover(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OWNER_MODE)
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    finally:
        os.close(fd)


def clear_leftover(path: Path) -> None:
    """Remove what a cut write left at ``path`` (it keeps its old mode: start clean); what
    cannot be a leftover of ours (a directory, a FIFO, a device) is set aside, never lost."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    target = set_aside(path)
    log.error("%s: is %s in the way of a write; moved to %s", path, kind(mode), target)


def replace_whole(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` so that a power cut leaves the old file or the new one."""
    tmp = path.with_name(f"{path.name}.tmp")
    write_new(tmp, data)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def aside_name(path: Path) -> Path:
    """Where an unreadable ``path`` goes: stamped to the second, numbered when that is taken."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.unreadable-{stamp}")
    n = 1
    while os.path.lexists(target):  # a dangling link is something too
        n += 1
        target = path.with_name(f"{path.name}.unreadable-{stamp}-{n}")
    return target


def set_aside(path: Path) -> Path:
    """Move an unreadable file out of the way, for a human to look at; never delete it."""
    target = aside_name(path)
    os.replace(path, target)
    fsync_dir(path.parent)
    return target
