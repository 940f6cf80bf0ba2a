"""One change to /opt/trap-companion at a time: a lock file in /run (a power cut clears it).

Every command that changes the releases takes it: `update` and `update --rollback`, the boot
guard, systemd/install.sh (`make install` and the bundle's installer) and systemd/uninstall.sh
(`take_lock` in systemd/common.sh: the same file, held with flock on a descriptor). The holder
writes "PID WHAT" into it; a second one is refused with the holder named (exit 4)."""

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
def held(
    path: Path | None = None, wait_seconds: float = 0.0, what: str = "update"
) -> Iterator[None]:
    """Hold the lock as ``what``; Busy when another process holds it past ``wait_seconds``."""
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
                    raise Busy(
                        f"another install or update is running ({_holder(fd)}holds {path})"
                    ) from None
                time.sleep(0.5)  # flock has no timeout of its own
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {what}\n".encode())
        yield
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    """The holder as the refusal names it: by the pid it wrote (and what it is: update,
    install.sh, ...), or "it" before it has."""
    line = os.pread(fd, 64, 0).decode(errors="replace").strip().split("\n")[0]
    pid, _, what = line.partition(" ")
    if not pid.isdigit():
        return "it "
    return f"process {pid} ({what}) " if what else f"process {pid} "
