"""Signals that reach the loop whichever thread the kernel gives them to.

A process-directed signal may land on any thread that does not block it: a reader's or
gpiozero's. Python then runs the handler on the main thread only when that thread next runs
bytecode, and a main thread asleep in ``queue.get`` with no deadline ahead never does: the
daemon would ignore SIGTERM until systemd kills it. The C-level handler always writes the signal
number to the wake-up fd, so a small thread waiting on that pipe hands each signal on at once.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import threading
from collections.abc import Callable, Iterable
from types import TracebackType

log = logging.getLogger(__name__)


class SignalRelay:
    """While entered (on the main thread), each of ``signals`` calls ``on_signal(name)`` from
    the relay's thread, once per delivery. ``on_signal`` should only enqueue."""

    def __init__(self, signals: Iterable[signal.Signals], on_signal: Callable[[str], None]):
        self.signals = tuple(signals)
        self.on_signal = on_signal
        self._saved: dict[int, object] = {}
        self._old_fd = -1
        self._pipe: tuple[int, int] | None = None
        self._quit: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> SignalRelay:
        read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)
        self._pipe = (read_fd, write_fd)
        self._quit = os.pipe()
        self._thread = threading.Thread(target=self._relay, name="signals", daemon=True)
        self._thread.start()
        self._old_fd = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
        for signum in self.signals:
            # The Python-level handler has nothing left to do: the relay thread acts.
            self._saved[signum] = signal.signal(signum, _ignore_here)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for signum, handler in self._saved.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        signal.set_wakeup_fd(self._old_fd)
        assert self._pipe is not None and self._quit is not None and self._thread is not None
        os.write(self._quit[1], b"!")
        self._thread.join(timeout=2)
        for fd in (*self._pipe, *self._quit):
            os.close(fd)

    def _relay(self) -> None:
        assert self._pipe is not None and self._quit is not None
        wake, quit_ = self._pipe[0], self._quit[0]
        while True:
            readable, _, _ = select.select([wake, quit_], [], [])
            if quit_ in readable:
                return
            for signum in os.read(wake, 64):
                if signum in self.signals:
                    self.on_signal(signal.Signals(signum).name)


def _ignore_here(signum: int, frame: object) -> None:
    """Installed so the default action (die at once) does not run; the relay thread acts."""
