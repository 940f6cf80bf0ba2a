"""A small disk for the tests of full and read-only storage: a tmpfs (or a loop-mounted ext4)
mounted under the test's own directory, filled to the last byte and emptied again, remounted
read-only and back. Mounting needs root (CI runs as root); elsewhere these tests are skipped,
with that reason."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

FILLER = ".filler"


def _mount(*args: str) -> None:
    proc = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise OSError(errno.EPERM, proc.stderr.strip() or "mount failed")


@contextlib.contextmanager
def small_disk(where: Path, size: str = "256k", kind: str = "tmpfs") -> Iterator[Path]:
    """``where`` as a disk of ``size`` of its own (a tmpfs, or an ext4 image with 4 KiB
    blocks on a loop device), unmounted at the end."""
    where.mkdir(parents=True, exist_ok=True)
    try:
        if kind == "tmpfs":
            _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where))
        else:
            image = where.with_name(f"{where.name}.img")
            with image.open("wb") as f:
                f.truncate(int(size.rstrip("k")) * 1024)
            subprocess.run(
                ["mkfs.ext4", "-q", "-b", "4096", "-m", "0", "-F", str(image)],
                check=True,
                capture_output=True,
            )
            _mount("-o", "loop,errors=remount-ro", str(image), str(where))
    except (OSError, subprocess.CalledProcessError, FileNotFoundError) as err:
        pytest.skip(f"cannot mount a small disk here (needs root): {err}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False, capture_output=True)


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk`` with one file; returns it (``empty`` frees it)."""
    filler = disk / FILLER
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (65536, 4096, 512, 64, 8, 1):
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * size) == size:
                    pass
    finally:
        os.close(fd)
    return filler


def empty(disk: Path) -> None:
    """Give back what ``fill`` took."""
    (disk / FILLER).unlink(missing_ok=True)


def remount(disk: Path, read_only: bool) -> None:
    _mount("-o", f"remount,{'ro' if read_only else 'rw'}", str(disk))
