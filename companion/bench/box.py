"""The simulated box every bench runs: started on the real clock with its loop on a thread of
its own, a game started on it, and stopped; and what watches it (the frames handed to the
display, the CPU a sample costs, a trigger timed to its frame, an idle spell). Every bench module
uses it, so none imports another's helpers for these (no circle, tools/layers.py)."""

from __future__ import annotations

import resource
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.core.clock import RealClock
from companion.core.config import from_dict
from companion.core.events import Call, Stop
from companion.sim.box import SimulatedBox


def running_box(
    state: Path, watch: Any, reader: str = "rdm6300", **kwargs: Any
) -> tuple[SimulatedBox, threading.Thread]:
    """A box on ``state``, started, its loop consumed on a thread; ``watch`` sees each frame."""
    config = from_dict({"reader": {"type": reader}}, "bench")
    box = SimulatedBox(config, state_dir=state, clock=RealClock(), on_frame=watch, **kwargs)
    box.app.start()
    consumer = threading.Thread(target=box.loop.run, name="loop", daemon=True)
    consumer.start()
    return box, consumer


def stop(box: SimulatedBox, consumer: threading.Thread) -> None:
    box.loop.post(Stop("bench"))
    consumer.join(timeout=5)
    box.close()


def start_game(box: SimulatedBox, watch: Any, name: str, **options: str) -> None:
    """A game started as a face starts one; returns once a frame was drawn (``watch.event``)."""
    from companion.games import registry

    registry.get(name).check_options(options)  # a bad option fails here, loudly
    watch.event.clear()
    box.loop.post(Call(lambda: box.app.new_game(name, dict(options))))
    watch.event.wait(5)


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
        box, consumer = running_box(Path(tmp), watch, reader)
        try:
            start_game(box, watch, "dice")
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
            stop(box, consumer)
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


def _idle_for(seconds: float) -> tuple[float, float]:
    """This process's CPU (percent) and voluntary context switches a second over ``seconds``
    of doing nothing itself: what the box's threads spend and how often they wake."""
    c0, t0 = time.process_time(), time.perf_counter()
    w0 = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
    time.sleep(seconds)
    w1 = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
    c1, t1 = time.process_time(), time.perf_counter()
    return round(100 * (c1 - c0) / (t1 - t0), 3), round((w1 - w0) / (t1 - t0), 1)
