"""Start to ready and memory, from a real `trap-companion run` subprocess on mock pins talking
to systemd's notify protocol (by journal size too); and what an hour of a timed game writes."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bench.floods import START_WAIT
from companion.core.config import from_dict
from companion.hal.readers.fake import FakeRdm6300, PtyPort
from companion.sim.box import SimulatedBox

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


def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) a running process has used so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_rss_mb(pid: int) -> float:
    """The process's own high-water mark (VmHWM). Not ru_maxrss: a forked child inherits
    its parent's peak across exec, which would report the bench's memory, not the box's."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


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
