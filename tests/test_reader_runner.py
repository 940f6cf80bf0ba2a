"""The reader worker: delivery, unplug and reconnect, missing ports, crashes, backoff, stop."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from readers_support import Recorder

from companion.hal.readers.base import ReaderDriver
from companion.hal.readers.fake import FakePn532, FakeRdm6300, PtyPort
from companion.hal.readers.pn532 import Pn532Driver
from companion.hal.readers.rdm6300 import Rdm6300Driver
from companion.hal.readers.runner import ReaderRunner

TAG = "14008EC793"
FAST = (0.01, 0.02, 0.05)


def _lost(statuses: list[str]) -> int:
    return sum(s.startswith("reader lost: ") for s in statuses)


class Harness:
    """A runner wired to recorders, stopped at teardown."""

    def __init__(self) -> None:
        self.seen = Recorder()
        self.status = Recorder()
        self.runners: list[ReaderRunner] = []

    def runner(
        self,
        factory: Callable[[], ReaderDriver],
        backoff: tuple[float, ...] = FAST,
        wait: Callable[[float], bool] | None = None,
    ) -> ReaderRunner:
        runner = ReaderRunner(factory, self.seen, self.status, backoff=backoff, wait=wait)
        self.runners.append(runner)
        runner.start()
        return runner


@pytest.fixture
def harness() -> Iterator[Harness]:
    h = Harness()
    yield h
    for runner in h.runners:
        assert runner.stop(timeout=2.0)


@pytest.fixture
def modules() -> Iterator[list[FakeRdm6300]]:
    fakes: list[FakeRdm6300] = []
    yield fakes
    for fake in fakes:
        fake.close()


def test_delivers_reads_and_reports_ready(harness: Harness, modules: list[FakeRdm6300]) -> None:
    modules.append(FakeRdm6300())
    runner = harness.runner(lambda: Rdm6300Driver(modules[0].path, read_window=0.1))
    assert harness.status.wait_for(lambda s: "reader ready: RDM6300" in s)
    assert runner.status == "reader ready: RDM6300"
    modules[0].write_frames(TAG, 3)
    assert runner.wait_seen(2, timeout=1.0)
    assert harness.seen.items == [TAG, TAG]
    assert runner.seen_count == 2
    assert runner.alive


def test_wait_seen_times_out_when_nothing_comes(
    harness: Harness, modules: list[FakeRdm6300]
) -> None:
    modules.append(FakeRdm6300())
    runner = harness.runner(lambda: Rdm6300Driver(modules[0].path, read_window=0.1))
    assert not runner.wait_seen(1, timeout=0.2)


def test_unplug_is_reported_and_a_new_port_is_picked_up(
    harness: Harness, modules: list[FakeRdm6300]
) -> None:
    modules.append(FakeRdm6300())
    runner = harness.runner(lambda: Rdm6300Driver(modules[-1].path, read_window=0.1))
    assert harness.status.wait_for(lambda s: s[-1:] == ["reader ready: RDM6300"])
    modules.append(FakeRdm6300())
    modules[0].port.unplug()
    assert harness.status.wait_for(lambda s: _lost(s) == 1)
    assert harness.status.wait_for(lambda s: s.count("reader ready: RDM6300") == 2)
    assert runner.alive
    modules[1].write_frames(TAG, 2)
    assert runner.wait_seen(1, timeout=1.0)
    assert harness.seen.items == [TAG]


class CountingRdm6300(Rdm6300Driver):
    """Counts every attempt to open the port, across the runner's reconnects."""

    opens = 0

    def open(self) -> None:
        CountingRdm6300.opens += 1
        super().open()


def test_missing_port_is_reported_once_and_never_opened(harness: Harness, tmp_path) -> None:
    CountingRdm6300.opens = 0
    gone = tmp_path / "ttyGONE"
    runner = harness.runner(lambda: CountingRdm6300(str(gone)))
    assert harness.status.wait_for(lambda s: len(s) >= 1)
    assert not harness.status.wait_for(lambda s: len(s) >= 2, timeout=0.3)
    assert harness.status.items == [f"reader lost: {gone} does not exist"]
    assert CountingRdm6300.opens == 0  # looking for a port is a stat, not an open
    assert runner.alive
    assert runner.stop()
    assert not runner.alive


def test_port_that_appears_later_is_opened(
    harness: Harness, modules: list[FakeRdm6300], tmp_path
) -> None:
    link = tmp_path / "ttyUSB0"
    runner = harness.runner(lambda: Rdm6300Driver(str(link), read_window=0.1))
    assert harness.status.wait_for(lambda s: len(s) >= 1)
    modules.append(FakeRdm6300(PtyPort(link=link)))
    assert harness.status.wait_for(lambda s: "reader ready: RDM6300" in s)
    modules[0].write_frames(TAG, 2)
    assert runner.wait_seen(1, timeout=1.0)


class VirtualWait:
    """The runner's waits on a virtual clock, with things that happen to the world at set times
    (plugging a reader in); every wait returns at once, having moved the clock on."""

    def __init__(self) -> None:
        self.now = 0.0
        self._lock = threading.Lock()
        self._plans: list[tuple[float, Callable[[], None]]] = []

    def at(self, when: float, action: Callable[[], None]) -> None:
        with self._lock:
            self._plans = sorted([*self._plans, (when, action)], key=lambda plan: plan[0])

    def __call__(self, seconds: float) -> bool:
        with self._lock:
            end = self.now + seconds
            while self._plans and self._plans[0][0] <= end:
                when, action = self._plans.pop(0)
                self.now = max(self.now, when)
                action()
            self.now = end
        time.sleep(0.001)  # let the test thread run between waits
        return False


@pytest.mark.parametrize("away", [3.0, 20.0, 300.0])
def test_a_usb_reader_plugged_back_reads_within_two_seconds_however_long_it_was_away(
    harness: Harness, modules: list[FakeRdm6300], tmp_path, caplog, away: float
) -> None:
    caplog.set_level(logging.DEBUG, logger="companion.hal.readers.runner")
    CountingRdm6300.opens = 0
    link = tmp_path / "ttyUSB0"
    modules.append(FakeRdm6300(PtyPort(link=link)))
    clock = VirtualWait()
    ready_at: list[float] = []
    plugged_at: list[float] = []

    def status(text: str) -> None:
        if text.startswith("reader ready"):
            ready_at.append(clock.now)
        harness.status(text)

    def plug_back() -> None:
        plugged_at.append(clock.now)
        modules.append(FakeRdm6300(PtyPort(link=link)))

    runner = ReaderRunner(
        lambda: CountingRdm6300(str(link), read_window=0.1), harness.seen, status, wait=clock
    )
    harness.runners.append(runner)
    runner.start()
    assert harness.status.wait_for(lambda s: s == ["reader ready: RDM6300"])
    modules[0].port.unplug()
    assert harness.status.wait_for(lambda s: _lost(s) >= 1)
    clock.at(clock.now + away, plug_back)
    assert harness.status.wait_for(lambda s: s.count("reader ready: RDM6300") == 2, timeout=5.0)

    assert plugged_at[0] - ready_at[0] >= away
    assert ready_at[1] - plugged_at[0] <= 2.0
    assert harness.status.items == [
        "reader ready: RDM6300",
        f"reader lost: {link} does not exist",
        "reader ready: RDM6300",
    ]
    assert CountingRdm6300.opens == 2  # the port was never opened while it was away
    modules[-1].write_frames(TAG, 2)
    assert runner.wait_seen(1, timeout=1.0)
    # The runner logs only at debug level: the app says it once per outage and once on return.
    assert [r for r in caplog.records if r.levelno >= logging.INFO] == []


def test_a_usb_reader_plugged_back_reads_again_on_the_real_clock(
    harness: Harness, modules: list[FakeRdm6300], tmp_path
) -> None:
    link = tmp_path / "ttyUSB0"
    modules.append(FakeRdm6300(PtyPort(link=link)))
    runner = ReaderRunner(
        lambda: Rdm6300Driver(str(link), read_window=0.1), harness.seen, harness.status
    )  # the daemon's own backoff and probe interval
    harness.runners.append(runner)
    runner.start()
    assert harness.status.wait_for(lambda s: s == ["reader ready: RDM6300"])
    modules[0].port.unplug()
    assert harness.status.wait_for(lambda s: _lost(s) == 1)
    assert not harness.status.wait_for(lambda s: len(s) > 2, timeout=0.8)
    modules.append(FakeRdm6300(PtyPort(link=link)))
    plugged = time.monotonic()
    assert harness.status.wait_for(lambda s: s[-1:] == ["reader ready: RDM6300"], timeout=2.0)
    assert time.monotonic() - plugged <= 2.0
    modules[-1].write_frames(TAG, 2)
    assert runner.wait_seen(1, timeout=1.0)


class Flaky:
    """A driver that crashes with a programming error on its first read."""

    kind = "flaky"
    crashes = 0

    def open(self) -> None:
        return None

    def read_uids(self) -> list[str]:
        if Flaky.crashes == 0:
            Flaky.crashes += 1
            raise RuntimeError("decoder bug")
        return ["CAFE0001"]

    def close(self) -> None:
        return None

    def describe(self) -> str:
        return "flaky"


def test_unexpected_errors_are_logged_and_the_worker_carries_on(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    Flaky.crashes = 0
    with caplog.at_level(logging.ERROR, logger="companion.hal.readers.runner"):
        runner = harness.runner(Flaky)
        assert runner.wait_seen(1, timeout=1.0)
    assert runner.alive
    assert "reader error: decoder bug" in harness.status.items
    crash = [r for r in caplog.records if r.exc_info and r.exc_info[0] is RuntimeError]
    assert crash, "the crash is logged with its traceback"


def test_a_failing_consumer_does_not_stop_reading(modules: list[FakeRdm6300]) -> None:
    modules.append(FakeRdm6300())

    def explode(uid: str) -> None:
        raise KeyError(uid)

    status = Recorder()
    runner = ReaderRunner(
        lambda: Rdm6300Driver(modules[0].path, read_window=0.1), explode, status, backoff=FAST
    )
    runner.start()
    try:
        assert status.wait_for(lambda s: "reader ready: RDM6300" in s)
        modules[0].write_frames(TAG, 4)
        assert runner.wait_seen(3, timeout=1.0)
        assert runner.alive
    finally:
        assert runner.stop()


def test_backoff_grows_and_stays_at_the_last_step(harness: Harness, tmp_path) -> None:
    delays: list[float] = []
    enough = threading.Event()

    def wait(seconds: float) -> bool:
        delays.append(seconds)
        if len(delays) >= 5:
            enough.set()
        return False

    not_a_tty = tmp_path / "not-a-tty"  # there, but it fails to open every time
    not_a_tty.write_text("")
    runner = harness.runner(
        lambda: Rdm6300Driver(str(not_a_tty)), backoff=(1.0, 2.0, 3.0), wait=wait
    )
    assert enough.wait(1.0)
    assert runner.stop()
    assert delays[:5] == [1.0, 2.0, 3.0, 3.0, 3.0]


def test_backoff_restarts_after_a_successful_open(
    harness: Harness, modules: list[FakeRdm6300]
) -> None:
    modules.append(FakeRdm6300())
    delays: list[float] = []
    reopened = threading.Event()

    def wait(seconds: float) -> bool:
        delays.append(seconds)
        if len(delays) == 3:
            reopened.set()
        return False

    runner = harness.runner(
        lambda: Rdm6300Driver(modules[-1].path, read_window=0.1), backoff=(1.0, 2.0, 3.0), wait=wait
    )
    for cycle in range(1, 4):
        assert harness.status.wait_for(lambda s, n=cycle: s.count("reader ready: RDM6300") == n)
        modules.append(FakeRdm6300())
        modules[-2].port.unplug()
        assert harness.status.wait_for(lambda s, n=cycle: _lost(s) == n)
    assert reopened.wait(1.0)
    assert runner.stop()
    assert delays[:3] == [1.0, 1.0, 1.0]


def test_stop_interrupts_a_long_backoff(harness: Harness, tmp_path) -> None:
    not_a_tty = tmp_path / "not-a-tty"
    not_a_tty.write_text("")
    runner = harness.runner(lambda: Rdm6300Driver(str(not_a_tty)), backoff=(30.0,))
    assert harness.status.wait_for(lambda s: len(s) >= 1)
    started = time.monotonic()
    assert runner.stop(timeout=1.0)
    assert time.monotonic() - started < 1.0
    assert not runner.alive


def test_runner_with_a_pn532(harness: Harness) -> None:
    chip = FakePn532()
    try:
        runner = harness.runner(lambda: Pn532Driver(chip.path, poll_interval=0.02))
        assert harness.status.wait_for(lambda s: "reader ready: PN532 firmware 1.6" in s)
        chip.present("04A1B2C3D4E5F6")
        assert runner.wait_seen(2, timeout=1.0)
        assert set(harness.seen.items) == {"04A1B2C3D4E5F6"}
        chip.port.unplug()
        assert harness.status.wait_for(lambda s: _lost(s) == 1)
        assert runner.alive
    finally:
        assert harness.runners[0].stop()
        chip.close()


def test_stopping_a_runner_aborts_the_pn532_wait_at_once(harness: Harness) -> None:
    chip = FakePn532()
    try:
        runner = harness.runner(lambda: Pn532Driver(chip.path))  # the daemon's 1 s window
        assert chip.wait_until(waiting=True, timeout=2.0)
        started = time.monotonic()
        assert runner.stop(timeout=2.0)
        assert time.monotonic() - started < 0.5
        assert chip.wait_until(waiting=False, timeout=1.0)  # the host's ACK aborted it
        assert not any(s.startswith("reader lost") for s in harness.status.items)
    finally:
        chip.close()


def test_rejects_an_empty_or_negative_backoff() -> None:
    with pytest.raises(ValueError, match="backoff"):
        ReaderRunner(lambda: Rdm6300Driver("x"), Recorder(), Recorder(), backoff=())
    with pytest.raises(ValueError, match="backoff"):
        ReaderRunner(lambda: Rdm6300Driver("x"), Recorder(), Recorder(), backoff=(1.0, -1.0))
    with pytest.raises(ValueError, match="probe interval"):
        ReaderRunner(lambda: Rdm6300Driver("x"), Recorder(), Recorder(), probe_interval=0)


def test_stop_cancels_a_long_blocked_read_at_once(tmp_path) -> None:
    module = FakeRdm6300()
    try:
        runner = ReaderRunner(
            lambda: Rdm6300Driver(module.path, read_window=30.0), lambda uid: None, lambda t: None
        )
        runner.start()
        deadline = time.monotonic() + 2
        while runner.status != "reader ready: RDM6300" and time.monotonic() < deadline:
            time.sleep(0.01)
        started = time.monotonic()
        assert runner.stop(timeout=2.0)
        assert time.monotonic() - started < 1.0
    finally:
        module.close()
