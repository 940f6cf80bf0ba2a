"""The one way every file the box keeps (``KEPT``: journal, games set aside, cards, records,
paired phones, the Deathtrap pack and its last good copy) and the config are read: a regular
file only, opened without following a link and without blocking, checked with fstat, read up
to a size cap, decoded and parsed with limits. Anything else (a FIFO, a device, a directory, a
socket, a symbolic link, a dangling or looping link, a file too big, bytes that are not UTF-8,
a number too long, nesting too deep) is ``Unreadable`` with a reason fit for a log line; a
state file that is so is set aside under a name never reused (``set_aside``), with one ERROR
line, and the box starts without it."""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import stat
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.core import durable
from companion.core.nesting import json_too_deep, toml_deep_line
from companion.core.values import value
from companion.errors import DataError

log = logging.getLogger(__name__)

MIB = 1024 * 1024
# Caps: far above what the box ever writes, far below what would stall a start (see
# docs/performance.md, "Start time and the journal").
JOURNAL_CAP = 4 * MIB  # the move to history/ keeps it near 256 KiB in normal play; the
# journal's bound (journal.py, compact) keeps the game in play under 1 MiB whatever its length
CARDS_CAP = 4 * MIB  # about 30,000 cards
RECORDS_CAP = 4 * MIB  # 500 results per board are about 150 KiB
PACK_CAP = 1 * MIB  # the shipped pack is 2 KiB
PLAYS_CAP = 8 * MIB  # 1,000 plays of four seats are about 600 KiB
PLAYERS_CAP = 1 * MIB  # 200 names and the seating of 50 games are about 20 KiB
PHONES_CAP = 64 * 1024  # at most 32 phones of about 100 bytes
CONFIG_CAP = 1 * MIB  # the commented example is 2 KiB


@value
class Kept:
    """A file the box keeps in its state directory: its name, its cap, how it is written
    (``jsonl``, ``json`` or ``toml``) and what it holds."""

    name: str
    cap: int
    form: str
    holds: str


JOURNAL = Kept("journal.jsonl", JOURNAL_CAP, "jsonl", "the game in play")
WAITING = Kept("waiting.jsonl", JOURNAL_CAP, "jsonl", "the games set aside (one of each kind)")
CARDS = Kept("cards.toml", CARDS_CAP, "toml", "the enrolled cards")
RECORDS = Kept("records.json", RECORDS_CAP, "json", "the results of finished games")
PLAYS = Kept("plays.json", PLAYS_CAP, "json", "every finished game, as a play")
PLAYERS = Kept("players.json", PLAYERS_CAP, "json", "the players' names and the seats named")
PHONES = Kept("phones.json", PHONES_CAP, "json", "the paired phones")
PACK = Kept("deathtrap_dungeon_pack.toml", PACK_CAP, "toml", "the owner's Deathtrap pack")
PACK_LAST_GOOD = Kept(
    "deathtrap_dungeon_pack.last-good.toml", PACK_CAP, "toml", "its last good copy"
)
# Every file the box keeps: each is read by this module's rules, and a test damages each one
# (tests/test_kept_files.py). A new kind of state file goes here first.
KEPT = (JOURNAL, WAITING, CARDS, RECORDS, PLAYS, PLAYERS, PHONES, PACK, PACK_LAST_GOOD)

_DIGITS = sys.get_int_max_str_digits() or 4300


class Unreadable(DataError):
    """A file that is not a regular file the box can read whole; ``why`` says what it is
    (exit 65 from a shell command)."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


class TooBig(Unreadable):
    """A regular file past its cap (``read_tail`` can still read its end)."""


class NoAccess(Unreadable):
    """A file this process may not open: whose it is and the command that gives it back to the
    box (``fix``). Never set aside (``set_aside`` leaves it where it is and names it): nothing is
    wrong with what it holds. Exit 77 from a shell command."""

    exit_status = 77

    def __init__(self, path: Path | str, why: str, fix: str) -> None:
        super().__init__(path, why)
        self.fix = fix


def whose(path: Path | str) -> str:
    """A file's owner, group and mode in words: ``root:root 0640``."""
    import grp
    import pwd

    try:
        st = os.lstat(path)
    except OSError as err:
        return f"unknown ({err.strerror or err})"
    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return f"{user}:{group} {stat.S_IMODE(st.st_mode):04o}"


def _reader() -> str:
    """This process's user and group as chown takes them."""
    import grp
    import pwd

    uid, gid = os.geteuid(), os.getegid()
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    try:
        group = grp.getgrgid(gid).gr_name
    except KeyError:
        group = str(gid)
    return f"{user}:{group}"


def no_access(path: Path | str, err: OSError) -> NoAccess:
    """The refusal of a file this process may not open, with whose it is and the fix."""
    fix = f"sudo chown {_reader()} {path} && sudo chmod 0640 {path}"
    why = (
        f"cannot be opened ({err.strerror or err}): it is {whose(path)} and this process "
        f"runs as {_reader()}; fix it with: {fix}"
    )
    return NoAccess(path, why, fix)


def _link(path: Path) -> str:
    """What a symbolic link is, in words: where it points and whether that can be reached."""
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    try:
        os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return f"a symbolic link that loops ({target}), not a regular file"
        if err.errno == errno.ENOENT:
            return f"a dangling symbolic link (to {target}, which is not there)"
        return f"a symbolic link (to {target}, {err.strerror})"
    return f"a symbolic link (to {target}), not a regular file"


def exists(path: Path) -> bool:
    """Anything at ``path`` (a dangling link too), without following a link."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # something is there that cannot even be looked at
    return True


def is_regular(path: Path) -> bool:
    """A regular file itself, not a link to one."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _check(path: Path, st: os.stat_result, cap: int) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise Unreadable(path, f"is {_link(path)}")
    if not stat.S_ISREG(st.st_mode):
        raise Unreadable(path, f"is {durable.kind(st.st_mode)}, not a regular file")
    if st.st_size > cap:
        raise TooBig(path, f"is too big ({st.st_size} bytes; at most {cap})")


_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[int | None]:
    """The file opened without following a link and without blocking (None: nothing there);
    an error while reading it is Unreadable naming it."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        yield None
        return
    except OSError as err:
        if err.errno == errno.ELOOP:  # a link, or became one since a look
            raise Unreadable(path, f"is {_link(path)}") from None
        if err.errno in (errno.EACCES, errno.EPERM):
            raise no_access(path, err) from None
        raise Unreadable(path, f"cannot be opened ({err.strerror or err})") from None
    try:
        yield fd
    except OSError as err:
        raise Unreadable(path, f"cannot be read ({err.strerror or err})") from None
    finally:
        os.close(fd)


def _read_upto(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0 and (chunk := os.read(fd, min(MIB, left))):
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_bytes(path: Path, cap: int) -> bytes | None:
    """The whole file, or None when nothing is there; Unreadable for anything else."""
    try:
        _check(path, os.lstat(path), cap)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise Unreadable(path, f"cannot be looked at ({err.strerror or err})") from None
    with _opened(path) as fd:
        if fd is None:
            return None  # gone since the look: as if never there
        _check(path, os.fstat(fd), cap)  # what was opened, whatever the look saw
        data = _read_upto(fd, cap + 1)  # one byte more: a file that grew past its cap
        if len(data) > cap:
            raise TooBig(path, f"is too big (more than {cap} bytes)")
        return data


@contextlib.contextmanager
def lines_of(path: Path, cap: int) -> Iterator[Iterator[bytes] | None]:
    """The file's lines, each with its newline (the last one may have none), read a piece at
    a time as ``read_bytes`` would open and check it (None: nothing there). TooBig for a file
    past its cap, or one that grows past it while it is read."""
    try:
        _check(path, os.lstat(path), cap)
    except FileNotFoundError:
        yield None
        return
    except OSError as err:
        raise Unreadable(path, f"cannot be looked at ({err.strerror or err})") from None
    with _opened(path) as fd:
        if fd is None:
            yield None
            return
        _check(path, os.fstat(fd), cap)
        with os.fdopen(fd, "rb", closefd=False) as stream:

            def lines() -> Iterator[bytes]:
                read = 0
                for line in stream:
                    read += len(line)
                    if read > cap:
                        raise TooBig(path, f"is too big (more than {cap} bytes)")
                    yield line

            yield lines()


def read_tail(path: Path, size: int) -> bytes:
    """The last ``size`` bytes of a regular file (opened as ``read_bytes`` opens it)."""
    with _opened(path) as fd:
        if fd is None:
            raise Unreadable(path, "cannot be opened (it is gone)")
        st = os.fstat(fd)
        _check(path, st, st.st_size)
        os.lseek(fd, max(0, st.st_size - size), os.SEEK_SET)
        return _read_upto(fd, size)


def decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise Unreadable(path, f"is not UTF-8 text (line {line}, byte {err.start})") from None


def read_text(path: Path, cap: int) -> str | None:
    data = read_bytes(path, cap)
    return None if data is None else decode(path, data)


def long_number(path: Path | str, text: str) -> Unreadable:
    """A number of more digits than Python converts, named with its line."""
    match = re.search(rf"\d{{{_DIGITS + 1},}}", text)
    line = f" (line {text.count(chr(10), 0, match.start()) + 1})" if match else ""
    return Unreadable(path, f"holds a number of more than {_DIGITS} digits{line}")


def parse_toml(path: Path | str, text: str) -> dict[str, Any]:
    """TOML, with Unreadable for what no editor writes (a number too long, nesting too deep);
    a TOML syntax error stays tomllib's TOMLDecodeError, with its line."""
    deep = toml_deep_line(text)
    if deep is not None:
        raise Unreadable(path, f"is nested too deep (line {deep})")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except MemoryError:
        raise Unreadable(path, "needs too much memory to parse") from None
    except ValueError:  # int() of a number past the digit limit
        raise long_number(path, text) from None


def parse_json(path: Path, text: str) -> Any:
    """JSON, with Unreadable for anything that is not (with why)."""
    if json_too_deep(text):
        raise Unreadable(path, "is nested too deep")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise Unreadable(path, f"is not JSON (line {err.lineno}: {err.msg})") from None
    except MemoryError:
        raise Unreadable(path, "needs too much memory to parse") from None
    except ValueError:
        raise long_number(path, text) from None


def blocks(path: Path) -> NoAccess | None:
    """The refusal of a regular file at ``path`` this process may not open (None: it may, or
    nothing or something else is there)."""
    if not is_regular(path):
        return None
    try:
        os.close(os.open(path, _OPEN_FLAGS))
    except OSError as err:
        if err.errno in (errno.EACCES, errno.EPERM):
            return no_access(path, err)
    return None


def set_aside(path: Path, message: str, then: str) -> str:
    """Move ``path`` (whatever it is: a link, a FIFO, a directory) out of the way under a name
    never reused, and say so in one ERROR line: ``message`` (the file and why), where it went
    and ``then`` (what the box does without it). Returns that line.

    A file this process may not open is left where it is (nothing is wrong with what it holds,
    and whoever made it so can give it back): the line names it, whose it is and the command
    that fixes it; the caller keeps from writing over it (``blocks``)."""
    refusal = blocks(path)
    if refusal is not None:
        line = f"{message}; left where it is, {then} until it is readable"
        if refusal.fix not in message:
            line += f" ({refusal.fix})"
        log.error("%s", line)
        return line
    try:
        target = durable.set_aside(path)
    except OSError as err:
        line = f"{message}; cannot move it aside ({err.strerror or err}), {then}"
    else:
        line = f"{message}; moved to {target}, {then}"
    log.error("%s", line)
    return line
