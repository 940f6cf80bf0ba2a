"""The terminal simulator in a real pty, as a newcomer would use it: it draws the OLED and the
keys, answers keys, and q quits and restores the terminal."""

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time


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


def test_the_simulator_runs_in_a_terminal_and_quits_cleanly(tmp_path):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    env = dict(os.environ, COLUMNS="200", LINES="50", TERM="xterm-256color")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "sim", "--state-dir", str(tmp_path)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    try:
        screen = _read_until(master, b"q or Ctrl-C")
        assert b"Trap Companion simulator" in screen
        assert "▀".encode() in screen or "▄".encode() in screen  # the OLED frame is drawn
        os.write(master, b"o")  # pick the first game
        _read_until(master, b"Sound:")
        os.write(master, b"g")  # start it with its default options
        os.write(master, b"g")  # roll
        _read_until(master, b"roll")
        os.write(master, b"q")
        tail = _read_until(master, b"simulator stopped")
        assert b"\x1b[?25h" in tail  # the cursor is given back
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
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
