"""Pi-class: the figures that also run on the Pi's CPU under emulation (`make pibench`,
`trap-companion bench --pi-class`): the CPU's pace, start against a bare import, a frame's cost,
the presses, a replay, a game of any length, the box's own press under the phones' floods."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bench.figures import button_latency, card_latency
from companion.bench.long_games import start_and_press
from companion.bench.phones import web_latency
from companion.bench.start import daemon_start

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
    results.update(start_and_press(quick))
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
