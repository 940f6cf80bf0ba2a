"""The figures of docs/performance.md, measured on the simulated box with the real clock.

Latencies run through everything the box runs: gpiozero's mock pin edge (or the pty byte),
the queue, the consumer, debounce or presence, the rules, the journal fsync, the renderer and
the luma device call. Start-to-ready and memory come from a real `trap-companion run`
subprocess on mock pins, talking to systemd's notify protocol.
"""

from __future__ import annotations

import contextlib
import logging
import os
import platform
import resource
import signal
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

from companion.bench.box import running_box as _running_box
from companion.bench.box import start_game as _start_game
from companion.bench.box import stop as _stop
from companion.bench.floods import START_WAIT
from companion.core.clock import RealClock
from companion.core.config import from_dict
from companion.core.events import Call
from companion.games.base import Action
from companion.hal.readers import pn532
from companion.hal.readers.base import make_driver
from companion.hal.readers.fake import FakePn532, FakeRdm6300, PtyPort
from companion.hal.readers.runner import Presence, ReaderRunner
from companion.sim.box import SimulatedBox

TARGETS = {
    "button_p99_ms": 5.0,
    "card_p99_ms": 10.0,
    "idle_cpu_percent": 0.5,
    "pn532_idle_cpu_percent": 0.05,
    "pn532_false_uids_fuzz_confirmed": 0,
    "pn532_false_uids_ber_0.001_confirmed": 0,
    "pn532_false_uids_ber_0.01_confirmed": 0,
    "ready_seconds": 1.5,
    "peak_rss_mb": 80.0,
    "phones_peak_rss_mb": 80.0,
    "timer_error_ms": 20.0,
    "timer_expiry_ms": 20.0,
    "web_press_p99_ms": 10.0,
    "fast_cards_lost": 0,
    "pn532_fast_cards_lost": 0,
    # What a timed game costs the SD card (issue 24, measured outside: about 14 KB and 157
    # fsyncs an hour): kept at or below.
    "journal_bytes_per_hour": 14_000,
    "journal_fsyncs_per_hour": 157,
    # A game of any length (issue 31): 100,000 steps start within 2x 1,000 and within 10 MB more
    # peak memory; a press at step 100,000 costs within 1.2x one at step 10, phones on.
    "ready_ratio_game_long_to_short": 2.0,
    "peak_rss_more_mb_game_long": 10.0,
    "press_cpu_ratio_long_to_short": 1.2,
}
# Issue 46: the window's bytes on the SSD1306's bus, percent of the whole frame's, at most.
BUS_TARGETS = {"menu_move": 40.0, "countdown_tick": 25.0, "footer_change": 25.0}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class _FrameWatch:
    """Notes when the display is handed a frame, from the loop thread."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.at = 0.0

    def __call__(self, image: Any) -> None:
        self.at = time.perf_counter()
        self.event.set()


def _latency(
    name: str,
    samples: int,
    prepare: Callable[[SimulatedBox, int], Callable[[], None]],
    reader: str = "rdm6300",
) -> dict[str, float]:
    """Time from ``trigger()`` (returned by ``prepare``) to the display being handed a frame."""
    watch = _FrameWatch()
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        box, consumer = _running_box(Path(tmp), watch, reader)
        try:
            _start_game(box, watch, "dice")
            if box.app.runner is not None and not box.app.runner.wait_ready(5):
                raise RuntimeError(f"the {reader} reader did not open: {box.app.runner.status}")
            warm = samples // 10  # CPU counted after these: see _CpuWatch
            cpu = _CpuWatch(consumer)
            for i in range(samples):
                if i == warm:
                    cpu = _CpuWatch(consumer)
                trigger = prepare(box, i)
                watch.event.clear()
                t0 = time.perf_counter()
                trigger()
                if not watch.event.wait(2):
                    raise RuntimeError(f"no new frame after {name} {i}")
                times.append((watch.at - t0) * 1000)
            used = cpu.per(samples - warm)
        finally:
            _stop(box, consumer)
    return {
        f"{name}_p50_ms": round(statistics.median(times), 3),
        f"{name}_p99_ms": round(_pct(times, 0.99), 3),
        f"{name}_samples": samples,
        f"{name}_loop_cpu_ms": used["loop"],
        f"{name}_process_cpu_ms": used["process"],
    }


class _CpuWatch:
    """CPU time spent from now on, per sample: the loop's thread alone (what a press costs the
    box) and the whole process (the loop and every thread it wakes, the bench's own finger or
    client included). A busy machine stretches the wall clock far more than these. Counted
    after the first tenth of the samples: the first presses of a process pay once for what
    is then kept (fonts, texts drawn, value classes' code, QEMU's translation of the code)."""

    def __init__(self, loop_thread: threading.Thread) -> None:
        ident = loop_thread.ident
        self.clock = time.pthread_getcpuclockid(ident) if ident is not None else None
        self.loop = self._loop()
        self.process = time.process_time()

    def _loop(self) -> float:
        return time.clock_gettime(self.clock) if self.clock is not None else 0.0

    def per(self, samples: int) -> dict[str, float]:
        return {
            "loop": round((self._loop() - self.loop) * 1000 / samples, 3),
            "process": round((time.process_time() - self.process) * 1000 / samples, 3),
        }


def button_latency(presses: int = 1000, repress: bool = False) -> dict[str, float]:
    """Release edge of a green press (a short press is known at release) -> new frame.
    ``repress``: the finger presses again half a debounce window after each release, while
    the loop is still busy with it (an edge inside the window, reconciled when it closes);
    a press lost so would leave the next release without a frame, and the bench fails."""

    def prepare(box: SimulatedBox, i: int) -> Callable[[], None]:
        pin = box.pin("green")
        debounce = box.config.buttons.debounce_ms / 1000
        if not (repress and i):  # else still down from the last re-press
            pin.drive_low()
        time.sleep(debounce * 2)  # the harness's finger

        def release() -> None:
            pin.drive_high()
            if repress:
                time.sleep(debounce / 2)
                pin.drive_low()

        return release

    return _latency("button_repress" if repress else "button", presses, prepare)


def card_latency(taps: int = 300) -> dict[str, float]:
    """Last byte of the confirming RDM6300 frame written to the pty -> new frame. Two cards
    alternate, so every confirmed frame is a new tap (an unknown card's notice)."""

    def prepare(box: SimulatedBox, i: int) -> Callable[[], None]:
        device = box.device
        assert isinstance(device, FakeRdm6300)
        uid = ("00DEADBEE1", "00DEADBEE2")[i % 2]
        time.sleep(0.002)
        device.write_frames(uid, 1)  # the first frame; the trigger writes the confirming one
        time.sleep(0.002)
        return lambda: device.write_frames(uid, 1)

    return _latency("card", taps, prepare)


PN532_LIFT_SECONDS = 0.25  # the harness's hand: a card lifted this long before the next comes


def pn532_card_latency(taps: int = 100) -> dict[str, float]:
    """A card put on the fake PN532 (its answer written to the pty at once if the driver is
    waiting for one) -> new frame. The previous card was lifted a quarter second before, as a
    hand moves from card to card; two cards alternate, so every arrival is a new tap."""

    def prepare(box: SimulatedBox, i: int) -> Callable[[], None]:
        device = box.device
        assert isinstance(device, FakePn532)
        device.remove()
        time.sleep(PN532_LIFT_SECONDS)
        uid = ("04A1B2C3", "04D5E6F7")[i % 2]
        return lambda: device.present(uid)

    return _latency("pn532_card", taps, prepare, reader="pn532")


def _pn532_read(stream: bytes) -> tuple[list[str], bytes]:
    """What the driver takes from one read: the first answer to InListPassiveTarget in the
    bytes, checked field by field; and that answer."""
    reply = bytes([pn532.CHIP_TFI, pn532.IN_LIST_PASSIVE_TARGET + 1])
    for frame in pn532.Pn532FrameParser().feed(stream):
        if frame.kind == "data" and frame.payload[:2] == reply:
            return pn532.parse_target_uid(frame.payload[2:]), frame.payload[2:]
    return [], b""


def pn532_false_uids(
    streams: int = 100_000, rates: tuple[float, ...] = (1e-3, 1e-2), seed: int = 15
) -> dict[str, Any]:
    """False cards from the PN532 under noise: per noise, ``streams`` card reads (the ACK and
    the answer for a random 4, 7 or 10-byte UID) fuzzed (fake.fuzz) or with independent bit
    errors at each rate, through the frame parser and the answer's field checks. ``one read``
    counts the UIDs a single read would report that are not the card's; ``confirmed`` the
    ones reported after a second, independently damaged read agreed (pn532.Confirmation, as
    the driver reads); ``unconfirmed`` the true card's reads delayed by a damaged second read."""
    import logging
    import random

    from companion.hal.readers.fake import flip_bits, fuzz, random_uid, target_answer

    logging.getLogger(pn532.__name__).setLevel(logging.INFO)  # its debug lines: one a frame
    results: dict[str, Any] = {"pn532_noise_streams": streams}
    for noise in ("fuzz", *rates):
        rng = random.Random(f"{seed}:{noise}")

        def damage(data: bytes, noise: object = noise, rng: random.Random = rng) -> bytes:
            return fuzz(data, rng) if noise == "fuzz" else flip_bits(data, float(noise), rng)

        single = confirmed = delayed = thrice = 0
        for _ in range(streams):
            uid = random_uid(rng)
            clean = pn532.ACK + target_answer(uid)
            reads = [_pn532_read(damage(clean)) for _ in range(3)]
            true = [uid.hex().upper()]
            single += bool(reads[0][0]) and reads[0][0] != true
            two, three = pn532.Confirmation(2), pn532.Confirmation(3)
            for uids, answer in reads[:2]:
                reported = two.seen(uids, answer)
            for uids, answer in reads:
                reported_3 = three.seen(uids, answer)
            confirmed += bool(reported) and reported != true
            delayed += reported != true
            thrice += bool(reported_3) and reported_3 != true
        name = "fuzz" if noise == "fuzz" else f"ber_{noise:g}"
        results[f"pn532_false_uids_{name}_one_read"] = single
        results[f"pn532_false_uids_{name}_confirmed"] = confirmed
        results[f"pn532_false_uids_{name}_three_reads"] = thrice
        results[f"pn532_unconfirmed_{name}"] = delayed
    return results


def idle_cpu(seconds: float = 10.0, reader: str = "rdm6300", web: bool = False) -> dict[str, float]:
    """CPU used by the whole box (loop, reader thread, gpiozero, and the fake reader's own
    thread) with a game open, untouched, no card near; and the voluntary context switches of
    all its threads per second, which is how often something woke up. ``web``: with the
    simulator's web face on and one page's event stream open (aiohttp imported only then)."""
    watch = _FrameWatch()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        box, consumer = _running_box(Path(tmp), watch, reader)
        try:
            if web:
                stack.enter_context(_web_face(box))
            _start_game(box, watch, "dice")
            time.sleep(0.5)
            cpu, wakeups = _idle_for(seconds)
        finally:
            _stop(box, consumer)
    prefix = ("" if reader == "rdm6300" else f"{reader}_") + ("web_" if web else "")
    return {
        f"{prefix}idle_cpu_percent": cpu,
        f"{prefix}idle_wakeups_per_s": wakeups,
        f"{prefix}idle_seconds": seconds,
    }


def _idle_for(seconds: float) -> tuple[float, float]:
    """This process's CPU (percent) and voluntary context switches a second over ``seconds``
    of doing nothing itself: what the box's threads spend and how often they wake."""
    c0, t0 = time.process_time(), time.perf_counter()
    w0 = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
    time.sleep(seconds)
    w1 = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
    c1, t1 = time.process_time(), time.perf_counter()
    return round(100 * (c1 - c0) / (t1 - t0), 3), round((w1 - w0) / (t1 - t0), 1)


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


def timer_precision(turns: int = 5, seconds: float = 2.0) -> dict[str, float]:
    """Trapwords turn timer on the real clock: from the start action to the time-up being
    applied (journaled and shown), over repeated turns: each error on its own, so drift shows."""
    from companion.games import registry

    if "trapwords" not in registry.available():
        return {}
    watch = _FrameWatch()
    errors: list[float] = []
    expiry: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        box, consumer = _running_box(Path(tmp), watch)
        try:
            _start_game(box, watch, "trapwords", seconds=str(seconds), start_mode="pickup")
            app = box.app
            for _ in range(turns):
                done = threading.Event()
                started = [0.0]

                def begin(started: list[float] = started) -> None:
                    app.sounds.clear()
                    started[0] = time.perf_counter()
                    app.submit(Action("start"))
                    app.refresh()

                def watch_sounds(done: threading.Event = done) -> None:
                    if "time_up" in app.sounds:
                        done.set()

                app.on_refresh.append(watch_sounds)
                box.loop.post(Call(begin))
                if not done.wait(seconds + 5):
                    raise RuntimeError("the turn timer never ran out")
                ended = time.perf_counter()
                app.on_refresh.remove(watch_sounds)
                errors.append(abs((ended - started[0]) - seconds) * 1000)
                stamps = {s.action.name: s.action.at for s in app.session.steps if s.action}
                expiry.append(abs(stamps["timeout"] - stamps["start"] - seconds) * 1000)
        finally:
            _stop(box, consumer)
    return {
        "timer_expiry_ms": round(max(expiry), 3),  # the clock's own error: start -> timeout
        "timer_error_ms": round(max(errors), 3),
        "timer_errors_ms": [round(e, 3) for e in errors],  # one per turn: drift would grow
        "timer_turns": turns,
        "timer_seconds": seconds,
    }


# Hang guards, never timings (the figures are measured, not bounded). Under QEMU at load 11 a
# start took READY=1 in 10 s, the phones' server in-process 5 s, as a child (nice 10) 36 s.
# START_WAIT (floods.py): READY=1, or the phones' server answering.
STOP_WAIT = 60.0  # the daemon's exit after SIGTERM (it ends the phones' child, 2 s at most)


def daemon_start(runs: int = 3, phones: bool = False) -> dict[str, float]:
    """`trap-companion run` on mock pins, a dummy display and a fake reader on a pty: process
    start -> READY=1, SIGTERM -> exit, and the process's peak RSS. With ``phones``, the same
    with ``[phones] enabled`` (the server listening on a free port, aiohttp imported)."""
    ready, stop, rss = [], [], 0.0
    ready_cpu: list[float] = []
    extra, phones_port = "", 0
    if phones:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            phones_port = probe.getsockname()[1]
        extra = f"[phones]\nenabled = true\nport = {phones_port}\n"
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp, PtyPort() as port:
            device = FakeRdm6300(port)
            cfg = Path(tmp) / "config.toml"
            cfg.write_text(
                '[hardware]\npin_factory = "mock"\n[display]\ndriver = "dummy"\n'
                f'[reader]\nport = "{port.path}"\n[state]\ndir = "{tmp}/state"\n' + extra
            )
            sock_path = f"{tmp}/notify.sock"
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.bind(sock_path)
            sock.settimeout(START_WAIT)
            env = dict(os.environ, NOTIFY_SOCKET=sock_path, GPIOZERO_MOCK_PIN_CLASS="mockpwmpin")
            errors = (Path(tmp) / "stderr").open("w+")
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, "-m", "companion", "run", "--config", str(cfg)],
                env=env,
                stderr=errors,
            )
            try:
                try:
                    while b"READY=1" not in sock.recv(4096):
                        pass
                except TimeoutError:
                    errors.seek(0)
                    said = errors.read()[-2000:] or "nothing on stderr"
                    raise RuntimeError(f"no READY=1 within {START_WAIT:.0f} s: {said}") from None
                finally:
                    errors.close()
                ready.append(time.perf_counter() - t0)
                ready_cpu.append(_cpu_seconds(proc.pid))
                if phones:  # aiohttp loads on the server's thread after READY: wait for it
                    _wait_for_port(phones_port)
                rss = max(rss, _peak_rss_mb(proc.pid))
                t1 = time.perf_counter()
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=STOP_WAIT)
                stop.append(time.perf_counter() - t1)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    proc.wait()
                sock.close()
                device.close()
    prefix = "phones_" if phones else ""
    return {
        f"{prefix}ready_seconds": round(max(ready), 3),
        f"{prefix}ready_cpu_seconds": round(min(ready_cpu), 3),  # least: CPU s to READY=1
        f"{prefix}stop_seconds": round(max(stop), 3),
        f"{prefix}peak_rss_mb": round(rss, 1),
    }


def _wait_for_port(port: int, seconds: float = START_WAIT) -> None:
    """Until the phones' server answers HTTP on 127.0.0.1:port (the bench's own waiting;
    START_WAIT guards a hang: the server is a child process, slow to start on a loaded machine)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=seconds) as probe:
                probe.sendall(f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                if probe.recv(12).startswith(b"HTTP/1."):
                    return
        except ConnectionRefusedError:  # not bound yet: the phones start just after READY
            pass
        time.sleep(0.05)
    raise RuntimeError(f"nothing answered on port {port}")


JOURNAL_SIZES_MB = (0.25, 1.0, 2.0, 3.9)  # 0.25: where the move to history/ begins; 4: the cap
GAME_ROLLS = 100  # a long evening of dice


def _journal_of(path: Path, size: int, rolls: int = GAME_ROLLS) -> int:
    """A journal of dice games of ``rolls`` rolls each, the last one in play, of about
    ``size`` bytes (as a box whose history/ could not be written would keep it); its lines."""
    lines: list[str] = []
    total = seq = 0
    while total < size:
        seq += 1
        if (seq - 1) % (rolls + 1) == 0:
            line = (
                f'{{"v":1,"seq":{seq},"kind":"game","game":"dice","options":{{"die":"d6"}},'
                f'"rolls":[],"at":{seq / 10},"id":"{seq:016x}"}}\n'
            )
        else:
            line = (
                f'{{"v":1,"seq":{seq},"kind":"action","action":{{"name":"roll",'
                f'"rolls":[{seq % 6 + 1}],"at":{seq / 10}}}}}\n'
            )
        lines.append(line)
        total += len(line)
    path.write_text("".join(lines), encoding="utf-8")
    return len(lines)


def start_by_journal_size(
    sizes_mb: tuple[float, ...] = JOURNAL_SIZES_MB, rolls: int = GAME_ROLLS
) -> dict[str, Any]:
    """`trap-companion run` (mock pins, no display, no reader) from process start to READY=1
    with a journal of each size (``_journal_of``): the start reads and checks every line, folds
    them, and replays the game in play through the rules."""
    out: dict[str, Any] = {}
    for size in sizes_mb:
        with tempfile.TemporaryDirectory() as tmp:
            state = Path(tmp) / "state"
            state.mkdir()
            lines = _journal_of(state / "journal.jsonl", int(size * 1024 * 1024), rolls)
            ready, rss = _ready_and_peak(Path(tmp), state)
        out[f"ready_seconds_journal_{size:g}mb"] = round(ready, 3)
        out[f"peak_rss_mb_journal_{size:g}mb"] = round(rss, 1)
        out[f"journal_lines_{size:g}mb"] = lines
    return out


def _peak_rss_mb(pid: int) -> float:
    """The process's own high-water mark (VmHWM). Not ru_maxrss: a forked child inherits
    its parent's peak across exec, which would report the bench's memory, not the box's."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


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


FAST_CARD_GAP = 0.1  # seconds between two cards laid at a table's quickest


def fast_cards(cards: int = 40, reader: str = "rdm6300") -> dict[str, float]:
    """Cards laid on the real driver 0.1 s apart, each replacing the last, on the real clock
    (an RDM6300 sends each card's two frames, a PN532 card lies until the next): how many
    never became a tap. No waiting for a read here: that is what is measured."""
    device = FakeRdm6300() if reader == "rdm6300" else FakePn532()
    reads: list[tuple[str, float]] = []
    clock = RealClock()
    runner = ReaderRunner(
        lambda: make_driver(reader, device.path),
        lambda uid: reads.append((uid, clock.now())),
        lambda text: None,
    )
    runner.start()
    uids = [
        f"{0x0600000000 + n:010X}" if reader == "rdm6300" else f"{0x04A10000 + n:08X}"
        for n in range(cards)
    ]
    try:
        if not runner.wait_ready(5.0):
            raise RuntimeError(f"the {reader} reader did not open: {runner.status}")
        start = time.monotonic()
        for n, uid in enumerate(uids):
            if isinstance(device, FakeRdm6300):
                device.write_frames(uid, 2)
            else:
                device.present(uid)
            time.sleep(max(0.0, start + FAST_CARD_GAP * (n + 1) - time.monotonic()))
        runner.wait_seen_of(uids[-1], 1, 1.0)
    finally:
        runner.stop()
        device.close()
    presence = Presence()
    taps = {who for uid, t in list(reads) for what, who in presence.seen(uid, t) if what == "tap"}
    prefix = "" if reader == "rdm6300" else "pn532_"
    return {f"{prefix}fast_cards_lost": float(len(set(uids) - taps))}


@contextlib.contextmanager
def _counted_fsyncs() -> Any:
    """Every os.fsync the box makes meanwhile (files and folders), counted."""
    count = [0]
    real = os.fsync

    def counting(fd: int) -> None:
        count[0] += 1
        real(fd)

    os.fsync = counting
    try:
        yield count
    finally:
        os.fsync = real


def _written_bytes() -> int:
    """Bytes this process had sent to the storage layer (Linux /proc/self/io), or 0."""
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return 0
    return next(
        (
            int(v)
            for k, _, v in (line.partition(": ") for line in text.splitlines())
            if k == "write_bytes"
        ),
        0,
    )


def journal_writes(hours: float = 1.0, turn_seconds: int = 30) -> dict[str, float]:
    """What an hour of a timed game writes: Hostage Trap! for 4 players, every turn running
    out (a line a turn, as a player ending it would write), on the virtual clock, in a state
    dir in the temporary folder. Bytes are the state dir's growth; fsyncs count files and
    folders; device bytes are what the kernel says this process sent to the disk (0 on a
    tmpfs), a floor of what an SD card sees."""
    from companion.core.clock import VirtualClock

    with tempfile.TemporaryDirectory(prefix="bench-journal-") as tmp:
        state = Path(tmp)
        box = SimulatedBox(from_dict({"reader": {"type": "none"}}, "bench"), state, VirtualClock())
        box.app.start()
        before = _written_bytes()
        with _counted_fsyncs() as fsyncs:
            options = {"players": "4", "turn_seconds": str(turn_seconds)}
            box.app.new_game("hostage-trap", options)
            box.advance(hours * 3600)
            box.close()  # with the pause a clean stop writes
        device = _written_bytes() - before
        size = sum(f.stat().st_size for f in state.rglob("*") if f.is_file())
    return {
        "journal_bytes_per_hour": round(size / hours),
        "journal_fsyncs_per_hour": round(fsyncs[0] / hours),
        "journal_device_bytes_per_hour": round(device / hours),
    }


def run_all(quick: bool = False) -> dict[str, Any]:
    results: dict[str, Any] = {}
    results.update(button_latency(200 if quick else 1000))
    results.update(card_latency(60 if quick else 300))
    results.update(pn532_card_latency(20 if quick else 100))
    results.update(pn532_false_uids(10_000 if quick else 100_000))
    results.update(fast_cards())
    results.update(fast_cards(reader="pn532"))
    results.update(idle_cpu(2.0 if quick else 10.0))
    results.update(idle_cpu(2.0 if quick else 10.0, reader="pn532"))
    results.update(timer_precision(2 if quick else 5))
    results.update(daemon_start(1 if quick else 3))
    results.update(phones_idle(2.0 if quick else 10.0))
    results.update(daemon_start(1 if quick else 3, phones=True))
    results.update(web_latency(60 if quick else 300))
    results.update(phones_under_load(40 if quick else 200))
    from companion.bench.floods import button_under_floods  # issue 33

    results.update(button_under_floods(40 if quick else 300))
    results.update(button_under_floods(40 if quick else 300, apart=False))
    results.update(idle_cpu(2.0 if quick else 10.0, web=True))
    results.update(start_by_journal_size((0.25,) if quick else JOURNAL_SIZES_MB))
    results.update(journal_writes())
    results.update(start_by_game_length(runs=1 if quick else 3))
    results.update(press_cpu_by_game_length(presses=200 if quick else 600))
    from companion.bench.bus import bus_bytes, frame_send  # issue 46

    results.update(bus_bytes())
    results.update(frame_send(60 if quick else 300))
    results["bench_peak_rss_mb"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
    )
    results["targets"] = {k: v for k, v in TARGETS.items() if k in results}
    results["met"] = {k: results[k] <= v for k, v in TARGETS.items() if k in results}
    _bus_targets(results)
    results["machine"] = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    return results


def bus(quick: bool = False) -> dict[str, Any]:
    """`trap-companion bench --bus`: the OLED's bytes on the bus both ways (issue 46)."""
    from companion.bench.bus import bus as measure

    results = measure(quick)
    results["targets"], results["met"] = {}, {}
    _bus_targets(results)
    return results


def _bus_targets(results: dict[str, Any]) -> None:
    for kind, most in BUS_TARGETS.items():
        key = f"bus_bytes_per_{kind}"
        if key in results:
            name = f"{kind}_window_percent_of_whole"
            results["targets"][name] = most
            results["met"][name] = results[key]["ssd1306_window_percent"] <= most


# --- Pi-class: the part that also runs on the Pi's CPU under emulation (make pibench) ---------

REPLAY_ROLLS = 30  # a dice game of this many rolls, replayed as a process


def python_loop(turns: int = 2_000_000) -> dict[str, float]:
    """Seconds of a plain Python loop: the CPU's pace alone, to read the other figures by (its
    ratio between two machines is the slowdown)."""
    started = time.perf_counter()
    total = 0
    for i in range(turns):
        total += i & 7
    return {"python_loop_seconds": round(time.perf_counter() - started, 3)}


def replay_speed(rolls: int = REPLAY_ROLLS) -> dict[str, float]:
    """`trap-companion replay` of a dice game, as a process: Python's start, the imports, the
    rules and the frames of every roll."""
    script = "game dice die=2d6\n" + "dice 3 4\npress green\n" * rolls
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "config.toml"
        cfg.write_text(
            f'[hardware]\npin_factory = "mock"\n[display]\ndriver = "dummy"\n'
            f'[state]\ndir = "{tmp}/state"\n'
        )
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "companion", "replay", "--config", str(cfg), "-"],
            input=script.encode(),
            capture_output=True,
            check=True,
        )
        took = time.perf_counter() - started
    return {"replay_seconds": round(took, 3), "replay_rolls": float(rolls)}


# What the box's start imports besides itself: the hardware and drawing libraries.
LIBRARIES = ("gpiozero", "luma.core.device", "luma.oled.device", "PIL.ImageDraw", "serial")


def bare_import(runs: int = 3) -> dict[str, float]:
    """A fresh Python importing the box's libraries and nothing of the box: what a start
    cannot go below (``ready_seconds`` is read against it; the slowest run, as there), and
    the CPU seconds it took (least of the runs: a busy machine moves it far less)."""
    took, cpu = [], []
    for _ in range(runs):
        before = os.times()
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import " + ", ".join(LIBRARIES)], check=True)
        took.append(time.perf_counter() - started)
        after = os.times()
        cpu.append(
            after.children_user
            + after.children_system
            - before.children_user
            - before.children_system
        )
    return {
        "bare_import_seconds": round(max(took), 3),
        "bare_import_cpu_seconds": round(min(cpu), 3),
    }


def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) a running process has used so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def frame_cost(frames: int = 300) -> dict[str, float]:
    """One frame of a dice game drawn whole, and drawn from the frame before (a roll changes
    the middle; the title and footer stay): the renderer alone, median milliseconds."""
    from companion.ui.render import render
    from companion.ui.screen import Screen

    screens = [
        Screen("Dice  2d6", (f"3 + {n}",), big=str(3 + n), footer="G roll  R back")
        for n in range(1, 7)
    ]
    for screen in screens:  # fonts loaded and texts measured, as on a box that has been up
        render(screen)
    whole, partial = [], []
    frame = render(screens[0])
    for i in range(frames):
        before, screen = screens[i % 6], screens[(i + 1) % 6]
        started = time.perf_counter()
        render(screen)
        whole.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        frame = render(screen, since=(before, frame))
        partial.append((time.perf_counter() - started) * 1000)
    return {
        "frame_whole_ms": round(statistics.median(whole), 3),
        "frame_partial_ms": round(statistics.median(partial), 3),
    }


def pi_class(quick: bool = False) -> dict[str, Any]:
    """The figures that read as a Pi's when run under emulation: the CPU's pace, start to
    READY=1, button and card to frame, a replay, a game of any length (start and a press), the
    box's own press under the phones' floods."""
    results: dict[str, Any] = {}
    results.update(python_loop())
    results.update(bare_import(1 if quick else 3))
    results.update(daemon_start(1 if quick else 3))
    results["ready_per_bare_import"] = round(
        results["ready_seconds"] / results["bare_import_seconds"], 2
    )
    results["ready_per_bare_import_cpu"] = round(
        results["ready_cpu_seconds"] / max(results["bare_import_cpu_seconds"], 0.01), 2
    )
    results.update(frame_cost(60 if quick else 300))
    from companion.bench.bus import frame_send  # issue 46: the drawing thread's side of a frame

    results.update(frame_send(60 if quick else 300))
    results.update(button_latency(50 if quick else 200))
    results.update(button_latency(50 if quick else 200, repress=True))
    results.update(card_latency(20 if quick else 60))
    results.update(web_latency(30 if quick else 150))
    results.update(replay_speed())
    results.update(start_by_game_length(runs=1 if quick else 3))
    results.update(press_cpu_by_game_length(presses=200 if quick else 600))
    results.update(_floods(30 if quick else 100))
    results["load_average"] = [round(n, 2) for n in os.getloadavg()]
    results["machine"] = {
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "arch": platform.machine(),
    }
    return results


def _floods(presses: int) -> dict[str, Any]:
    """The box's own press under the phones' floods (companion/bench/floods.py), the server
    apart; a run that fails says why in the figures instead of ending the others."""
    from companion.bench import floods

    try:
        return floods.button_under_floods(presses)
    except (OSError, RuntimeError, subprocess.SubprocessError) as err:
        return {"own_press_floods_error": str(err)}


# --- a game of any length (issue 31 point 2: the journal's bound) -------------------------------

GAME_LENGTHS = (1_000, 100_000)  # steps of one game: an evening's, and far past any table's
PRESS_STEPS = (10, 100_000)  # a press's CPU at the 10th step of a game and at the 100,000th


_LONG_JOURNALS: dict[tuple[int, int], bytes] = {}  # made once a run: the start and the press


def long_journal(state: Path, steps: int, seed: int = 31) -> dict[str, int]:
    """The journal a box keeps after a dice game of ``steps`` rolls, made by driving the real
    rules through the session (its window and checkpoint as in play, app/session.py) and
    written by the journal's own compaction: what the box would hold, in seconds, with no
    fsync per roll. Its lines and bytes."""
    import random

    from companion.app.play import as_record
    from companion.app.session import checked, set_up
    from companion.core.journal import Journal, Step

    made = _LONG_JOURNALS.get((steps, seed))
    if made is not None:  # the same game again (another figure): written as it was made
        (state / "journal.jsonl").write_bytes(made)
        return {"lines": made.count(b"\n"), "bytes": len(made)}
    rng = random.Random(seed)
    rules, options = checked("dice", {"die": "d6"})
    session = set_up("dice", rules, {"die": "d6"}, options, ())
    journal = Journal(state / "journal.jsonl")
    journal.open()
    session = session.with_id(journal.new_game("dice", {"die": "d6"}, (), 0.0))
    for n in range(steps):
        roll = Action("roll", rolls=(rng.randint(1, 6),), at=round(0.5 + n * 0.5, 6))
        session = session.folded(Step(roll))
    journal.compact(as_record(session))
    journal.close()
    data = (state / "journal.jsonl").read_bytes()
    _LONG_JOURNALS[(steps, seed)] = data
    return {"lines": data.count(b"\n"), "bytes": len(data)}


def _ready_and_peak(tmp: Path, state: Path) -> tuple[float, float]:
    """`trap-companion run` (mock pins, no display, no reader) on ``state``: seconds from
    process start to READY=1, and the process's peak RSS then (MB)."""
    cfg = tmp / "config.toml"
    cfg.write_text(
        '[hardware]\npin_factory = "mock"\n[display]\ndriver = "none"\n'
        f'[reader]\ntype = "none"\n[state]\ndir = "{state}"\n'
    )
    sock_path = f"{tmp}/notify.sock"
    Path(sock_path).unlink(missing_ok=True)  # the run before's
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(sock_path)
    sock.settimeout(300)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(cfg)],
        env=dict(os.environ, NOTIFY_SOCKET=sock_path),
        stderr=subprocess.DEVNULL,
    )
    try:
        while b"READY=1" not in sock.recv(4096):
            pass
        ready = time.perf_counter() - t0
        rss = _peak_rss_mb(proc.pid)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()
        sock.close()
    return ready, rss


def start_by_game_length(lengths: tuple[int, ...] = GAME_LENGTHS, runs: int = 3) -> dict[str, Any]:
    """Start to READY=1 and peak memory with a one-game journal of each length (the best of
    ``runs``, each from a fresh copy), and the longest game's against the shortest's: the
    start folds the checkpoint and the window, whatever the game's length."""
    out: dict[str, Any] = {}
    for steps in lengths:
        with tempfile.TemporaryDirectory() as tmp:
            state = Path(tmp) / "state"
            state.mkdir()
            made = long_journal(state, steps)
            original = (state / "journal.jsonl").read_bytes()
            ready, rss = [], []
            for _ in range(runs):
                for extra in state.iterdir():
                    if extra.is_file():
                        extra.unlink()
                (state / "journal.jsonl").write_bytes(original)
                seconds, peak = _ready_and_peak(Path(tmp), state)
                ready.append(seconds)
                rss.append(peak)
        out[f"ready_seconds_game_{steps}"] = round(min(ready), 3)
        out[f"peak_rss_mb_game_{steps}"] = round(min(rss), 1)
        out[f"journal_lines_game_{steps}"] = made["lines"]
        out[f"journal_bytes_game_{steps}"] = made["bytes"]
    short, long = min(lengths), max(lengths)
    out["ready_ratio_game_long_to_short"] = round(
        out[f"ready_seconds_game_{long}"] / out[f"ready_seconds_game_{short}"], 2
    )
    out["peak_rss_more_mb_game_long"] = round(
        out[f"peak_rss_mb_game_{long}"] - out[f"peak_rss_mb_game_{short}"], 1
    )
    return out


def _green(box: SimulatedBox, watch: _FrameWatch) -> None:
    """A green press handed to the App on the loop (a roll), until its frame is drawn."""
    watch.event.clear()
    box.loop.post(Call(lambda: box.app.on_press("green", False)))
    if not watch.event.wait(5):
        raise RuntimeError("no new frame after a press")
    time.sleep(0.003)  # the event on its way to the page


def _boxes_by_length(
    stack: contextlib.ExitStack, lengths: tuple[int, ...]
) -> dict[int, tuple[SimulatedBox, _FrameWatch]]:
    """A box running on a dice game of each length, phones on (the simulator's web face with
    an event stream open), all up at once until ``stack`` closes, each warmed by 20 presses
    (the first frames import and cache)."""
    boxes: dict[int, tuple[SimulatedBox, _FrameWatch]] = {}
    for steps in lengths:
        state = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        long_journal(state, steps)
        watch = _FrameWatch()
        box, consumer = _running_box(state, watch, "none")
        stack.callback(_stop, box, consumer)
        stack.enter_context(_web_face(box))
        boxes[steps] = (box, watch)
    for box, watch in boxes.values():
        for _ in range(20):
            _green(box, watch)
    return boxes


def press_cpu_by_game_length(
    lengths: tuple[int, ...] = PRESS_STEPS, presses: int = 600, blocks: int = 6
) -> dict[str, Any]:
    """CPU of the whole process per press (the rules, the journal, the frame, the snapshot and
    the event a phone reads: phones on, the simulator's web face with an event stream open)
    at each step of a dice game, and the longest's against the shortest's. Both boxes are up
    at once and pressed in turn, ``blocks`` runs of presses each (the order turned every
    block), so that a minute of load, a collection of the heap or a warmer cache falls on
    both alike: one game after the other, a minute apart, the ratio swung by a tenth and more
    at a Pi's pace. 600 presses at the long end cross the window once: its compaction is
    counted in, as in play."""
    out: dict[str, Any] = {}
    per_block = max(1, presses // blocks)
    cpu = dict.fromkeys(lengths, 0.0)
    worst = dict.fromkeys(lengths, 0.0)
    with contextlib.ExitStack() as stack:
        boxes = _boxes_by_length(stack, lengths)
        for block in range(blocks):
            for steps in lengths if block % 2 else lengths[::-1]:
                box, watch = boxes[steps]
                began = time.process_time()
                for _ in range(per_block):
                    one = time.process_time()
                    _green(box, watch)
                    worst[steps] = max(worst[steps], time.process_time() - one)
                cpu[steps] += time.process_time() - began
        windows = {steps: len(box.app.session.steps) for steps, (box, _) in boxes.items()}
    for steps in lengths:
        out[f"press_cpu_ms_step_{steps}"] = round(cpu[steps] / (per_block * blocks) * 1000, 3)
        out[f"press_cpu_max_ms_step_{steps}"] = round(worst[steps] * 1000, 3)
        out[f"standing_steps_step_{steps}"] = windows[steps]
    short, long = min(lengths), max(lengths)
    out["press_cpu_ratio_long_to_short"] = round(
        out[f"press_cpu_ms_step_{long}"] / out[f"press_cpu_ms_step_{short}"], 2
    )
    out["press_cpu_presses"] = per_block * blocks
    return out


def _loop_cpu(box: SimulatedBox, watch: _FrameWatch, marks: list[float]) -> None:
    """The CPU time of the box's loop thread so far, read on that thread, then a press."""
    box.loop.post(Call(lambda: marks.append(time.thread_time())))
    _green(box, watch)


def press_cpu_paired(lengths: tuple[int, ...] = PRESS_STEPS, presses: int = 400) -> dict[str, Any]:
    """A press's CPU at each step, measured side by side: a box on each game (phones on, an
    event stream read), running at once, the presses alternated one by one, each box's
    loop-thread CPU per press: the loop's own share, where press_cpu_by_game_length counts the
    whole process (the web face and the phone's reader too) over blocks of presses."""
    out: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        boxes = _boxes_by_length(stack, lengths)
        marks: dict[int, list[float]] = {steps: [] for steps in boxes}
        for steps, (box, watch) in boxes.items():
            _loop_cpu(box, watch, marks[steps])
        for n in range(presses):
            for steps in lengths if n % 2 else lengths[::-1]:
                _green(*boxes[steps])
        for steps, (box, watch) in boxes.items():
            _loop_cpu(box, watch, marks[steps])
    for steps, (start, end) in marks.items():
        out[f"press_loop_cpu_ms_paired_step_{steps}"] = round(
            (end - start) / (presses + 1) * 1000, 3
        )
    short, long = min(lengths), max(lengths)
    out["press_loop_cpu_ratio_paired"] = round(
        out[f"press_loop_cpu_ms_paired_step_{long}"]
        / out[f"press_loop_cpu_ms_paired_step_{short}"],
        2,
    )
    out["press_cpu_paired_presses"] = presses
    return out


def game_length(quick: bool = False) -> dict[str, Any]:
    """Only a press by a game's length (issue 31 point 2), by blocks of presses and one by one
    in turn: what `trap-companion bench --game-length` prints, quick enough to run alone in an
    emulated root."""
    results: dict[str, Any] = {}
    results.update(press_cpu_by_game_length(presses=200 if quick else 600))
    results.update(press_cpu_paired(presses=100 if quick else 400))
    results["load_average"] = [round(n, 2) for n in os.getloadavg()]
    results["machine"] = {"python": sys.version.split()[0], "arch": platform.machine()}
    return results
