"""Power cuts during a Trapwords turn, through the real daemon code: `python -m companion replay -`
in a subprocess with its state directory in tmp, killed with SIGKILL, then started again.

A running timer must come back paused with the time it had left at the last journaled change
(ticks are the screen's and never journaled), and the table must be able to play on (and be cut
again) without the saved game being set aside.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from power_cut_support import spawn_replay

READ_TIMEOUT = 20.0


class Box:
    """One run of the replay daemon: send directive lines, read the output objects back."""

    def __init__(self, config: Path) -> None:
        self.proc = spawn_replay(config)

    def line(self, directive: str) -> dict[str, Any]:
        """Send one directive; its output object (printed only after the journal's fsync)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((directive + "\n").encode())
        buf = b""
        deadline = time.monotonic() + READ_TIMEOUT
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, left))
            chunk = os.read(self.proc.stdout.fileno(), 4096) if ready else b""
            if not chunk:
                self.proc.kill()
                stderr = self.proc.stderr.read().decode() if self.proc.stderr else ""
                pytest.fail(f"no output for {directive!r}: {stderr}")
            buf += chunk
        return json.loads(buf)

    def kill(self) -> None:
        """The power goes: no clean shutdown, nothing flushed beyond what was fsync'ed."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        assert self.proc.returncode == -signal.SIGKILL
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[state]\ndir = "{tmp_path / "state"}"\n')
    return path


def cut_and_restart(box: Box, config: Path) -> tuple[Box, dict[str, Any]]:
    box.kill()
    again = Box(config)
    return again, again.line("wait 0")


@pytest.mark.parametrize(("resume", "runs_from"), [("press ok", 0.05), ("do resume", 0.0)])
def test_a_running_turn_comes_back_paused_and_runs_out_on_time(
    config: Path, resume: str, runs_from: float
) -> None:
    box = Box(config)
    box.line("game trapwords monster=dragon start_mode=pickup seconds=45")
    started = box.line("press ok")
    assert started["state"]["timer"]["running"] is True
    box.line("wait 12")
    guessed = box.line("press red")["state"]  # a wrong guess at 12.1 s, journaled
    assert guessed["timer"]["remaining"] == 32.95
    before = box.line("wait 6")["state"]  # six ticks, none journaled
    assert before["timer"]["running"] is True and before["timer"]["remaining"] == 27.0
    box, resumed = cut_and_restart(box, config)

    state = resumed["state"]
    assert resumed["game"] == "trapwords"
    assert state["round"] == before["round"] == 1
    assert state["teams"] == before["teams"]
    assert state["clue_team"] == before["clue_team"] == "A"
    assert state["phase"] == "paused"
    assert state["timer"]["running"] is False
    left = state["timer"]["remaining"]
    assert left == guessed["timer"]["remaining"]  # as of the last journaled change, exactly
    assert resumed["screen"][1:3] == [str(round(left)), "Paused: ok resumes"]

    # Resuming runs the timer again (a press acts when it ends, at t = 0.05 on the new clock);
    # the turn then runs out exactly `left` seconds later.
    running = box.line(resume)
    assert running["state"]["timer"]["running"] is True
    almost = box.line(f"wait {runs_from + left - 0.01 - running['t']:.2f}")
    assert almost["state"]["phase"] == "running"
    assert almost["sounds"].count("tick") == 10
    over = box.line("wait 0.02")
    assert over["t"] == round(runs_from + left + 0.01, 3)
    assert over["state"]["result"] == "timeout"
    assert over["sounds"] == ["time_up"]
    assert "A ran out of time (45.00 s used)" in over["log"]
    assert over["state"]["clue_team"] == "B"
    box.kill()


def test_cut_again_after_resuming_keeps_the_game_and_its_time(config: Path) -> None:
    box = Box(config)
    box.line("game trapwords monster=troll start_mode=pickup seconds=40")
    box.line("press ok")
    box.line("wait 5.5")
    box, first = cut_and_restart(box, config)
    # Ticks are not journaled: the last journaled change is the start, the whole turn is left.
    assert first["state"]["timer"] == {"remaining": 40.0, "running": False, "limit": 40.0}

    box.line("wait 3")  # the table takes its time: a paused timer loses nothing
    box.line("press ok")
    guessed = box.line("press red")["state"]  # a wrong guess while the timer runs again
    ran = box.line("wait 7.2")["state"]
    assert ran["guesses_left"] == 4
    box, second = cut_and_restart(box, config)
    assert second["game"] == "trapwords", second["screen"]
    state = second["state"]
    assert state["phase"] == "paused"
    assert state["guesses_left"] == 4
    assert state["timer"]["remaining"] == guessed["timer"]["remaining"] == 39.95

    # Guesses counted while paused survive a third cut, and the time stays exactly as it was.
    box.line("press red")
    box.line("hold red 1.5")  # the failure choice, still paused
    box, third = cut_and_restart(box, config)
    assert third["state"]["phase"] == "why"
    assert third["state"]["guesses_left"] == 3
    assert third["state"]["timer"] == state["timer"]
    box.line("press red")  # drop the choice: back to the paused turn, not a running one
    out = box.line("wait 5")
    assert out["state"]["phase"] == "paused"
    assert out["state"]["timer"] == state["timer"]
    box.kill()


def test_a_cut_during_the_reading_time_comes_back_paused_with_the_full_turn(
    config: Path,
) -> None:
    box = Box(config)
    box.line("game trapwords monster=demon start_mode=official read_seconds=5 seconds=30")
    box.line("press ok")
    reading = box.line("wait 2")
    assert reading["state"]["phase"] == "reading"
    box, resumed = cut_and_restart(box, config)
    assert resumed["state"]["phase"] == "paused"
    assert resumed["state"]["timer"] == {"remaining": 30.0, "running": False, "limit": 30.0}
    box.line("press ok")
    out = box.line("wait 10")
    assert out["state"]["timer"] == {"remaining": 20.0, "running": True, "limit": 30.0}
    box.kill()
