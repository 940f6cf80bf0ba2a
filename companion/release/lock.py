"""One update at a time: a lock file in /run (a power cut clears it)."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = Path("/run/lock/trap-companion-update.lock")


class Busy(Exception):
    """Another update or rollback holds the lock."""


@contextmanager
def held(path: Path | None = None, wait_seconds: float = 0.0) -> Iterator[None]:
    """Hold the lock; Busy when another process holds it past ``wait_seconds``."""
    path = path or LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise Busy(f"another update is running ({_holder(fd)}holds {path})") from None
                time.sleep(0.5)  # flock has no timeout of its own
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    """The holder as the refusal names it: by the pid it wrote, or "it" before it has."""
    pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
    return f"process {pid} " if pid.isdigit() else "it "
