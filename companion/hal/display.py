"""The OLED through luma: a thin adapter so the box keeps playing when the display is missing
or drops out (loose wire, brown-out) and picks it up again when it answers.

``open_device`` makes the luma device (companion/hal/panel.py: luma's drivers sending only the
window that changed); ``Display`` renders screens onto it and remembers what it showed (the
replay's ``screen`` lines and the last frame) whether or not the panel took it. The daemon has
the frames written by a thread of their own (``write_in_background``), so the loop never waits
on the bus; replays, the simulator and tests write them on the loop's thread, as they come.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

import luma.core.device
import luma.core.error
from luma.core.interface.serial import i2c
from PIL import Image

from companion.core.events import Call, Event
from companion.errors import ConfigError
from companion.hal import panel
from companion.hal.frame_writer import FrameWriter
from companion.ui import fonts
from companion.ui.render import HEIGHT, WIDTH, render
from companion.ui.screen import Screen

log = logging.getLogger(__name__)

DRIVERS = ("ssd1306", "sh1106", "dummy")

# What a missing or failing panel raises: luma's own errors at open (no bus, no answer at the
# address, no permission), a raw OSError (errno 121, remote I/O) from a write later.
DEVICE_ERRORS = (luma.core.error.Error, OSError)
FLUSH_SECONDS = 2.0  # at a stop, the last frames' wire time at most (a frame is ~25 ms)


def open_device(driver: str, i2c_port: int = 1, i2c_address: int = 0x3C, rotate: int = 0) -> Any:
    """The luma device for ``driver``; raises luma's errors (or OSError) when it is not there."""
    if rotate not in (0, 1, 2, 3):
        raise ConfigError(f"display.rotate = {rotate!r}: use 0, 1, 2 or 3 (quarter turns)")
    if driver == "dummy":
        return luma.core.device.dummy(width=WIDTH, height=HEIGHT, rotate=rotate, mode="1")
    makers = {"ssd1306": panel.ssd1306, "sh1106": panel.sh1106}
    if driver not in makers:
        raise ConfigError(f"display.driver = {driver!r}: use one of {', '.join(DRIVERS)}")
    serial = i2c(port=i2c_port, address=i2c_address)
    try:
        return makers[driver](serial, width=WIDTH, height=HEIGHT, rotate=rotate)
    except BaseException:
        # The bus is open but the panel did not answer its set-up: close the bus, or every
        # retry would leak a file descriptor.
        try:
            serial.cleanup()
        except OSError as err:
            log.debug("closing the I2C bus after a failed open: %s", err)
        raise


def device_factory(
    driver: str, i2c_port: int = 1, i2c_address: int = 0x3C, rotate: int = 0
) -> Callable[[], Any] | None:
    """What ``Display`` needs for the ``[display]`` settings; None for driver "none"."""
    if driver == "none":
        return None
    if driver not in DRIVERS:
        raise ConfigError(f"display.driver = {driver!r}: use one of none, {', '.join(DRIVERS)}")
    return functools.partial(open_device, driver, i2c_port, i2c_address, rotate)


class Display:
    """Screens onto the panel, if there is one.

    ``show`` never raises for the hardware: a panel that is missing or stops answering marks
    the display unavailable (one warning per outage) and the app calls ``retry`` from a
    deadline. ``lines`` and ``image`` always hold what the box would show.
    """

    def __init__(
        self,
        device_factory: Callable[[], Any] | None,
        on_frame: Callable[[Image.Image], None] | None = None,
    ) -> None:
        self._factory = device_factory
        self.on_frame = on_frame
        self.device: Any = None
        self.error: str | None = None
        self.screen: Screen | None = None
        self.lines: list[str] = []
        self.image: Image.Image | None = None
        self._warned = False
        self.writer: FrameWriter | None = None
        self._post: Callable[[Event], None] | None = None
        # Called on the loop's thread when a write in the background found the panel gone.
        self.on_lost: list[Callable[[], None]] = []
        fonts.preload()  # no frame needs a free file handle after this
        if device_factory is None:
            self.error = "no display configured"
        else:
            self._open()

    def write_in_background(self, post: Callable[[Event], None]) -> None:
        """From now on frames go to a writer thread (the newest one only); a failing write
        comes back through ``post`` (the loop's queue) and marks the display unavailable there.
        """
        if self.writer is None:
            self._post = post
            self.writer = FrameWriter(self._write_failed, DEVICE_ERRORS)

    def flush(self, timeout: float | None = FLUSH_SECONDS) -> bool:
        """Wait for the frames handed to the writer to be on the panel (or given up)."""
        return True if self.writer is None else self.writer.flush(timeout)

    @property
    def available(self) -> bool:
        return self.device is not None

    @property
    def missing(self) -> bool:
        """A panel is configured but not answering (worth retrying)."""
        return self.device is None and self._factory is not None

    @property
    def status(self) -> str:
        """One phrase for systemd's STATUS line: an owner reading it knows the box carries on."""
        if self.device is not None:
            return "display ok"
        if self._factory is None:
            return "no display configured"
        return f"display not answering, retrying ({self.error})"

    def show(self, screen: Screen) -> bool:
        """Render ``screen`` and send it; True when the panel took it."""
        # Only the areas that changed are drawn again (the title and footer mostly stay).
        since = (self.screen, self.image) if self.screen and self.image else None
        image = render(screen, *self._size(), since=since)  # a screen that raises changes nothing
        self.screen, self.lines, self.image = screen, screen.text_lines(), image
        took = self._send()
        if self.on_frame is not None:
            self.on_frame(self.image)
        return took

    def retry(self) -> bool:
        """Open the panel again if it is missing; on success it shows the current screen."""
        if self.device is not None:
            return True
        if self._factory is None or not self._open():
            return False
        if self.screen is not None:
            size = self._size()
            if self.image is None or self.image.size != size:
                self.image = render(self.screen, *size)
            # Written here, as the panel's opening just was: "back" only once it took a frame.
            if not self._send(here=True):
                return False
        if self._warned:
            log.info("display is back")
            self._warned = False
        return True

    def close(self, keep_picture: bool = False) -> None:
        """Free the bus (luma's cleanup); errors here are only logged.

        ``keep_picture`` leaves the last frame lit (luma's ``persist``), so a stopped box
        still says it is stopped; otherwise the panel is blanked.
        """
        if self.writer is not None:
            self.writer.stop(FLUSH_SECONDS)  # the last frame ("Stopped") goes out first
            self.writer = None
        device, self.device = self.device, None
        if device is None:
            return
        device.persist = keep_picture
        try:
            device.cleanup()
        except DEVICE_ERRORS as err:
            log.debug("display cleanup failed: %s", err)

    def _size(self) -> tuple[int, int]:
        """The panel's size as luma sees it (a quarter turn makes it portrait)."""
        if self.device is not None:
            return int(self.device.width), int(self.device.height)
        if self.image is not None:
            return self.image.size
        return WIDTH, HEIGHT

    def _send(self, here: bool = False) -> bool:
        if self.device is None or self.image is None:
            return False
        if self.writer is not None and not here:
            self.writer.submit(self.device, self.image)
            return True
        try:
            self.device.display(self.image)
        except DEVICE_ERRORS as err:
            self._lost(err)
            return False
        return True

    def _write_failed(self, device: Any, err: Exception) -> None:
        """The writer's thread: only enqueue; the loop's consumer marks the display lost."""
        assert self._post is not None
        self._post(Call(lambda: self._lost_in_background(device, err)))

    def _lost_in_background(self, device: Any, err: Exception) -> None:
        if device is not self.device:  # an older device's failure, already dealt with
            return
        self._lost(err)
        for hook in self.on_lost:
            hook()

    def _open(self) -> bool:
        assert self._factory is not None
        try:
            device = self._factory()
        except DEVICE_ERRORS as err:
            self._lost(err)
            return False
        self.device = device
        self.error = None
        return True

    def _lost(self, err: Exception) -> None:
        device, self.device = self.device, None
        if device is not None:
            # Free the dead panel's bus handle, or each outage would leak one; persist skips
            # the blanking commands that the dead panel cannot take.
            device.persist = True
            try:
                device.cleanup()
            except DEVICE_ERRORS as cleanup_err:
                log.debug("releasing the lost display: %s", cleanup_err)
        self.error = f"{type(err).__name__}: {err}"
        if self._warned:
            log.debug("display still unavailable: %s", self.error)
            return
        self._warned = True
        log.warning("display unavailable, carrying on without it: %s", self.error)
