"""Degraded hardware: the daemon plays on without its OLED or its card reader, says so in the
STATUS line and in one clear journal line per outage (no traceback), and picks the display up
again when it answers. A config error stops it with status 78 and the reason on stderr.

The in-process tests drive the Daemon's own deadlines (display retry, status reports) on a
virtual clock; the subprocess test checks what systemd and journald would see.
"""

from __future__ import annotations

import errno
import logging
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from luma.core.error import DeviceNotFoundError
from PIL import ImageChops

from companion.app import Parts
from companion.core.clock import VirtualClock
from companion.core.config import from_dict
from companion.core.events import ReaderStatus
from companion.daemon import DISPLAY_RETRY_SECONDS, Daemon
from companion.hal.display import Display, open_device
from companion.hal.pins import make_factory
from companion.hal.readers.base import make_driver
from companion.hal.readers.fake import FakeRdm6300, PtyPort
from companion.ui.render import render

MISSING_PORT = "/dev/ttyTRAP-COMPANION-MISSING"


class Notifier:
    """Records what the daemon tells systemd."""

    def __init__(self) -> None:
        self.ready_status: str | None = None
        self.statuses: list[str] = []

    def ready(self, status: str | None = None) -> None:
        self.ready_status = status

    def status(self, text: str) -> None:
        self.statuses.append(text)

    def stopping(self) -> None:
        self.statuses.append("stopping")

    def watchdog(self, workers_alive: bool, answering: bool = True) -> bool:
        return workers_alive and answering

    def watchdog_interval(self) -> float | None:
        return None


class Panel:
    """A luma dummy that can drop off the bus like a loose I2C wire: writes raise OSError 121."""

    def __init__(self) -> None:
        self.inner = open_device("dummy")
        self.width, self.height = self.inner.width, self.inner.height
        self.persist = False
        self.broken = False

    @property
    def image(self) -> Any:
        return self.inner.image

    def display(self, image: Any) -> None:
        if self.broken:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.inner.display(image)

    def cleanup(self) -> None:
        if self.broken:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")


class Bus:
    """Opens panels; while ``answering`` is False nothing is at the address."""

    def __init__(self, answering: bool) -> None:
        self.answering = answering
        self.panels: list[Panel] = []

    def __call__(self) -> Panel:
        if not self.answering:
            raise DeviceNotFoundError("I2C device not found: /dev/i2c-1")
        self.panels.append(Panel())
        return self.panels[-1]


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Callable[..., Daemon]]:
    made: list[tuple[Daemon, Any]] = []

    def make(display: Callable[[], Any], reader: str = "none", port: str = MISSING_PORT) -> Daemon:
        sections: dict[str, Any] = {
            "hardware": {"pin_factory": "mock"},
            "display": {"driver": "dummy"},
            "state": {"dir": str(tmp_path / "state")},
            "reader": {"type": "none"},
        }
        driver = None
        if reader != "none":
            sections["reader"] = {"type": reader, "port": port}
            driver = lambda: make_driver(reader, port)  # noqa: E731
        config = from_dict(sections, "test")
        factory = make_factory("mock")
        parts = Parts(factory, Display(display), driver, reader)
        daemon = Daemon(config, parts, VirtualClock(), Notifier())
        made.append((daemon, factory))
        # The reader thread posts through loop.post: a condition lets a test wait for it.
        posted = threading.Condition()
        enqueue = daemon.app.loop.post

        def post(event: Any) -> None:
            enqueue(event)
            with posted:
                posted.notify_all()

        daemon.app.loop.post = post  # type: ignore[method-assign]
        daemon.posted = posted  # type: ignore[attr-defined]
        daemon.app.start()
        daemon.ready()
        return daemon

    yield make
    for daemon, factory in made:
        daemon.app.shutdown()
        factory.reset()
        factory.close()


def press(daemon: Daemon, button: str) -> None:
    app = daemon.app
    pin = app.parts.factory.pin(app.config.buttons.pins()[button])
    pin.drive_low()
    app.loop.advance_to(app.clock.now() + 0.05)
    pin.drive_high()
    app.loop.advance_to(app.clock.now() + 0.05)


def rolls(daemon: Daemon) -> int:
    return len(daemon.app.session.state.history)


def journal_size(daemon: Daemon) -> int:
    return (daemon.config.state_dir() / "journal.jsonl").stat().st_size


def assert_plain_log(caplog: pytest.LogCaptureFixture) -> None:
    """journald shows one line per record: no tracebacks, no multi-line messages."""
    for record in caplog.records:
        assert record.exc_info is None, record.getMessage()
        assert "\n" not in record.getMessage()
    assert "Traceback" not in caplog.text


def warnings_from(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_display_missing_at_start_leaves_the_box_playing_until_it_answers(
    box: Callable[..., Daemon], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    bus = Bus(answering=False)
    daemon = box(bus)
    notifier, app = daemon.notifier, daemon.app
    assert "display not answering, retrying" in notifier.ready_status
    assert "DeviceNotFoundError: I2C device not found: /dev/i2c-1" in notifier.ready_status

    app.new_game("dice", {})
    size = journal_size(daemon)
    press(daemon, "green")
    press(daemon, "green")
    assert rolls(daemon) == 2  # the LED, the buzzer and the journal carry on
    assert journal_size(daemon) > size
    assert app.display.lines[0].startswith("Dice")  # the box still knows what it would show

    app.loop.advance_to(app.clock.now() + DISPLAY_RETRY_SECONDS)
    assert not app.display.available  # still missing: retried, quietly

    bus.answering = True
    app.loop.advance_to(app.clock.now() + DISPLAY_RETRY_SECONDS)
    assert app.display.available
    assert "display ok" in notifier.statuses[-1]
    frame = render(app.current()[0])
    assert ImageChops.difference(bus.panels[-1].image, frame).getbbox() is None

    display_warnings = [w for w in warnings_from(caplog) if "display" in w]
    assert display_warnings == [
        "display unavailable, carrying on without it: "
        "DeviceNotFoundError: I2C device not found: /dev/i2c-1"
    ]
    assert "display is back" in caplog.text
    assert_plain_log(caplog)


def test_a_display_dropping_out_mid_game_is_reported_and_picked_up_again(
    box: Callable[..., Daemon], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    bus = Bus(answering=True)
    daemon = box(bus)
    notifier, app = daemon.notifier, daemon.app
    assert "display ok" in notifier.ready_status
    app.new_game("dice", {})
    press(daemon, "green")

    bus.panels[0].broken = True  # the wire comes loose
    bus.answering = False
    press(daemon, "green")
    press(daemon, "red")
    assert rolls(daemon) == 3
    assert not app.display.available
    lost = notifier.statuses[-1]
    assert lost.startswith("Dice; display not answering, retrying (OSError: [Errno 121]")

    app.loop.advance_to(app.clock.now() + DISPLAY_RETRY_SECONDS)
    press(daemon, "green")
    assert rolls(daemon) == 4

    bus.answering = True  # pushed back in
    app.loop.advance_to(app.clock.now() + DISPLAY_RETRY_SECONDS)
    assert app.display.available and len(bus.panels) == 2
    assert notifier.statuses[-1] == "Dice; display ok; no reader"
    frame = render(app.current()[0])
    assert ImageChops.difference(bus.panels[-1].image, frame).getbbox() is None

    assert [w for w in warnings_from(caplog) if "display" in w] == [
        "display unavailable, carrying on without it: OSError: [Errno 121] Remote I/O error"
    ]
    assert_plain_log(caplog)


def test_a_missing_reader_leaves_the_games_without_cards_playable(
    box: Callable[..., Daemon], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    daemon = box(Bus(answering=True), reader="rdm6300")
    app = daemon.app
    with daemon.posted:
        assert daemon.posted.wait_for(lambda: app.runner.status.startswith("reader lost"), 5)
    app.loop.drain()
    assert app.reader_status.startswith("reader lost")
    status = daemon.notifier.statuses[-1]
    assert status.startswith("menu; display ok; reader lost: ")
    assert MISSING_PORT in status and status.endswith("(retrying)")
    assert app.runner.alive  # it keeps retrying, so the watchdog stays fed

    app.new_game("dice", {})
    press(daemon, "green")
    press(daemon, "green")
    assert rolls(daemon) == 2

    warnings = [w for w in warnings_from(caplog) if "reader" in w]
    assert len(warnings) == 1
    assert warnings[0].startswith("card reader unavailable, games without cards play on: ")
    assert_plain_log(caplog)


def test_reader_retries_are_said_once_and_do_not_cover_the_game(
    box: Callable[..., Daemon], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    daemon = box(Bus(answering=True))
    app = daemon.app
    app.new_game("dice", {})
    press(daemon, "green")
    lost = "reader lost: [Errno 2] could not open port /dev/serial0"
    app.loop.post(ReaderStatus(lost))
    app.loop.drain()
    assert app.toast is not None  # the first loss is shown once...
    app.loop.advance_to(app.clock.now() + 3.0)
    assert app.toast is None
    for _ in range(3):
        app.loop.post(ReaderStatus(lost))
        app.loop.advance_to(app.clock.now() + 10.0)
        assert app.toast is None  # ...every retry after it is not
    assert app.display.lines[0].startswith("Dice")
    app.loop.post(ReaderStatus("reader ready: RDM6300"))
    app.loop.drain()
    app.loop.post(ReaderStatus(lost))  # a new outage is said again
    app.loop.drain()
    assert sum("card reader unavailable" in w for w in warnings_from(caplog)) == 2
    assert daemon.notifier.statuses[-1].endswith(f"{lost} (retrying)")


def test_a_usb_reader_pulled_out_and_back_is_one_line_each_way(
    box: Callable[..., Daemon], caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.INFO)
    link = tmp_path / "ttyUSB0"
    devices = [FakeRdm6300(PtyPort(link=link))]
    try:
        daemon = box(Bus(answering=True), reader="rdm6300", port=str(link))
        app = daemon.app

        def status_becomes(prefix: str) -> None:
            with daemon.posted:
                assert daemon.posted.wait_for(lambda: app.runner.status.startswith(prefix), 5)
            app.loop.drain()

        status_becomes("reader ready")
        caplog.clear()
        devices[0].port.unplug()
        status_becomes("reader lost")
        assert daemon.notifier.statuses[-1].endswith(f"{link} does not exist (retrying)")
        devices.append(FakeRdm6300(PtyPort(link=link)))
        status_becomes("reader ready")
        assert daemon.notifier.statuses[-1].endswith("reader ready: RDM6300")
        said = [(r.levelname, r.getMessage()) for r in caplog.records]
        assert said == [
            (
                "WARNING",
                f"card reader unavailable, games without cards play on: reader lost: {link} "
                "does not exist",
            ),
            ("INFO", "reader ready: RDM6300"),
        ]
    finally:
        for device in devices:
            device.close()


# --- what systemd and journald see -------------------------------------------------------------


def test_the_daemon_runs_without_display_and_reader_and_journald_gets_one_line_each(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[hardware]\npin_factory = "mock"\n'
        '[display]\ndriver = "ssd1306"\ni2c_port = 20\n'  # no /dev/i2c-20 here
        f'[reader]\nport = "{MISSING_PORT}"\n[state]\ndir = "{tmp_path}/state"\n'
    )
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.settimeout(120)  # a hang guard: READY=1 took up to 12 s at a Pi Zero 2 W's pace
    env = {"NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        messages = []
        while not any("reader lost" in m for m in messages):
            messages.append(sock.recv(4096).decode())
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    stderr = proc.stderr.read()
    assert code == 0
    ready = next(m for m in messages if "READY=1" in m)
    assert "display not answering, retrying (DeviceNotFoundError" in ready
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    display = [x for x in lines if x.startswith("WARNING") and "display" in x]
    reader = [x for x in lines if x.startswith("WARNING") and "reader" in x]
    assert display == [
        "WARNING companion.hal.display: display unavailable, carrying on without it: "
        "DeviceNotFoundError: I2C device not found: /dev/i2c-20"
    ]
    assert len(reader) == 1 and MISSING_PORT in reader[0]
    assert reader[0].startswith("WARNING companion.app: card reader unavailable")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[display]\ndriver = "oled9000"\n', ':2: display.driver = "oled9000"'),
        ("[buttons]\nup = 5\ndown = 5\n", "GPIO 5 is already used by buttons.up"),
        ("[reader\n", "not valid TOML"),
    ],
)
def test_a_config_error_exits_78_with_one_line_on_stderr(
    tmp_path: Path, text: str, message: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 78
    assert message in proc.stderr
    assert str(config) in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_no_retry_timer_while_the_display_works_or_when_none_is_configured(tmp_path):
    from companion.app import Parts
    from companion.core.clock import VirtualClock
    from companion.core.config import Config
    from companion.daemon import Daemon
    from companion.hal.display import Display, open_device
    from companion.hal.pins import make_factory

    for display in (Display(lambda: open_device("dummy")), Display(None)):
        factory = make_factory("mock")
        config = Config().simulated(tmp_path / str(id(display)))
        daemon = Daemon(config, Parts(factory, display), clock=VirtualClock(), notifier=_Quiet())
        daemon.app.start()
        daemon.ready()
        assert daemon.app.loop.pending("display-retry") is None
        daemon.app.shutdown()
        factory.reset()
        factory.close()


class _Quiet:
    def ready(self, status=None): ...
    def status(self, text): ...
    def watchdog_interval(self):
        return None
