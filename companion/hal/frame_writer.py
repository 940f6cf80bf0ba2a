"""One thread that writes frames to the panel, so the loop never waits on the I2C bus.

The loop hands over (device, frame) and goes on; the writer sends the newest frame it has
been handed: a frame superseded before its turn came is never sent, so a burst of presses
costs one frame's wire time at its end. A write that fails is reported through ``report``
(which only enqueues: the loop's consumer marks the display unavailable) and the writer sends
nothing more to that device.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Report = Callable[[Any, Exception], None]  # (the device that failed, the error): enqueues only


class FrameWriter:
    def __init__(self, report: Report, errors: tuple[type[Exception], ...]) -> None:
        self._report = report
        self._errors = errors
        self._lock = threading.Condition()
        self._pending: tuple[Any, Any] | None = None
        self._busy = False
        self._dead: Any = None  # the device whose write failed: nothing more goes to it
        self._stopping = False
        self.sent = 0  # frames written
        self.superseded = 0  # frames replaced by a newer one before they went out
        self._thread = threading.Thread(target=self._run, name="frame-writer", daemon=True)
        self._thread.start()

    def submit(self, device: Any, image: Any) -> None:
        """The newest frame for ``device`` (any thread); replaces one still waiting."""
        with self._lock:
            if self._pending is not None:
                self.superseded += 1
            self._pending = (device, image)
            self._lock.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything handed over is written (or given up); False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self._pending is None and not self._busy, timeout)

    def stop(self, timeout: float | None = None) -> None:
        """Write what is waiting, then end the thread."""
        self.flush(timeout)
        with self._lock:
            self._stopping = True
            self._lock.notify_all()
        self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._pending is not None or self._stopping)
                if self._pending is None:
                    return
                (device, image), self._pending = self._pending, None
                if device is self._dead:
                    self._lock.notify_all()
                    continue
                self._busy = True
            try:
                device.display(image)
                self.sent += 1
            except self._errors as err:
                with self._lock:
                    self._dead = device
                self._report(device, err)
            except Exception:  # a bug must not end the writer: the next frame is tried
                log.exception("writing a frame failed")
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()
