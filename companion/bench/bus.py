"""Bytes on the OLED's I2C bus, the whole-frame way (luma's own drivers) and the window way
(companion/hal/panel.py), side by side in one run over the same frames (issue 46).

The frames are the box's own: every example replay (examples/*.txt), a walk through the
start menu, and a Trapwords round's countdown, each run on the virtual clock with every frame
the display draws sent to four panels on counting buses (SSD1306 and SH1106, both ways). A
byte counted is a byte of an I2C write message as the bus recorder sees it: the control byte
(0x00 commands, 0x40 data) and what follows; the address byte before each message is not
counted. The floor is the issue's: the bytes of the pages that changed (128 a page), commands
aside; a window of changed columns can go below it.

Also the loop's side of a frame (``frame_send``): what handing a frame to the panel costs the
thread that draws it, the whole-frame way (luma packs 8,192 pixels in Python and writes), the
window way written there, and the window way handed to the writer thread (the daemon's).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import luma.oled.device

from companion.core.config import Config
from companion.hal import panel

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
I2C_BLOCK = 4096  # luma's i2c.data: one message per 4,096 bytes on a managed bus
FOOTER_PAGES = frozenset({6, 7})
# A menu's cursor moving (Trapwords' why-a-turn-failed menu, after the red button held), and
# the start menu's list scrolling under its cursor (every row changes).
TRAPWORDS = "game trapwords monster=demon start_mode=pickup\npress ok\n"
MENU_MOVES = TRAPWORDS + "wait 3\nhold red 1.5\n" + "press down\npress up\n" * 6
MENU_SCROLL = "press down\n" * 6 + "press up\n" * 6
COUNTDOWN = TRAPWORDS + "wait 1\n" * 44
WAYS = {
    "ssd1306_whole": luma.oled.device.ssd1306,
    "ssd1306_window": panel.ssd1306,
    "sh1106_whole": luma.oled.device.sh1106,
    "sh1106_window": panel.sh1106,
}


class CountingBus:
    """luma's serial interface, counting the bytes of each write message and sending none."""

    def __init__(self) -> None:
        self.bytes = 0

    def command(self, *cmd: int) -> None:
        self.bytes += 1 + len(cmd)

    def data(self, data: Any) -> None:
        n = len(data)
        self.bytes += n + -(-n // I2C_BLOCK)

    def cleanup(self) -> None:
        pass


class Panels:
    """Four panels, each way on a bus of its own; ``send`` gives each the frame."""

    def __init__(self) -> None:
        self.buses = {way: CountingBus() for way in WAYS}
        self.devices = {way: make(self.buses[way]) for way, make in WAYS.items()}
        self.pages: tuple[bytes, ...] | None = None
        self.floor = 0
        self.footer_only = False

    def send(self, image: Any) -> dict[str, int]:
        before = {way: bus.bytes for way, bus in self.buses.items()}
        for device in self.devices.values():
            device.display(image)
        pages = panel.page_bytes(image)
        changed = {p for p in range(len(pages)) if self.pages is None or self.pages[p] != pages[p]}
        self.pages = pages
        self.floor = len(changed) * len(pages[0])
        self.footer_only = bool(changed) and changed <= FOOTER_PAGES
        sent = {way: bus.bytes - before[way] for way, bus in self.buses.items()}
        sent["changed_pages"] = self.floor
        return sent


def _lines(text: str) -> Iterator[tuple[int, list[str]]]:
    from companion.replay import script_lines

    return script_lines(text)


def _run(text: str, on_line: Callable[[list[str], list[dict[str, int]]], None]) -> None:
    """A replay script on a simulated box, each line's frames to the panels."""
    from companion.replay import REPLAY_DATE, Replay
    from companion.sim.box import SimulatedBox

    panels = Panels()
    frames: list[dict[str, int]] = []
    footers: list[dict[str, int]] = []

    def sent(image: Any) -> None:
        figures = panels.send(image)
        frames.append(figures)
        if panels.footer_only:
            footers.append(figures)

    with tempfile.TemporaryDirectory(prefix="trap-bench-bus-") as tmp:
        box = SimulatedBox(
            Config(), state_dir=Path(tmp), seed=0, today=lambda: REPLAY_DATE, on_frame=sent
        )
        try:
            box.app.start()
            box.loop.drain()
            replay = Replay(box)
            for number, words in _lines(text):
                frames.clear()
                replay.line(number, words)
                on_line(words, list(frames))
        finally:
            box.close()
    on_line(["footer"], footers)


def _kind(words: list[str]) -> str | None:
    if words and words[0] in ("press", "hold"):
        return "press"
    if words and words[0] == "tap":
        return "card"
    return None


def _summary(samples: list[dict[str, int]]) -> dict[str, Any]:
    """Mean bytes a sample (a press, a card, a tick) each way, and the window's share."""
    if not samples:
        return {"n": 0}
    out: dict[str, Any] = {"n": len(samples)}
    for way in (*WAYS, "changed_pages"):
        out[way] = round(statistics.fmean(s.get(way, 0) for s in samples), 1)
    for chip in ("ssd1306", "sh1106"):
        whole = out[f"{chip}_whole"]
        out[f"{chip}_window_percent"] = (
            round(100 * out[f"{chip}_window"] / whole, 1) if whole else 0
        )
    out["ssd1306_window_max"] = max(s.get("ssd1306_window", 0) for s in samples)
    return out


def _total(frames: list[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = defaultdict(int)
    for figures in frames:
        for way, n in figures.items():
            total[way] += n
    return dict(total)


def bus(quick: bool = False) -> dict[str, Any]:
    """What `trap-companion bench --bus` prints: the bytes, and the drawing thread's side."""
    results = bus_bytes()
    results.update(frame_send(60 if quick else 300))
    return results


def bus_bytes(examples: Path = EXAMPLES) -> dict[str, Any]:
    """Bytes on the bus per press and per card over the example replays (and per up or down
    press there), per menu move (the cursor), per start-menu scroll, per countdown tick and
    per footer change (a frame that changed only the footer's pages), both ways; a frameless
    line counts as 0 bytes."""
    per: dict[str, list[dict[str, int]]] = defaultdict(list)

    def collect(into: str | None) -> Callable[[list[str], list[dict[str, int]]], None]:
        def on_line(words: list[str], frames: list[dict[str, int]]) -> None:
            if words == ["footer"]:
                per["footer_change"].extend(frames)
                return
            kind = into if into is not None else _kind(words)
            if into is None and words in (["press", "up"], ["press", "down"]):
                per["up_down_press"].append(_total(frames))  # the games' menus and lists
            if kind is not None and (into is None or words in (["press", "up"], ["press", "down"])):
                per[kind].append(_total(frames))

        return on_line

    scripts = sorted(examples.glob("*.txt"))
    for script in scripts:
        _run(script.read_text(encoding="utf-8"), collect(None))
    _run(MENU_MOVES, collect("menu_move"))
    _run(MENU_SCROLL, collect("menu_scroll"))
    ticks: list[dict[str, int]] = []

    def countdown(words: list[str], frames: list[dict[str, int]]) -> None:
        if words == ["wait", "1"]:
            ticks.append(_total(frames))
        elif words == ["footer"]:
            per["footer_change"].extend(frames)

    _run(COUNTDOWN, countdown)
    per["countdown_tick"] = ticks
    results: dict[str, Any] = {"bus_example_scripts": len(scripts)}
    kinds = ("press", "card", "up_down_press", "menu_move", "menu_scroll")
    for kind in (*kinds, "countdown_tick", "footer_change"):
        results[f"bus_bytes_per_{kind}"] = _summary(per[kind])
    return results


def frame_send(frames: int = 200) -> dict[str, float]:
    """Milliseconds on the drawing thread to get one frame to the panel (a counting bus, so
    no wire time): luma's whole frame, the window written there, and the window handed to the
    writer thread (the daemon's way; the writer packs and writes off that thread)."""
    from companion.hal.frame_writer import FrameWriter
    from companion.ui.render import render
    from companion.ui.screen import Screen

    images = [
        render(Screen("Dice  2d6", (f"3 + {n}",), big=str(3 + n), footer="G roll  R back"))
        for n in range(1, 7)
    ]
    whole = luma.oled.device.ssd1306(CountingBus())
    window = panel.ssd1306(CountingBus())
    writer = FrameWriter(lambda device, err: None, (OSError,))
    background = panel.ssd1306(CountingBus())
    took: dict[str, list[float]] = {"whole": [], "window": [], "handoff": []}
    try:
        for i in range(frames):
            image = images[i % len(images)]
            for name, send in (
                ("whole", whole.display),
                ("window", window.display),
                ("handoff", lambda im: writer.submit(background, im)),
            ):
                started = time.perf_counter()
                send(image)
                took[name].append((time.perf_counter() - started) * 1000)
            writer.flush(5.0)
    finally:
        writer.stop(5.0)
    return {
        "frame_send_whole_ms": round(statistics.median(took["whole"]), 3),
        "frame_send_window_ms": round(statistics.median(took["window"]), 3),
        "frame_handoff_ms": round(statistics.median(took["handoff"]), 3),
    }
