"""The terminal simulator in a real pty, as a newcomer would use it: it draws the OLED and the
keys, answers keys, and q quits and restores the terminal."""

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

import pytest


def _read_until(fd, needle, timeout=20.0):
    buf = b""
    deadline = time.monotonic() + timeout
    while needle not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{needle!r} never appeared; got {buf[-400:]!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
    return buf


ESCAPE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _start(tmp_path, columns, lines, *extra):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "sim", "--state-dir", str(tmp_path), *extra],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    return proc, master, slave


def _last_frame(buf):
    """The rows of the last complete picture, as the terminal shows them."""
    end = buf.rindex(b"\x1b[J")
    frame = buf[buf.rindex(b"\x1b[H", 0, end) + 3 : end]
    return [ESCAPE.sub(b"", row).decode() for row in frame.split(b"\r\n")]


def _frame_after(master, marker):
    """The first complete picture drawn after ``marker`` appears."""
    buf = _read_until(master, marker)
    tail = buf[buf.index(marker) :]
    while b"\x1b[J" not in tail:
        tail += _read_until(master, b"\x1b[J")
    return _last_frame(tail)


def _stop(proc, master, slave):
    """q quits: the cursor is given back, and the exit status is 0."""
    try:
        os.write(master, b"q")
        assert b"\x1b[?25h" in _read_until(master, b"simulator stopped")
        assert proc.wait(timeout=10) == 0
    finally:
        _close(proc, master, slave)


def _close(proc, master, slave):
    """Whatever happened: no simulator left running, the pty closed."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    os.close(master)
    os.close(slave)


def test_the_simulator_runs_in_a_terminal_and_quits_cleanly(tmp_path):
    proc, master, slave = _start(tmp_path, 200, 50)
    try:
        screen = _read_until(master, b"q or Ctrl-C")
        assert b"Trap Companion simulator" in screen
        assert "▀".encode() in screen or "▄".encode() in screen  # the OLED frame is drawn
        os.write(master, b"o")  # pick the first game
        _read_until(master, b"Sound:")
        os.write(master, b"g")  # start it with its default options
        os.write(master, b"g")  # roll
        _read_until(master, b"roll")
    finally:
        _stop(proc, master, slave)
    journal = (tmp_path / "journal.jsonl").read_text()
    assert '"game":"dice"' in journal and '"name":"roll"' in journal


def test_sim_without_a_terminal_says_so():
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "sim"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "needs a terminal" in proc.stderr


@pytest.mark.parametrize(("columns", "lines"), [(80, 24), (40, 12), (200, 50)])
def test_every_size_draws_a_frame_that_fits(tmp_path, columns, lines):
    proc, master, slave = _start(tmp_path, columns, lines)
    try:
        rows = _frame_after(master, b"\x1b[H")
        assert len(rows) <= lines
        assert all(len(row) < columns for row in rows), rows
        assert rows[0].startswith("┌") and any(row.startswith("└") for row in rows)
    finally:
        _stop(proc, master, slave)


def test_a_resized_window_is_drawn_again_to_its_new_size(tmp_path):
    proc, master, slave = _start(tmp_path, 200, 50)
    try:
        _read_until(master, b"quit")
        for columns, lines in ((40, 12), (20, 6), (100, 30)):
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
            proc.send_signal(signal.SIGWINCH)
            rows = _frame_after(master, b"\x1b[2J")  # the old picture is wiped first
            assert len(rows) <= lines and all(len(row) < columns for row in rows), rows
            if columns == 20:
                assert "terminal too small:" in rows[0]
    finally:
        _stop(proc, master, slave)


def _rolls(tmp_path):
    journal = tmp_path / "journal.jsonl"
    return journal.read_text().count('"name":"roll"') if journal.exists() else 0


def _settled_rolls(tmp_path, quiet=1.0, guard=60.0):
    """The journal's rolls once no new one has come for ``quiet`` seconds (a slow machine, an
    emulated Pi, may still be finishing the last accepted roll when the keys stop)."""
    rolls, since, deadline = _rolls(tmp_path), time.monotonic(), time.monotonic() + guard
    while time.monotonic() - since < quiet:
        assert time.monotonic() < deadline, f"still rolling after {guard} s: {rolls}"
        time.sleep(0.1)
        now = _rolls(tmp_path)
        if now != rolls:
            rolls, since = now, time.monotonic()
    return rolls


def test_a_held_key_does_not_queue_presses_for_long_after(tmp_path):
    proc, master, slave = _start(tmp_path, 100, 30)
    try:
        _read_until(master, b"quit")
        done = threading.Event()
        threading.Thread(target=_drain, args=(master, done), daemon=True).start()
        os.write(master, b"o")
        time.sleep(0.3)
        os.write(master, b"g")  # the dice game starts
        time.sleep(0.5)
        start = time.monotonic()
        for _ in range(200):  # a held key's repeat: 200 presses in about a second
            os.write(master, b"g")
            time.sleep(0.0055)
        burst = time.monotonic() - start
        settled = _settled_rolls(tmp_path)
        # At most about eight a second while keys came in, plus slack for a loaded machine
        # (keys read late arrive together); a queue would give dozens, rolled for long after.
        assert 1 <= settled <= 8 * (burst + 0.7) + 4
        done.set()
        time.sleep(0.2)
    finally:
        _stop(proc, master, slave)


def _drain(master, done):
    """Read what the simulator draws, as a terminal does (a full pty would stall it)."""
    while not done.is_set():
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready and not done.is_set():
            try:
                os.read(master, 65536)
            except OSError:
                return


def test_a_bad_state_dir_is_one_line_and_the_terminal_untouched(tmp_path):
    (tmp_path / "file").write_text("")
    for bad in ("/proc/nope", str(tmp_path / "file"), str(tmp_path / "file" / "sub")):
        master, slave = pty.openpty()
        before = termios.tcgetattr(slave)
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "sim", "--state-dir", bad],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            close_fds=True,
        )
        try:
            assert proc.wait(timeout=20) == 73
            out = _read_until(master, b"\n").decode()
            assert out.startswith(f"trap-companion: --state-dir {bad}: the state directory")
            assert "Traceback" not in out and "thread" not in out
            assert termios.tcgetattr(slave) == before
        finally:
            os.close(master)
            os.close(slave)


def test_whatever_fails_the_terminal_is_given_back_and_the_first_error_reported(tmp_path):
    from companion.core.config import Config
    from companion.sim.terminal import TerminalSim

    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    out = os.fdopen(os.dup(slave), "w")
    stdin = os.fdopen(os.dup(slave), "r")
    try:
        sim = TerminalSim(Config().simulated(tmp_path), out=out)

        def broken_start():
            raise RuntimeError("the journal exploded")

        sim.app.start = broken_start
        with pytest.raises(RuntimeError, match="the journal exploded"):
            sim.run(stdin)
        assert termios.tcgetattr(slave) == before  # not left raw
        out.flush()
        shown = _read_until(master, b"\x1b[?1049l")
        assert b"\x1b[?25h" in shown  # the cursor is back
    finally:
        out.close()
        stdin.close()
        os.close(master)
        os.close(slave)


def test_sighup_on_any_worker_thread_still_closes_the_simulator(tmp_path):
    """The window closes (SIGHUP) and the kernel hands the signal to a worker thread: the key
    reader, asleep in select on the keyboard, is woken and leaves through the clean-up. Each
    worker in turn, each in a fresh simulator (before the fix, most of them left it hanging)."""
    index, count = 0, 1  # how many workers there are is known after the first start
    while index < count:
        proc, master, slave = _start(tmp_path / str(index), 200, 50)
        try:
            _read_until(master, b"q or Ctrl-C")
            tasks = os.listdir(f"/proc/{proc.pid}/task")
            workers = sorted(int(t) for t in tasks if t != str(proc.pid))
            assert workers
            count = max(count, len(workers))  # a short-lived thread may come and go
            os.kill(workers[min(index, len(workers) - 1)], signal.SIGHUP)
            assert b"\x1b[?25h" in _read_until(master, b"\x1b[?1049l")  # the terminal back
            assert proc.wait(timeout=20) == 128 + signal.SIGHUP
        finally:
            _close(proc, master, slave)
        index += 1


def test_the_renderers_notes_stay_out_of_the_panel():
    """Issue 30, point 18: a screen cut to fit is a note for developers (printed after the
    simulator closes), not something the panel beside the OLED shows the table."""
    import logging

    from companion.sim.terminal import _Captured

    shown = []
    captured = _Captured(shown.append)
    render_note = logging.LogRecord(
        "companion.ui.render",
        logging.WARNING,
        __file__,
        1,
        "screen text cut to fit: %r",
        (("a long line",),),
        None,
    )
    problem = logging.LogRecord(
        "companion.app.box", logging.WARNING, __file__, 1, "storage full", (), None
    )
    captured.handle(render_note)
    captured.handle(problem)
    assert shown == ["storage full"]
    assert len(captured.lines) == 2  # both printed after
