"""Power cuts: the daemon's code on simulated parts in a subprocess, killed with SIGKILL at random
moments. After every restart the game must hold every acknowledged action exactly (an action
is acknowledged when its output line came back, which happens only after the journal's fsync),
plus at most the one action that was in flight when the power went."""

import json
import os
import random
import select
import signal
import subprocess
import sys
import time

KILLS = 50
SCRIPT_CHOICES = ["press green"] * 4 + ["do choose die=d4", "do choose die=2d6", "do reroll"]


def _spawn(config):
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "replay", "-", "--config", str(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )


def _send(proc, line):
    proc.stdin.write((line + "\n").encode())


def _read_line(proc, timeout=20.0):
    """One output line, or None if the process died or said nothing in time."""
    buf = b""
    deadline = time.monotonic() + timeout
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if not ready:
            return None
        chunk = os.read(proc.stdout.fileno(), 1)
        if not chunk:
            return None
        buf += chunk
    return json.loads(buf)


def test_kill_minus_nine_at_random_moments_loses_no_acknowledged_action(tmp_path):
    rng = random.Random(1234)
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{tmp_path / "state"}"\n')
    acked = None  # the last acknowledged dice state
    kills = 0
    first = True
    while kills < KILLS:
        proc = _spawn(config)
        try:
            _send(proc, "game dice" if first else "wait 0")
            resumed = _read_line(proc)
            assert resumed is not None, proc.stderr.read().decode()
            if not first:
                assert resumed["game"] == "dice"
                history, before = resumed["state"]["history"], acked["history"]
                # every acknowledged roll is there, identical, in order...
                assert history[: len(before)] == before
                # ...and at most the one roll that was in flight came along
                assert len(history) - len(before) <= 1
                if len(history) == len(before):
                    assert resumed["state"]["die"] in (acked["die"], "d4", "2d6")
            acked = resumed["state"]
            first = False
            for _ in range(rng.randint(0, 6)):
                _send(proc, rng.choice(SCRIPT_CHOICES))
                out = _read_line(proc)
                assert out is not None, proc.stderr.read().decode()
                acked = out["state"]
            _send(proc, rng.choice(SCRIPT_CHOICES))
            time.sleep(rng.uniform(0, 0.03))  # the power goes mid-action, or just after
            proc.send_signal(signal.SIGKILL)
            kills += 1
            proc.wait(timeout=10)
            # an ack that made it out before the kill still counts
            rest = proc.stdout.read()
            for raw in rest.splitlines():
                acked = json.loads(raw)["state"]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                stream.close()
    assert kills == KILLS
    state_dir = tmp_path / "state"
    assert not list(state_dir.glob("journal.jsonl.unreadable-*")), "a power cut broke the journal"
    assert len(acked["history"]) > 10, "the test should have played a real game"
