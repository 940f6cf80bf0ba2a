"""Frames leave the loop's thread (issue 46 point 2): one writer sends the newest frame only,
and a failing write comes back through the loop's queue to mark the display unavailable.

Deterministic: the fake panel holds the writer inside a write until the test lets it go, and
the test waits on the writer's own join point (``flush``), never on a sleep."""

from __future__ import annotations

import errno
import threading
from typing import Any

from PIL import Image

from companion.core.clock import VirtualClock
from companion.core.events import Call
from companion.core.loop import Loop
from companion.daemon import DISPLAY_RETRY_SECONDS
from companion.hal.display import Display
from companion.hal.frame_writer import FrameWriter
from companion.ui.screen import Screen

WAIT = 5.0  # seconds a join point may take on a busy machine before the test fails


class GatedPanel:
    """A panel whose writes wait for ``gate`` and can fail like one gone from the bus."""

    def __init__(self) -> None:
        self.width, self.height = 128, 64
        self.gate = threading.Event()
        self.gate.set()
        self.writing = threading.Event()
        self.frames: list[Any] = []
        self.threads: set[str] = set()
        self.broken = False
        self.persist = False
        self.cleaned = False

    def display(self, image: Any) -> None:
        self.threads.add(threading.current_thread().name)
        self.writing.set()
        assert self.gate.wait(WAIT)
        if self.broken:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.frames.append(image)

    def cleanup(self) -> None:
        self.cleaned = True


def test_a_burst_sends_the_frame_being_written_and_then_only_the_newest() -> None:
    panel = GatedPanel()
    reports: list[Any] = []
    writer = FrameWriter(lambda device, err: reports.append(err), (OSError,))
    panel.gate.clear()
    writer.submit(panel, "first")
    assert panel.writing.wait(WAIT)  # the writer is on the wire with the first frame
    for frame in ("second", "third", "fourth"):
        writer.submit(panel, frame)
    panel.gate.set()
    assert writer.flush(WAIT)
    assert panel.frames == ["first", "fourth"]
    assert writer.superseded == 2 and writer.sent == 2
    assert panel.threads == {"frame-writer"}
    writer.stop(WAIT)
    assert not writer.alive and reports == []


def test_a_failing_write_is_reported_once_and_that_device_gets_nothing_more() -> None:
    panel = GatedPanel()
    reports: list[tuple[Any, Exception]] = []
    writer = FrameWriter(lambda device, err: reports.append((device, err)), (OSError,))
    panel.broken = True
    writer.submit(panel, "lost")
    assert writer.flush(WAIT)
    panel.broken = False
    writer.submit(panel, "after")
    assert writer.flush(WAIT)
    assert panel.frames == [] and [device for device, _ in reports] == [panel]
    other = GatedPanel()  # a device opened again gets its frames
    writer.submit(other, "again")
    writer.stop(WAIT)
    assert other.frames == ["again"]


def screen(n: int) -> Screen:
    return Screen("Dice  d6", (f"roll {n}",), big=str(n), footer="G roll")


def test_the_display_in_the_background_marks_itself_lost_on_the_loops_thread() -> None:
    loop = Loop(VirtualClock())
    panels: list[GatedPanel] = []
    broken_next = [False]

    def opened() -> GatedPanel:
        panels.append(GatedPanel())
        panels[-1].broken = broken_next[0]
        return panels[-1]

    display = Display(opened)
    display.write_in_background(loop.post)
    lost: list[bool] = []
    display.on_lost.append(lambda: lost.append(display.available))
    assert display.show(screen(1))  # handed over: the loop does not wait for the bus
    assert display.flush(WAIT)
    assert len(panels[0].frames) == 1
    assert isinstance(panels[0].frames[0], Image.Image)
    panels[0].broken = True
    assert display.show(screen(2))
    assert display.flush(WAIT)
    assert display.available  # nothing changes off the loop's thread: only a queued call
    loop.drain()
    assert not display.available and lost == [False] and panels[0].cleaned
    broken_next[0] = True  # it opens but takes no frame: not back (written on this thread)
    assert not display.retry() and not display.available
    broken_next[0] = False
    assert display.retry()  # the retry's deadline: a new device, the current frame on it
    assert len(panels[2].frames) == 1 and panels[2].threads == {threading.current_thread().name}
    assert display.show(screen(3))
    assert display.flush(WAIT)
    assert len(panels[2].frames) == 2 and "frame-writer" in panels[2].threads
    display.close(keep_picture=True)
    assert panels[2].cleaned and display.writer is None


def test_the_daemon_retries_a_display_lost_in_the_background(tmp_path: Any) -> None:
    from companion.app import Parts
    from companion.core.config import from_dict
    from companion.daemon import Daemon
    from companion.hal.pins import make_factory

    panels: list[GatedPanel] = []

    def opened() -> GatedPanel:
        panels.append(GatedPanel())
        return panels[-1]

    config = from_dict(
        {"hardware": {"pin_factory": "mock"}, "state": {"dir": str(tmp_path / "state")}}
    )
    display = Display(opened)

    class Quiet:
        def __getattr__(self, name: str) -> Any:
            return lambda *args, **kwargs: 0

    daemon = Daemon(
        config, Parts(make_factory("mock"), display), clock=VirtualClock(), notifier=Quiet()
    )
    app = daemon.app
    display.write_in_background(app.loop.post)
    app.start()
    daemon.ready()
    assert display.flush(WAIT)
    panels[0].broken = True
    app.loop.post(Call(lambda: display.show(screen(3))))
    app.loop.drain()
    assert display.flush(WAIT)
    app.loop.drain()  # the writer's report: the display is lost, the retry armed
    assert not display.available
    assert app.loop.pending("display-retry") is not None
    app.loop.advance_to(app.clock.now() + DISPLAY_RETRY_SECONDS)
    assert display.flush(WAIT)
    assert display.available and len(panels) == 2 and panels[1].frames
    app.shutdown()
