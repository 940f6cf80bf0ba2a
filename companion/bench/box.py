"""The simulated box every bench runs: started on the real clock with its loop on a thread of
its own, a game started on it, and stopped. figures.py and floods.py both use it, so neither
imports the other's helpers (the import graph has no circle, tools/layers.py)."""

from __future__ import annotations

import threading
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
