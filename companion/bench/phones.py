"""The web faces' figures: the simulator's page (a press over HTTP to its event) and the phones'
server (idle, a paired phone's press, with slow connections held against it)."""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from companion.bench.box import _CpuWatch, _FrameWatch, _idle_for, _pct
from companion.bench.box import running_box as _running_box
from companion.bench.box import start_game as _start_game
from companion.bench.box import stop as _stop
from companion.bench.floods import START_WAIT
from companion.core.events import Call
from companion.sim.box import SimulatedBox


def phones_idle(seconds: float = 10.0) -> dict[str, float]:
    """The idle box again, with the phones' server listening on 127.0.0.1 and no phone
    connected: its thread must add no wake-ups (compare with idle_wakeups_per_s)."""
    from companion.web.phones import PhoneService

    watch = _FrameWatch()
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        box, consumer = _running_box(Path(tmp), watch)
        phones = PhoneService(box.app, port, host="127.0.0.1")
        box.loop.post(Call(phones.start))
        try:
            _start_game(box, watch, "dice")
            time.sleep(0.5)
            if not phones.ready.wait(START_WAIT):
                raise RuntimeError(f"the phones' server did not start on port {port}")
            time.sleep(0.5)
            cpu, wakeups = _idle_for(seconds)
        finally:
            box.loop.post(Call(phones.stop))
            _stop(box, consumer)
    return {"phones_idle_cpu_percent": cpu, "phones_idle_wakeups_per_s": wakeups}


@contextlib.contextmanager
def _web_face(box: SimulatedBox) -> Any:
    """The simulator's web face on a free port, with one event stream open and read."""
    import http.client

    from companion.sim.controls import SimControls
    from companion.web.guard import Guard
    from companion.web.server import WebServer
    from companion.web.sim_routes import SimRoutes

    server = WebServer("127.0.0.1", 0, Guard(), [SimRoutes(SimControls(box), [], 1.0)])
    server.start()
    box.app.faces.add(server)
    stream = http.client.HTTPConnection(f"127.0.0.1:{server.port}", timeout=None)
    stream.request("GET", "/api/events")
    events = stream.getresponse()

    def read() -> None:
        with contextlib.suppress(OSError, ValueError):
            for _ in events:
                pass

    reader = threading.Thread(target=read, name="bench-page", daemon=True)
    reader.start()
    try:
        yield server
    finally:
        server.stop()  # ends the stream, so the reading thread lets go of it
        reader.join(2.0)  # before the close, which pulls the socket from under a read
        stream.close()


def web_latency(presses: int = 300) -> dict[str, float | None]:
    """A press posted over HTTP (POST /api/press/green, straight to the App as a remote does,
    no simulated finger) -> the new frame's event arriving on an open event stream (GET
    /api/events): the request, the loop, the rules, the journal's fsync, the renderer, the
    snapshot handed to the server's thread and the event's JSON and PNG. aiohttp is imported
    here only."""
    import http.client
    import json

    from companion.faces.controls import LoopControls
    from companion.web.guard import Guard
    from companion.web.server import WebServer
    from companion.web.sim_routes import SimRoutes

    watch = _FrameWatch()
    arrived = threading.Event()
    seen = {"seq": 0, "at": 0.0}
    times: list[float] = []
    shares: list[float] = []  # the display handed the frame -> its event arrived
    stream: http.client.HTTPConnection | None = None
    reader: threading.Thread | None = None
    with tempfile.TemporaryDirectory() as tmp:
        box, consumer = _running_box(Path(tmp), watch, "none")
        controls = LoopControls(box.loop.post, box.app.on_press)
        server = WebServer("127.0.0.1", 0, Guard(), [SimRoutes(controls, [], 1.0)])
        server.start()
        box.app.faces.add(server)
        try:
            _start_game(box, watch, "dice")
            host = f"127.0.0.1:{server.port}"
            stream = http.client.HTTPConnection(host, timeout=5)
            stream.request("GET", "/api/events")
            events = stream.getresponse()

            def read() -> None:
                # The stream ends with the server: http.client then raises one of these.
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    for raw in events:
                        if raw.startswith(b"data: "):
                            seen["seq"] = json.loads(raw[6:])["seq"]
                            seen["at"] = time.perf_counter()
                            arrived.set()

            reader = threading.Thread(target=read, name="bench-events", daemon=True)
            reader.start()
            post = http.client.HTTPConnection(host, timeout=5)
            headers = {"Origin": f"http://{host}", "Content-Length": "0"}
            time.sleep(0.2)
            warm = presses // 10  # CPU counted after these: see _CpuWatch
            cpu = _CpuWatch(consumer)
            for i in range(presses):
                if i == warm:
                    cpu = _CpuWatch(consumer)
                before = seen["seq"]
                arrived.clear()
                watch.event.clear()
                t0 = time.perf_counter()
                post.request("POST", "/api/press/green", headers=headers)
                answer = post.getresponse()
                answer.read()
                if answer.status != 202:
                    raise RuntimeError(f"press {i} answered {answer.status}")
                while seen["seq"] == before:
                    if not arrived.wait(2):
                        raise RuntimeError(f"no event after press {i}")
                    arrived.clear()
                times.append((seen["at"] - t0) * 1000)
                if watch.event.is_set():  # the roll changed the screen: the web's own share
                    shares.append((seen["at"] - watch.at) * 1000)
            used = cpu.per(presses - warm)
            post.close()
        finally:
            server.stop()  # ends the stream, so the reading thread lets go of it
            _stop(box, consumer)
        if stream is not None:
            if reader is not None:  # let go of the stream before it is closed under a read
                reader.join(timeout=5)
            stream.close()
    return {
        "web_press_p50_ms": round(statistics.median(times), 3),
        "web_press_p99_ms": round(_pct(times, 0.99), 3),
        "web_press_samples": presses,
        "web_press_loop_cpu_ms": used["loop"],
        "web_press_process_cpu_ms": used["process"],
        "web_frame_to_event_p50_ms": round(statistics.median(shares), 3) if shares else None,
        "web_frame_to_event_p99_ms": round(_pct(shares, 0.99), 3) if shares else None,
    }


SLOW_CLIENTS = 2000  # slow connections held against the phones' face (issue: ~1,000 did harm)


def slow_clients(port: int, n: int, seconds: float = 20.0) -> list[socket.socket]:
    """``n`` connections to 127.0.0.1:``port`` opened at once, each sending the first line of
    a request and no more (a client slower than any phone): the ones the system connected.
    Raises if this process runs out of file handles for them."""
    import errno
    import selectors

    selector = selectors.DefaultSelector()
    pending: set[socket.socket] = set()
    opened: list[socket.socket] = []
    try:
        for _ in range(n):
            try:
                s = socket.socket()
            except OSError as err:  # the server's side has taken the process's file handles
                if err.errno == errno.EMFILE:
                    raise RuntimeError(f"no file handle left after {len(pending)} clients") from err
                raise
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            pending.add(s)
            selector.register(s, selectors.EVENT_WRITE)
        end = time.monotonic() + seconds
        while pending and time.monotonic() < end:
            for key, _ in selector.select(timeout=0.5):
                s = key.fileobj  # type: ignore[assignment]
                selector.unregister(s)
                pending.discard(s)
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                    opened.append(s)
                else:
                    s.close()
    finally:
        for s in pending:
            selector.unregister(s)
            s.close()
        selector.close()
    drip(opened, b"GET /api/state HTTP/1.1\r\n")
    return opened


def drip(clients: list[socket.socket], line: bytes = b"X-Slow: 1\r\n") -> int:
    """One more header line on each slow client; how many could still send."""
    took = 0
    for s in clients:
        with contextlib.suppress(OSError):  # closed by the server
            s.send(line)
            took += 1
    return took


class _LineCount(logging.Handler):
    """Counts the lines the web server's side logs (a traceback is many)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("companion.web", "aiohttp", "asyncio")):
            self.lines += len(self.format(record).splitlines())


def phones_under_load(presses: int = 200, slow: int = SLOW_CLIENTS) -> dict[str, float]:
    """A paired phone's press (POST /api/press/down on a new connection, as after its idle
    connection was closed) to the display being handed the new frame: without load, then with
    ``slow`` slow connections held against the phones' face. Also what the server held at
    most and how many lines the web side logged under the load."""
    import http.client

    from companion.web.pace import Pace
    from companion.web.pairing import COOKIE
    from companion.web.phones import PhoneService

    watch = _FrameWatch()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = len(os.listdir("/proc/self/fd")) + slow + 1000
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    counter = _LineCount()
    root = logging.getLogger()
    level = root.level
    clients: list[socket.socket] = []
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        box, consumer = _running_box(Path(tmp), watch, "none")
        phones = PhoneService(box.app, port, host="127.0.0.1")
        phones.pace = Pace(rate=1e6, burst=10**6)  # the press's path is timed here, not its pace
        box.loop.post(Call(phones.start))
        try:
            if not phones.ready.wait(START_WAIT):
                raise RuntimeError(f"the phones' server did not start on port {port}")
            _start_game(box, watch, "dice")
            host = f"127.0.0.1:{port}"
            code = phones.pairing.new_code()
            conn = http.client.HTTPConnection(host, timeout=10)
            form = {"Origin": f"http://{host}", "Content-Type": "application/x-www-form-urlencoded"}
            conn.request("POST", "/api/pair", f"code={code}", headers=form)
            answer = conn.getresponse()
            answer.read()
            cookie = answer.getheader("Set-Cookie", "").split(";", 1)[0]
            conn.close()
            if not cookie.startswith(f"{COOKIE}="):
                raise RuntimeError(f"pairing answered {answer.status}")
            headers = {"Origin": f"http://{host}", "Cookie": cookie, "Content-Length": "0"}
            end = time.monotonic() + 10.0  # the "Phone paired" notice goes: presses are play
            while box.app.toast is not None and time.monotonic() < end:
                time.sleep(0.1)

            def timed(n: int, load: list[socket.socket]) -> list[float]:
                times = []
                for i in range(n):
                    if load and i % 10 == 0:
                        drip(load)
                    watch.event.clear()
                    t0 = time.perf_counter()
                    for attempt in range(3):  # closed under it: the person presses again
                        post = http.client.HTTPConnection(host, timeout=10)
                        try:
                            post.request("POST", "/api/press/down", headers=headers)
                            status = post.getresponse().status
                            break
                        except ConnectionError:
                            retries.append(i)
                            if attempt == 2:
                                raise
                        finally:
                            post.close()
                    if status != 200:
                        raise RuntimeError(f"press {i} answered {status}")
                    if not watch.event.wait(5):
                        raise RuntimeError(f"no new frame after press {i}")
                    times.append((watch.at - t0) * 1000)
                    held.append(len(phones.server.book))
                return times

            held: list[int] = []
            retries: list[int] = []

            quiet = timed(presses, [])
            root.addHandler(counter)
            level = root.level
            root.setLevel(min(level, logging.INFO))  # what the daemon logs
            clients = slow_clients(port, slow)
            loaded = timed(presses, clients)
        finally:
            root.removeHandler(counter)
            root.setLevel(level)
            for s in clients:
                s.close()
            box.loop.post(Call(phones.stop))
            _stop(box, consumer)
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return {
        "phones_press_p50_ms": round(statistics.median(quiet), 3),
        "phones_press_p99_ms": round(_pct(quiet, 0.99), 3),
        "phones_press_loaded_p50_ms": round(statistics.median(loaded), 3),
        "phones_press_loaded_p99_ms": round(_pct(loaded, 0.99), 3),
        "phones_press_samples": presses,
        "phones_slow_clients": len(clients),
        "phones_server_connections_max": max(held),
        "phones_press_retries": len(retries),
        "phones_load_log_lines": counter.lines,
    }
