"""The terminal simulator: the daemon's App on mock pins and a fake reader, on the real clock.

Keys drive mock pins exactly as fingers drive real ones (an edge, then a release a moment
later), so debounce, long presses and the one-consumer loop all run as on the box. The OLED
frame is drawn from the same image the dummy luma device holds.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import threading
import tty
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from companion.core.clock import RealClock
from companion.core.config import Config
from companion.core.events import Call, Stop
from companion.sim.box import SimulatedBox
from companion.sim.frame import braille, halfblocks

SHORT = 0.08  # seconds a key "holds" its button
GAP = 0.02  # between two simulated presses, longer than the debounce window
KEYS: dict[str, tuple[str, bool]] = {
    "\x1b[A": ("up", False),
    "\x1b[B": ("down", False),
    "k": ("up", False),
    "j": ("down", False),
    "\r": ("ok", False),
    "\n": ("ok", False),
    "o": ("ok", False),
    "b": ("back", False),
    "\x7f": ("back", False),
    "g": ("green", False),
    "r": ("red", False),
    "K": ("up", True),
    "J": ("down", True),
    "O": ("ok", True),
    "B": ("back", True),
    "G": ("green", True),
    "R": ("red", True),
}
HELP = [
    "Buttons (capital = long press)",
    "  up/down  arrows or k/j",
    "  ok       Enter or o",
    "  back     b   (B: undo)",
    "  green    g   (G: long)",
    "  red      r   (R: long)",
    "Cards",
    "  c / C    next / previous card",
    "  t        tap the chosen card",
    "  u        type a UID, Enter taps",
    "q or Ctrl-C  quit",
]


@dataclass
class SimState:
    deck: list[tuple[str, str]] = field(default_factory=list)  # (uid, label)
    chosen: int = 0
    typing: str | None = None
    sounds: list[str] = field(default_factory=list)
    message: str = ""


def _led_block(rgb: tuple[float, float, float]) -> str:
    r, g, b = (int(255 * max(0.0, min(1.0, c))) for c in rgb)
    return f"\x1b[48;2;{r};{g};{b}m      \x1b[0m"


class TerminalSim:
    def __init__(self, config: Config, out: TextIO = sys.stdout, compact: bool | None = None):
        self.out = out
        self.lock = threading.Lock()
        self.state = SimState()
        self.free_at = 0.0
        self.frame: Any = None
        size = os.get_terminal_size(out.fileno()) if out.isatty() else os.terminal_size((200, 50))
        self.compact = compact if compact is not None else size.columns < 170 or size.lines < 36
        self.box = SimulatedBox(config, clock=RealClock(), on_frame=self._on_frame, demo_cards=True)
        self.app = self.box.app
        self.app.on_refresh.append(self._on_refresh)
        self.state.deck = self._deck()

    def _deck(self) -> list[tuple[str, str]]:
        registry = self.app.registry
        cards = list(registry.cards.values()) + list(registry.demo.values())
        return [(c.uid, f"{c.name} ({c.game})") for c in cards]

    # --- drawing (loop thread) -----------------------------------------------------------

    def _on_frame(self, image: Any) -> None:
        self.frame = image

    def _on_refresh(self) -> None:
        self.state.sounds = (self.state.sounds + self.app.sounds)[-4:]
        self.app.sounds.clear()
        self.app.logs.clear()
        self.draw()

    def draw(self) -> None:
        rows = self._oled_rows()
        panel = self._panel()
        width = len(rows[0]) if rows else 0
        lines = ["\x1b[H"]
        lines.append("┌" + "─" * width + "┐  Trap Companion simulator")
        for i in range(max(len(rows), len(panel))):
            left = ("│" + rows[i] + "│") if i < len(rows) else " " * (width + 2)
            right = panel[i] if i < len(panel) else ""
            lines.append(f"{left}  {right}\x1b[K")
        lines.append("└" + "─" * width + "┘\x1b[K")
        lines.append("\x1b[J")
        with self.lock:
            self.out.write("\r\n".join(lines))  # raw mode: no implicit carriage return
            self.out.flush()

    def _oled_rows(self) -> list[str]:
        if self.frame is None:
            return [" " * (64 if self.compact else 128)] * (16 if self.compact else 32)
        return braille(self.frame) if self.compact else halfblocks(self.frame)

    def _panel(self) -> list[str]:
        app, st = self.app, self.state
        shown = app.shown[1].shown() if app.shown else (0.0, 0.0, 0.0)
        pattern = app.shown[1].pattern if app.shown else "off"
        uid, label = st.deck[st.chosen] if st.deck else ("-", "no cards")
        typing = f"UID> {st.typing}_" if st.typing is not None else ""
        return [
            f"LED {_led_block(shown)} {pattern}",
            f"Sound: {', '.join(st.sounds) or '-'}",
            f"Reader: {app.reader_status}",
            f"Card: {label[:40]}",
            f"      {uid}",
            typing or st.message,
            "",
            *HELP,
        ]

    # --- input (main thread) -------------------------------------------------------------

    def press(self, button: str, long: bool) -> None:
        """Press on the loop thread. Keys typed faster than a finger wait their turn, in order
        (a short press is known at release, so overlapping presses would swap places)."""
        pin = self.box.pin(button)
        seconds = self.box.config.buttons.hold_seconds + 0.2 if long else SHORT
        loop, clock = self.app.loop, self.box.clock

        def down() -> None:
            now = clock.now()
            if now < self.free_at:
                loop.call_at(self.free_at, down)
                return
            pin.drive_low()
            self.free_at = now + seconds + GAP
            loop.call_later(seconds, pin.drive_high)

        loop.post(Call(down))

    def tap(self, uid: str) -> None:
        try:
            uid = self.box.uid(uid)
        except Exception as err:
            self.state.message = str(err)[:60]
            self.app.loop.post(Call(self.draw))
            return
        device = self.box.device
        if device is None:
            self.state.message = "no card reader configured"
            return
        start: Callable[[], None]
        stop: Callable[[], None]
        if hasattr(device, "hold"):
            start, stop = (lambda: device.hold(uid)), device.release
        else:
            start, stop = (lambda: device.present(uid)), device.remove
        start()
        self.state.message = f"tapped {uid}"
        self.app.loop.post(Call(lambda: self.app.loop.call_later(0.35, stop)))

    def key(self, key: str) -> bool:
        """Handle one key; False to quit."""
        st = self.state
        if st.typing is not None:
            if key in ("\r", "\n"):
                uid, st.typing = st.typing, None
                if uid:
                    self.tap(uid)
            elif key == "\x1b":
                st.typing = None
            elif key == "\x7f":
                st.typing = st.typing[:-1]
            elif len(key) == 1 and key.isprintable():
                st.typing += key
            self.app.loop.post(Call(self.draw))
            return True
        if key in ("q", "\x03"):
            return False
        if key in KEYS:
            self.press(*KEYS[key])
        elif key in ("c", "C") and st.deck:
            st.chosen = (st.chosen + (1 if key == "c" else -1)) % len(st.deck)
            self.app.loop.post(Call(self.draw))
        elif key == "t" and st.deck:
            self.tap(st.deck[st.chosen][0])
        elif key == "u":
            st.typing = ""
            self.app.loop.post(Call(self.draw))
        return True

    def run(self, stdin: TextIO = sys.stdin) -> int:
        fd = stdin.fileno()
        saved = termios.tcgetattr(fd) if os.isatty(fd) else None
        consumer = threading.Thread(target=self.app.loop.run, name="loop", daemon=True)
        try:
            if saved is not None:
                tty.setraw(fd)
            self.out.write("\x1b[?25l\x1b[2J")
            self.app.start()
            consumer.start()
            self.app.loop.post(Call(self.draw))
            while True:
                select.select([fd], [], [])  # blocks until a key arrives
                data = os.read(fd, 64).decode("utf-8", "replace")
                if not data:
                    break
                if not all(self.key(k) for k in _split_keys(data)):
                    break
        finally:
            self.app.loop.post(Stop("quit"))
            consumer.join(timeout=2)
            if saved is not None:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            self.box.close()
            self.out.write("\x1b[0m\x1b[?25h\x1b[2J\x1b[H")
            self.out.write("Trap Companion simulator stopped. Your game is kept in the journal.\n")
            self.out.flush()
        return 0


def _split_keys(data: str) -> list[str]:
    """Split raw input into keys, keeping arrow-key escape sequences whole."""
    keys, i = [], 0
    while i < len(data):
        if data.startswith("\x1b[", i) and i + 2 < len(data):
            keys.append(data[i : i + 3])
            i += 3
        else:
            keys.append(data[i])
            i += 1
    return keys
