"""The systemd notifier against a real AF_UNIX datagram socket, as systemd would listen."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.pi.notify import Notifier


class FakeSystemd:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def messages(self) -> list[str]:
        """Everything received so far, without waiting for more."""
        out = []
        while True:
            try:
                out.append(self.sock.recv(4096).decode())
            except BlockingIOError:
                return out


@pytest.fixture
def systemd(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSystemd]:
    # A short directory: AF_UNIX paths are limited to about 100 bytes.
    with tempfile.TemporaryDirectory(prefix="tc-") as tmp:
        path = Path(tmp) / "notify"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(path))
        sock.setblocking(False)
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        try:
            yield FakeSystemd(sock)
        finally:
            sock.close()


def test_ready_status_and_stopping_reach_systemd(systemd: FakeSystemd) -> None:
    notifier = Notifier()
    assert notifier.enabled
    notifier.ready()
    notifier.status("display ok, reader missing")
    notifier.stopping()
    notifier.close()
    assert systemd.messages() == ["READY=1", "STATUS=display ok, reader missing", "STOPPING=1"]


def test_ready_can_carry_a_status(systemd: FakeSystemd) -> None:
    notifier = Notifier()
    notifier.ready("dice game")
    notifier.close()
    assert systemd.messages() == ["READY=1\nSTATUS=dice game"]


def test_a_multi_line_status_is_sent_as_one_line(systemd: FakeSystemd) -> None:
    notifier = Notifier()
    notifier.status("display: missing\n\nreader: ok\n")
    notifier.close()
    assert systemd.messages() == ["STATUS=display: missing / reader: ok"]


def test_watchdog_is_petted_only_while_every_worker_lives(
    systemd: FakeSystemd, caplog: pytest.LogCaptureFixture
) -> None:
    notifier = Notifier()
    assert notifier.watchdog(workers_alive=True) is True
    assert systemd.messages() == ["WATCHDOG=1"]
    assert notifier.watchdog(workers_alive=False) is False
    assert notifier.watchdog(workers_alive=False) is False
    assert systemd.messages() == []
    # The journal says why the pings stopped, once rather than every loop.
    assert sum("worker thread has stopped" in r.message for r in caplog.records) == 1
    assert notifier.watchdog(workers_alive=True) is True
    notifier.close()
    assert systemd.messages() == ["WATCHDOG=1"]


def test_abstract_socket_addresses_work(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"trap-companion-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(1)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        notifier = Notifier()
        notifier.ready()
        notifier.close()
        assert sock.recv(64) == b"READY=1"


def test_without_notify_socket_every_call_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    notifier = Notifier()
    assert not notifier.enabled
    notifier.ready()
    notifier.status("x")
    notifier.stopping()
    assert notifier.watchdog(workers_alive=True) is False


def test_an_unreachable_socket_is_logged_not_raised(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens"))
    notifier = Notifier()
    assert not notifier.enabled
    notifier.ready()
    assert "cannot reach systemd" in caplog.text


def test_a_listener_that_goes_away_is_logged_not_raised(
    systemd: FakeSystemd, caplog: pytest.LogCaptureFixture
) -> None:
    notifier = Notifier()
    os.unlink(systemd.sock.getsockname())
    systemd.sock.close()
    notifier.status("still here")
    assert notifier.watchdog(workers_alive=True) is False  # not sent, so not petted
    notifier.close()
    assert "notification 'STATUS=still here' failed" in caplog.text


@pytest.mark.parametrize(
    ("usec", "pid", "expected"),
    [
        ("10000000", None, 5.0),
        ("3000000", "self", 1.5),
        ("10000000", "1", None),  # meant for another process
        ("ten", None, None),
        ("0", None, None),
        (None, None, None),
    ],
)
def test_watchdog_interval_is_half_of_watchdog_usec(
    monkeypatch: pytest.MonkeyPatch, usec: str | None, pid: str | None, expected: float | None
) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    for key, value in (("WATCHDOG_USEC", usec), ("WATCHDOG_PID", pid)):
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, str(os.getpid()) if value == "self" else value)
    assert Notifier().watchdog_interval() == expected
