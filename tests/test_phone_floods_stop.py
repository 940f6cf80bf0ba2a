"""Issue 33 point 4: `trap-companion run` with phones on stops on SIGTERM within the unit's
TimeoutStopSec while its phones' port is flooded (bounded loopback floods, only 127.0.0.0/8,
a few seconds each): a paired phone pressing as fast as it can, a JSON-bomb flood, and slow
readers from 5 addresses. Once a phone's 2,472 presses a second held a SIGTERM off for 120 s.
How long the stop takes is measured by `bench`; here: it stops, cleanly, before systemd's kill."""

from __future__ import annotations

import contextlib
import http.client
import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_daemon import _stop_timeout

from companion.core.config import Config
from companion.sim.box import SimulatedBox
from companion.web.pairing import PHONES_FILE, token_hash
from tests.phones_support import free_port

TOKEN = "7" * 64
FLOOD_SECONDS = 2.0  # the flood alone before SIGTERM; it goes on until the box has stopped
THREADS = 4
SOURCES = 5


class Daemon:
    """The real `run` on mock pins with the phones on a loopback port, a phone paired."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        state = tmp / "state"
        state.mkdir()
        left = {"version": 2, "phones": [{"sha256": token_hash(TOKEN), "left": 3600}]}
        (state / PHONES_FILE).write_text(json.dumps(left))
        self.state = state
        box = SimulatedBox(Config(), state_dir=state)  # a dice game in play, resumed by `run`
        box.app.start()
        box.app.new_game("dice", {})
        box.loop.drain()
        box.close()
        self.config = tmp / "config.toml"
        self.config.write_text(
            '[hardware]\npin_factory = "mock"\n[display]\ndriver = "dummy"\n'
            f'[reader]\ntype = "none"\n[state]\ndir = "{state}"\n'
            f"[phones]\nenabled = true\nport = {self.port}\n"
        )
        self.log = tmp / "run.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parents[1])}
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "companion", "run", "--config", str(self.config)],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        end = time.monotonic() + 60  # a loaded machine starts slowly
        while time.monotonic() < end:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=1),
            ):
                return
            assert self.proc.poll() is None, self.log.read_text()
            time.sleep(0.1)
        raise AssertionError("the phones' port never opened")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    d = Daemon(tmp_path)
    d.start()
    try:
        yield d
    finally:
        d.kill()


def _conn(port: int, source: str = "127.0.0.1") -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", port, timeout=2, source_address=(source, 0))


def _press_flood(port: int, stop: threading.Event, counts: dict[int, int]) -> None:
    """A paired phone's presses on one kept-alive connection, as fast as the box answers."""
    headers = {
        "Host": f"127.0.0.1:{port}",
        "Origin": f"http://127.0.0.1:{port}",
        "Cookie": f"tc_phone={TOKEN}",
        "Content-Length": "0",
    }
    conn = _conn(port)
    while not stop.is_set():
        try:
            conn.request("POST", "/api/press/green", headers=headers)  # a roll, journaled
            response = conn.getresponse()
            response.read()
            counts[response.status] = counts.get(response.status, 0) + 1
        except (OSError, http.client.HTTPException):
            counts[0] = counts.get(0, 0) + 1
            conn.close()
            conn = _conn(port)
    conn.close()


def _json_bomb(port: int, stop: threading.Event, counts: dict[int, int]) -> None:
    """Bodies of brackets nested as deep as 4 KB allows, to pairing, from 5 addresses."""
    body = b"[" * 2000 + b"]" * 2000
    headers = {
        "Host": f"127.0.0.1:{port}",
        "Origin": f"http://127.0.0.1:{port}",
        "Content-Type": "application/json",
    }
    n = 0
    while not stop.is_set():
        n += 1
        conn = _conn(port, f"127.0.0.{10 + n % SOURCES}")
        try:
            conn.request("POST", "/api/pair", body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            counts[response.status] = counts.get(response.status, 0) + 1
        except (OSError, http.client.HTTPException):
            counts[0] = counts.get(0, 0) + 1
        finally:
            conn.close()


def _slow_read(port: int, stop: threading.Event, counts: dict[int, int]) -> None:
    """Connections from 5 addresses asking for the phone's script, pipelined, never read."""
    ask = (f"GET /phone.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n" * 60).encode()
    held: list[socket.socket] = []
    try:
        while not stop.is_set() and len(held) < 160:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            s.bind((f"127.0.0.{10 + len(held) % SOURCES}", 0))
            s.settimeout(1.0)
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(ask)
            except OSError:
                s.close()
                counts[0] = counts.get(0, 0) + 1
                continue
            held.append(s)
            counts[1] = counts.get(1, 0) + 1
        stop.wait(30)
    finally:
        for s in held:
            s.close()


FLOODS: dict[str, Callable[[int, threading.Event, dict[int, int]], None]] = {
    "press": _press_flood,
    "json-bomb": _json_bomb,
    "slow-read": _slow_read,
}


@pytest.mark.parametrize("kind", sorted(FLOODS))
def test_the_box_stops_within_timeout_stop_sec_under_a_flood(daemon: Daemon, kind: str) -> None:
    stop = threading.Event()
    counts: dict[int, int] = {}
    flooders = [
        threading.Thread(target=FLOODS[kind], args=(daemon.port, stop, counts), daemon=True)
        for _ in range(THREADS if kind != "slow-read" else 1)
    ]
    for t in flooders:
        t.start()
    try:
        time.sleep(FLOOD_SECONDS)
        assert daemon.proc is not None
        daemon.proc.send_signal(signal.SIGTERM)  # the flood goes on meanwhile
        code = daemon.proc.wait(timeout=_stop_timeout())
    finally:
        stop.set()
        for t in flooders:
            t.join(10)
    log = daemon.log.read_text()
    assert code == 0, log
    assert "stopping (SIGTERM)" in log
    assert "Traceback" not in log
    rolls = _rolls_after_restart(daemon.state)
    if kind == "press":
        assert counts.get(429, 0) > 0 and counts.get(200, 0) > 0, counts
        assert "faster than a person presses" in log
        # every roll answered 200 was journaled; a roll may be journaled and not answered
        # (the stop closed its connection), never the other way round
        unanswered = counts.get(0, 0) + counts.get(202, 0)
        assert counts[200] <= rolls <= counts[200] + unanswered, (rolls, counts)
    else:
        assert rolls == 0
    if kind == "json-bomb":
        assert counts.get(400, 0) > 0, counts
    if kind == "slow-read":
        assert counts.get(1, 0) > 0, counts


def _rolls_after_restart(state: Path) -> int:
    """The box started again on the state the stop left: the dice game resumes whole (its
    journal readable, not set aside); how many rolls it holds."""
    box = SimulatedBox(Config(), state_dir=state)
    try:
        box.app.start()
        box.loop.drain()
        session = box.app.session
        assert session is not None and session.name == "dice", box.app.menu
        assert not list(state.glob("*damaged*")) and not list(state.glob("*unreadable*"))
        return len(session.state.dice)
    finally:
        box.close()
