"""A game of any length (issue 31 point 2: the journal's bound): start and a press's CPU with a
game of an evening's length and one far past any table's (`trap-companion bench --game-length`)."""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bench.box import _FrameWatch
from companion.bench.box import running_box as _running_box
from companion.bench.box import stop as _stop
from companion.bench.phones import _web_face
from companion.bench.start import _ready_and_peak
from companion.core.events import Call
from companion.games.base import Action
from companion.sim.box import SimulatedBox

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
    from companion.core.journal import Journal
    from companion.core.journal_lines import Step

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


def start_and_press(quick: bool = False) -> dict[str, Any]:
    """Start and a press by a game's length, as the whole run and the Pi-class run take them."""
    return {
        **start_by_game_length(runs=1 if quick else 3),
        **press_cpu_by_game_length(presses=200 if quick else 600),
    }


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
