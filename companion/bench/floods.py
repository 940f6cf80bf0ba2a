"""The box's own button press to frame, quiet and while its phones' port is flooded (issue 33).

Three floods, each from a process of its own (an attacker's CPU is not the box's interpreter),
only to 127.0.0.0/8 and bounded in time:

- ``json-bomb``: bodies of 4 KB of nested brackets posted to pairing, new connections from 5
  addresses, 4 at a time, as fast as the box answers;
- ``slow-read``: 160 connections from 5 addresses, each asking for the phone's script 60 times
  pipelined and reading nothing, opened again as the box closes them;
- ``press``: a paired phone pressing green (a roll, journaled) on 4 kept-alive connections as
  fast as the box answers.

``button_under_floods`` times the box's own green press (mock pin edge to the frame it drew) in
one running box: quiet, then under each flood. The floods also serve the tests
(tests/test_phone_floods_stop.py). Run one by hand: ``python -m companion.bench.floods KIND
PORT TOKEN SECONDS``.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FLOODS = ("json-bomb", "slow-read", "press")
THREADS = 4
SOURCES = 5
HELD = 160  # slow readers held at once
Counts = dict[int, int]
# The answers that show a flood is on, whatever the pace: the box refused a bomb as malformed,
# held a slow reader, passed a phone's burst and refused its presses beyond its pace.
FLOODING: dict[str, tuple[int, ...]] = {"json-bomb": (400,), "slow-read": (1,), "press": (200, 429)}
# Hang guards, never timings (the figures are measured, not bounded; the whole bench's): under QEMU
# at load 12 the phones' server took over 10 s to start and a request over 2 s.
START_WAIT = 120.0  # a box's READY=1, the phones' server up, a flood's FLOODING answers all seen
ANSWER_WAIT = 30.0  # one request's answer (0 counted if none): the box answers even when busy
FRAME_WAIT = 60.0  # the frame of the box's own press


def _count(counts: Counts, status: int) -> None:
    counts[status] = counts.get(status, 0) + 1


def _conn(port: int, source: str = "127.0.0.1") -> http.client.HTTPConnection:
    return http.client.HTTPConnection(
        "127.0.0.1", port, timeout=ANSWER_WAIT, source_address=(source, 0)
    )


def press_flood(port: int, stop: threading.Event, counts: Counts, token: str) -> None:
    """A paired phone's green presses on one kept-alive connection, as fast as answered.
    Counts each answer's status (0: the connection failed)."""
    headers = {
        "Host": f"127.0.0.1:{port}",
        "Origin": f"http://127.0.0.1:{port}",
        "Cookie": f"tc_phone={token}",
        "Content-Length": "0",
    }
    conn = _conn(port)
    while not stop.is_set():
        try:
            conn.request("POST", "/api/press/green", headers=headers)
            response = conn.getresponse()
            response.read()
            _count(counts, response.status)
        except (OSError, http.client.HTTPException):
            _count(counts, 0)
            conn.close()
            conn = _conn(port)
    conn.close()


def json_bomb(port: int, stop: threading.Event, counts: Counts, token: str = "") -> None:
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
            _count(counts, response.status)
        except (OSError, http.client.HTTPException):
            _count(counts, 0)
        finally:
            conn.close()


def slow_read(port: int, stop: threading.Event, counts: Counts, token: str = "") -> None:
    """Up to HELD connections from 5 addresses, each asking for the phone's script 60 times
    pipelined, never read; every 2 s those older than 10 s are let go and opened anew.
    Counts 1 for each connection opened, 0 for each refused."""
    ask = (f"GET /phone.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n" * 60).encode()
    held: list[tuple[float, socket.socket]] = []
    n = 0
    try:
        while not stop.is_set():
            now = time.monotonic()
            for item in [h for h in held if now - h[0] > 10.0]:
                held.remove(item)
                item[1].close()
            while len(held) < HELD and not stop.is_set():
                n += 1
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
                s.bind((f"127.0.0.{10 + n % SOURCES}", 0))
                s.settimeout(1.0)
                try:
                    s.connect(("127.0.0.1", port))
                    s.sendall(ask)
                except OSError:
                    s.close()
                    _count(counts, 0)
                    continue
                held.append((time.monotonic(), s))
                _count(counts, 1)
            stop.wait(2.0)
    finally:
        for _, s in held:
            s.close()


FLOODERS: dict[str, Callable[[int, threading.Event, Counts, str], None]] = {
    "json-bomb": json_bomb,
    "slow-read": slow_read,
    "press": press_flood,
}


def flood(kind: str, port: int, token: str, stop: threading.Event) -> tuple[list[Any], Counts]:
    """Start ``kind``'s threads (daemon threads); set ``stop`` to end them."""
    counts: Counts = {}
    threads = [
        threading.Thread(
            target=FLOODERS[kind], args=(port, stop, counts, token), name=kind, daemon=True
        )
        for _ in range(1 if kind == "slow-read" else THREADS)
    ]
    for t in threads:
        t.start()
    return threads, counts


def flooding(kind: str, counts: Counts, stop: threading.Event, guard: float = START_WAIT) -> bool:
    """Wait until each of ``kind``'s FLOODING answers has come at least once (the flood is on
    at whatever pace the box and this machine have); False if ``guard`` seconds or ``stop``
    came first."""
    end = time.monotonic() + guard
    while not all(counts.get(status, 0) > 0 for status in FLOODING[kind]):
        if time.monotonic() > end or stop.wait(0.05):
            return False
    return True


def main(argv: list[str]) -> int:
    """``KIND PORT TOKEN SECONDS``: flood for at most SECONDS (or until stdin closes), then
    print the counts of answers by status. A line ``flooding`` first, once each FLOODING
    answer of the kind has come (none if the guard or SECONDS expires first)."""
    kind, port, token, seconds = argv[0], int(argv[1]), argv[2], float(argv[3])
    stop = threading.Event()
    threads, counts = flood(kind, port, token, stop)
    closer = threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True)
    closer.start()
    if flooding(kind, counts, stop, min(seconds, START_WAIT)):
        sys.stdout.write("flooding\n")
        sys.stdout.flush()
    stop.wait(seconds)
    stop.set()
    for t in threads:
        t.join(5)
    sys.stdout.write(json.dumps({str(k): v for k, v in sorted(counts.items())}) + "\n")
    return 0


# --- the bench ------------------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def button_under_floods(
    presses: int = 300, ramp: float = 1.0, apart: bool = True
) -> dict[str, float]:
    """The box's own green press (mock pin release) to the frame it drew, quiet and under each
    flood, in one running box with the phones on 127.0.0.1 and a paired phone. Only frames
    drawn for the box's own press count (a phone's roll draws frames too). ``apart``: the
    phones' server in a process of its own (the default), else in the box's process (keys
    ``thread_...``)."""
    from companion.bench import box as bench_box
    from companion.core.events import Call
    from companion.web.pairing import COOKIE
    from companion.web.phones import PhoneService

    frames = _OwnFrames()
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        box, consumer = bench_box.running_box(Path(tmp), frames, "none")  # type: ignore[arg-type]
        phones = PhoneService(box.app, port, host="127.0.0.1", apart=apart)
        box.loop.post(Call(phones.start))
        try:
            if not phones.ready.wait(START_WAIT):
                raise RuntimeError(f"the phones' server did not start on port {port}")
            bench_box.start_game(box, frames, "dice")  # type: ignore[arg-type]
            token = _pair(port, phones.pairing.new_code(), COOKIE)
            emit = box.app.presses.emit

            def own(button: str, long: bool) -> None:  # the loop thread: the box's own press
                frames.own = True
                emit(button, long)

            box.app.presses.emit = own
            frames.any = False
            pin = box.pin("green")
            settle = box.config.buttons.debounce_ms / 1000 * 2

            def timed() -> list[float]:
                times = []
                for i in range(presses):
                    pin.drive_low()
                    time.sleep(settle)  # the harness's finger
                    frames.event.clear()
                    t0 = time.perf_counter()
                    pin.drive_high()
                    if not frames.event.wait(FRAME_WAIT):
                        raise RuntimeError(f"no frame for the box's own press {i}")
                    times.append((frames.at - t0) * 1000)
                    time.sleep(0.005)  # presses a person could not make faster anyway
                return times

            quiet = timed()
            results["own_press_quiet_p50_ms"] = round(statistics.median(quiet), 3)
            results["own_press_quiet_p99_ms"] = round(_pct(quiet, 0.99), 3)
            for kind in FLOODS:
                # The attacker's machine is another one: its CPU here as little as nice allows.
                command = ["nice", "-n", "19", sys.executable, "-m", "companion.bench.floods"]
                flooder = subprocess.Popen(
                    [*command, kind, str(port), token, "120"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                try:
                    _until_flooding(flooder, kind)
                    time.sleep(ramp)
                    loaded = timed()
                finally:
                    # stdin closed: it stops (its threads' last requests within ANSWER_WAIT)
                    out, _ = flooder.communicate("", timeout=START_WAIT)
                key = kind.replace("-", "_")
                results[f"own_press_{key}_p50_ms"] = round(statistics.median(loaded), 3)
                results[f"own_press_{key}_p99_ms"] = round(_pct(loaded, 0.99), 3)
                results[f"own_press_{key}_ratio_p99"] = round(
                    results[f"own_press_{key}_p99_ms"] / results["own_press_quiet_p99_ms"], 2
                )
                said = [line for line in out.splitlines() if line.startswith("{")]
                answered = json.loads(said[-1]) if said else {}
                results[f"{key}_flood_requests"] = sum(answered.values())
                if kind == "press":
                    results["press_flood_429"] = answered.get("429", 0)
                    results["press_flood_200"] = answered.get("200", 0)
        finally:
            box.loop.post(Call(phones.stop))
            bench_box.stop(box, consumer)
    results["own_press_samples"] = presses
    if not apart:
        return {f"thread_{k}": v for k, v in results.items()}
    return results


def _until_flooding(flooder: subprocess.Popen[str], kind: str) -> None:
    """Wait for the flooder's ``flooding`` line: the flood is on however slowly this machine
    runs (an emulated Pi's flooder, at nice 19, may take seconds for its first request)."""
    assert flooder.stdout is not None
    ready, _, _ = select.select([flooder.stdout], [], [], START_WAIT)
    line = flooder.stdout.readline() if ready else ""
    if line.strip() != "flooding":
        raise RuntimeError(f"the {kind} flood never got the answers {FLOODING[kind]}: {line!r}")


class _OwnFrames:
    """Like bench's frame watch, but only the first frame after the box's own press counts."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.at = 0.0
        self.own = False
        self.any = True  # until the timing starts: any frame (the game's first) counts

    def __call__(self, image: Any) -> None:
        if self.own:
            self.own = False
            self.at = time.perf_counter()
            self.event.set()
        elif self.any:  # bench_box.start_game waits on any frame
            self.at = time.perf_counter()
            self.event.set()


def _pair(port: int, code: str, cookie_name: str) -> str:
    host = f"127.0.0.1:{port}"
    conn = http.client.HTTPConnection(host, timeout=10)
    form = {"Origin": f"http://{host}", "Content-Type": "application/x-www-form-urlencoded"}
    conn.request("POST", "/api/pair", f"code={code}", headers=form)
    answer = conn.getresponse()
    answer.read()
    conn.close()
    cookie = answer.getheader("Set-Cookie", "").split(";", 1)[0]
    if not cookie.startswith(f"{cookie_name}="):
        raise RuntimeError(f"pairing answered {answer.status}")
    return cookie.split("=", 1)[1]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
