"""One run: the VM, the simulator, the panel read back from the bus, the results."""

from __future__ import annotations

import base64
import copy
import time
from dataclasses import dataclass, field
from typing import Any

import ssd1306
import sysbase  # tools/systest/sysbase.py: Log, Skip, NAME, the parsers
from hwbase import BUTTONS, FRAME_GUARD, QUIET_GUARD, Failed, say
from machine import Agent, Simulator, Vm


@dataclass
class Result:
    name: str
    ok: bool
    text: str


@dataclass
class Run:
    vm: Vm
    sim: Simulator
    log: sysbase.Log
    fault: str
    rdm: Any
    pn532: Any
    panel: ssd1306.Ssd1306 = field(default_factory=ssd1306.Ssd1306)
    writes: list[ssd1306.Write] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    last_ms: list[float] = field(default_factory=list)  # press to its frame complete
    figures: dict[str, str] = field(default_factory=dict)
    watch: bytearray | None = None  # a frame that may show only for a moment (a notice)
    seen: bool = False
    bin: str = ""  # the installed program's bin folder and package (installed_program)
    site: str = ""
    repeat: dict[str, int] = field(default_factory=dict)  # HWTEST_REPEAT: check -> times

    def shown_at_some_point(self, want: list[list[int]], guard: float = FRAME_GUARD) -> bool:
        """Whether the panel showed WANT after any write from now on (bounded): a notice
        stays a few seconds, and a drain can take it and what replaces it at once."""
        ram = ssd1306.ram_of(want)
        self.watch, self.seen = ram, self.panel.ram == ram
        end = time.monotonic() + guard
        while not self.seen and time.monotonic() < end:
            self.feed(self.agent.guest("drain", "0.3")["log"])
        self.watch = None
        return self.seen

    @property
    def agent(self) -> Agent:
        assert self.vm.agent is not None
        return self.vm.agent

    def record(self, name: str, ok: bool, text: str) -> bool:
        self.results.append(Result(name, ok, text))
        say(f"{'PASS' if ok else 'FAIL'} {len(self.results)} {name}: {text}")
        self.log.write(f"{'PASS' if ok else 'FAIL'} {name}: {text}")
        return ok

    def feed(self, b64: str) -> list[ssd1306.Write]:
        writes, rest = ssd1306.parse_records(base64.b64decode(b64))
        if rest:
            raise Failed(f"a cut I2C record ({len(rest)} bytes)")
        for w in writes:
            self.panel.feed(w.data)
            if self.watch is not None and self.panel.ram == self.watch:
                self.seen = True
        self.writes += writes
        return writes

    def settle_on(
        self, want: list[list[int]], guard: float = FRAME_GUARD, quiet: float = QUIET_GUARD
    ) -> tuple[int, float]:
        """Take writes until the panel shows WANT and a quiet second keeps it so (bounded);
        the pixels that differ at the end, and how long it took. A panel that differs and got
        no write for QUIET seconds is final (a box drawing the wrong frame is not kept waiting
        for the whole guard, frame after frame)."""
        started = last_write = time.monotonic()
        asked = False  # quiet only counts once the box was asked for its writes (a slow host
        # can spend the quiet time comparing the pixels alone)
        while True:
            diff = ssd1306.differing(self.panel.pixels(), want)
            if diff == 0:
                settled = self.agent.guest("drain", "1.0")
                self.feed(settled["log"])
                diff = ssd1306.differing(self.panel.pixels(), want)
                if diff == 0:
                    return 0, time.monotonic() - started
            now = time.monotonic()
            if now - started > guard or (asked and now - last_write > quiet):
                return diff, now - started
            if self.feed(self.agent.guest("drain", "0.5")["log"]):
                last_write = time.monotonic()
            asked = True

    def quiet(self, seconds: float, guard: float = FRAME_GUARD) -> None:
        """Take the box's writes until none came for SECONDS (bounded by GUARD): it has drawn
        all that what it was given makes it draw."""
        end = time.monotonic() + guard
        while time.monotonic() < end:
            if not self.feed(self.agent.guest("drain", f"{seconds}")["log"]):
                return

    def press(self, button: str, seconds: float, bounce: int = 0) -> dict[str, Any]:
        answer = self.agent.guest(
            "press", str(BUTTONS[button]), f"{seconds}", "--bounce", str(bounce), "--quiet", "0.5"
        )
        self.feed(answer["before"])
        # The panel as the press found it, and where its writes start: the frame's last write
        # is found once the wanted frame is known (last_write_ms).
        answer["panel"], answer["from"] = copy.deepcopy(self.panel), len(self.writes)
        after = self.feed(answer["log"])
        # A short press acts when it ends (a long one at hold_seconds): the line change that
        # makes the press is the release.
        firsts = [w.t_ns for w in after if w.t_ns >= answer["t_up"]]
        if firsts and seconds < 1:
            answer["latency_ms"] = (min(firsts) - answer["t_up"]) / 1e6
        return answer

    def last_write_ms(self, answer: dict[str, Any], want: list[list[int]]) -> float | None:
        """From a short press's release to the write that completed WANT (its last byte)."""
        done = ssd1306.frame_done_at(answer["panel"], self.writes[answer["from"] :], want)
        return None if done is None or "latency_ms" not in answer else (done - answer["t_up"]) / 1e6

    def save_frame(self, name: str, pixels: list[list[int]] | None = None) -> None:
        """The panel's frame (or ``pixels``) as a PNG in the run's folder (--keep keeps it)."""
        from PIL import Image

        pixels = self.panel.pixels() if pixels is None else pixels
        image = Image.new("1", (ssd1306.WIDTH, ssd1306.HEIGHT))
        image.putdata([p for row in pixels for p in row])
        image.save(self.vm.run_dir.parent / f"{name}.png")
