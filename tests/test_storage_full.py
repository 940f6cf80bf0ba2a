"""A journal append is all or nothing on a disk that fills up: a write the storage refuses
(a short one too) leaves the file exactly as it was, the entry waits in memory, unacknowledged,
and is written, in order, as soon as the storage takes it; no line is ever appended onto a torn
one. On a real small disk (tmpfs, ext4 with 4 KiB blocks), and with a cut-back that fails too."""

from __future__ import annotations

import errno
import os

import pytest
from storage_support import empty, fill, small_disk

from companion.core import storage
from companion.core.journal import Journal
from companion.core.journal_lines import read_entries
from companion.games.base import Action

ROOM = 20  # bytes left in the journal's last block: any entry is longer, so its write is short


def _entry(n: int, pad: int = 0) -> dict:
    args = {"pad": "x" * pad} if pad else {}
    return Action("roll", args, rolls=(n % 6 + 1,), at=float(n)).to_json()


def _journal_ending_short_of_a_block(path) -> Journal:
    """A journal with a game and an action, whose file ends ROOM bytes before a 4 KiB block."""
    j = Journal(path)
    assert j.open() is None
    j.new_game("dice", {}, (), 0.0)
    before = path.stat().st_size
    j.action(_entry(0, pad=100))
    line = path.stat().st_size - before  # the length of a line with 100 bytes of padding
    want = (-(path.stat().st_size + ROOM)) % 4096 or 4096
    j.action(_entry(1, pad=100 + want - line))
    assert path.stat().st_size % 4096 == 4096 - ROOM
    return j


@pytest.mark.parametrize("kind", ["tmpfs", "ext4"])
def test_a_full_disk_never_tears_the_journal_and_loses_nothing_once_space_is_back(tmp_path, kind):
    with small_disk(tmp_path / "disk", "1024k", kind) as disk:
        path = disk / "journal.jsonl"
        j = _journal_ending_short_of_a_block(path)
        fill(disk)
        before = path.read_bytes()
        for n in range(2, 12):  # ten moves while the disk is full
            assert j.action(_entry(n)) is False  # not acknowledged
            assert path.read_bytes() == before  # not one byte more: no torn line
        assert j.condition == storage.FULL
        assert len(j.backlog) == 10
        empty(disk)
        assert j.flush() is True
        assert j.condition == storage.OK and not j.backlog
        j.action(_entry(12))
        j.close()
        entries, sound = read_entries(path)
        assert sound == path.stat().st_size
        rolls = [e["action"]["rolls"][0] for e in entries if e["kind"] == "action"]
        assert rolls == [n % 6 + 1 for n in range(13)]
        assert [e["seq"] for e in entries] == list(range(1, 15))
        again = Journal(path)
        assert len(again.open().actions) == 13
        assert not again.warnings
        again.close()


def test_a_short_write_whose_cut_back_fails_is_cut_before_the_next_write(tmp_path, monkeypatch):
    j = Journal(tmp_path / "journal.jsonl")
    j.open()
    j.new_game("dice", {}, (), 0.0)
    before = j.path.read_bytes()
    real_write, real_truncate = os.write, os.ftruncate
    refuse = {"write": True, "truncate": True}

    def short_write(fd, data):
        if refuse["write"]:
            refuse["write"] = False
            real_write(fd, data[:7])  # the storage took seven bytes: `{"v":1,`
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    def failing_truncate(fd, size):
        if refuse["truncate"]:
            refuse["truncate"] = False
            raise OSError(errno.EIO, "Input/output error")
        return real_truncate(fd, size)

    monkeypatch.setattr(os, "write", short_write)
    monkeypatch.setattr(os, "ftruncate", failing_truncate)
    assert j.action(_entry(1)) is False
    assert j.path.read_bytes() == before + b'{"v":1,'  # the torn bytes could not be cut yet
    assert j.flush() is True  # the next write cuts them first
    j.close()
    entries, _ = read_entries(j.path)
    assert [e["kind"] for e in entries] == ["game", "action"]
    assert j.path.read_bytes().startswith(before)


def test_a_write_the_storage_takes_ends_the_condition_a_look_gave(tmp_path, monkeypatch):
    """A card with no free block still takes a line into the journal's last block: taken,
    it is saved, whatever statvfs said at the start."""
    monkeypatch.setattr(storage, "probe", lambda directory: storage.FULL)
    j = Journal(tmp_path / "journal.jsonl")
    j.open()
    assert j.condition == storage.FULL
    assert j.action(_entry(1)) is True
    assert j.condition == storage.OK
    j.close()
