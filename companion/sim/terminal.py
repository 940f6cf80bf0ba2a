"""The terminal simulator: the daemon's App on mock pins and a fake reader, on the real clock.

Keys drive mock pins exactly as fingers drive real ones (an edge, then a release a moment
later), so debounce, long presses and the one-consumer loop all run as on the box. The OLED
frame is drawn from the same image the dummy luma device holds, fitted to the terminal's size
(companion/sim/layout.py) and drawn again whenever the window changes size.

The terminal is the user's: whatever fails, it is given back as it was (cooked mode, cursor,
main screen) before any message is printed, and the first error is the one reported.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
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
from companion.faces.snapshot import Snapshot
from companion.sim.box import SimulatedBox
from companion.sim.controls import SimControls
from companion.sim.keys import KEYS, split_keys
from companion.sim.layout import Panel, compose, joined

log = logging.getLogger(__name__)

ENTER = "\x1b[?1049h\x1b[?25l\x1b[2J"  # the alternate screen, no cursor
LEAVE = "\x1b[0m\x1b[2J\x1b[H\x1b[?25h\x1b[?1049l"
STOPPED = "Trap Companion simulator stopped. Your game is kept in the journal ({path}).\n"


@dataclass
class SimState:
    deck: list[tuple[str, str, str]] = field(default_factory=list)  # (uid, label, game)
    chosen: int = 0
    deck_game: str | None = None  # the game the deck was last turned to
    typing: str | None = None
    sounds: list[str] = field(default_factory=list)
    message: str = ""


def _led_block(rgb: tuple[float, float, float]) -> str:
    r, g, b = (int(255 * max(0.0, min(1.0, c))) for c in rgb)
    return f"\x1b[48;2;{r};{g};{b}m      \x1b[0m"


# Loggers whose warnings are notes for developers (a screen's text cut to fit), printed after
# the simulator closes but never shown in the panel to the table.
NOT_SHOWN = frozenset({"companion.ui.render"})


class _Captured(logging.Handler):
    """Log records held back while the terminal is ours (a line written over the frame would
    garble it); the latest warning is shown in the panel, all are printed after."""

    def __init__(self, show: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.show = show
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))
        if record.name not in NOT_SHOWN:
            self.show(record.getMessage())


class TerminalSim:
    def __init__(
        self,
        config: Config,
        out: TextIO = sys.stdout,
        display: str = "auto",
        web_port: int | None = None,
        phones: int | None = None,
    ):
        self.out = out
        self.phones_port = phones  # serve the phone face on 127.0.0.1:PORT (sim --phones)
        self.phones: Any = None
        self.display = display
        self.lock = threading.Lock()
        self.state = SimState()
        self.snapshot: Snapshot | None = None  # the newest the box showed
        self.failure: BaseException | None = None
        self.box = SimulatedBox(config, clock=RealClock(), demo_cards=True)
        self.app = self.box.app
        self.controls = SimControls(self.box)
        self.app.faces.add(self)  # this terminal is a face of the box, as a web page is
        self.web: Any = None
        if web_port is not None:  # the same box in a browser too (companion/sim/web.py)
            from companion.sim.web import serve

            try:
                self.web = serve(self.box, self.controls, web_port)
            except BaseException:
                self.box.close()
                raise
            self.state.message = f"web: {self.web.url}"
        self.state.deck = self._deck()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._resized = False
        self._clear = False

    def _deck(self) -> list[tuple[str, str, str]]:
        return [(uid, f"{name} ({game})", game) for uid, name, game in self.controls.deck()]

    def _turn_deck(self) -> None:
        """When the game in play changes, the deck opens at that game's first card (the table
        plays that game's cards; another game's stay a few presses of `C` away)."""
        st, snap = self.state, self.snapshot  # a face sees the box through its snapshots only
        game = snap.game if snap is not None else None
        if game is None or game == st.deck_game:
            return
        st.deck_game = game
        if st.deck and st.deck[st.chosen][2] != game:
            first = next((i for i, card in enumerate(st.deck) if card[2] == game), None)
            if first is not None:
                st.chosen = first

    # --- drawing (loop thread) -----------------------------------------------------------

    def show(self, snapshot: Snapshot) -> None:
        """A Face (companion/faces/face.py): drawn at once, on the loop thread."""
        self.snapshot = snapshot
        self.state.sounds = (self.state.sounds + list(snapshot.sounds))[-4:]
        self.draw()

    def size(self) -> tuple[int, int]:
        try:
            size = os.get_terminal_size(self.out.fileno())
        except (OSError, ValueError):
            return 200, 50
        return size.columns, size.lines

    def panel(self) -> Panel:
        snap, st = self.snapshot, self.state
        self._turn_deck()
        uid, label, _ = st.deck[st.chosen] if st.deck else ("-", "no cards", "")
        message = f"UID> {st.typing}_" if st.typing is not None else st.message
        return Panel(
            led=_led_block(snap.led if snap else (0.0, 0.0, 0.0)),
            pattern=snap.pattern if snap else "off",
            sounds=", ".join(st.sounds) or "-",
            reader=snap.reader if snap else "reader starting",
            card=label,
            uid=uid,
            message=message,
        )

    def lines(self, width: int, height: int) -> list[str]:
        """The picture for a terminal of this size (tests call it for any size)."""
        snap = self.snapshot
        frame = snap.image() if snap else None
        return compose(
            width, height, self.panel(), frame, snap.view if snap else None, self.display
        )

    def draw(self) -> None:
        # Sized under the lock: a picture laid out for the old size must never follow the wipe
        # a resize asks for (the wipe would then leave the old layout on the new window).
        with self.lock:
            text = joined(self.lines(*self.size()))
            if self._clear:
                text, self._clear = "\x1b[2J" + text, False
            self.out.write(text)
            self.out.flush()

    # --- input (main thread) -------------------------------------------------------------

    def press(self, button: str, long: bool) -> None:
        """Press on the loop thread, unless it comes faster than a finger could (dropped)."""
        if not self.controls.press(button, long):
            self.state.message = f"key repeat: {self.controls.dropped} presses dropped"

    def tap(self, uid: str) -> None:
        try:
            uid = self.controls.tap(uid)
        except ValueError as err:
            self.state.message = str(err)
            self.app.loop.post(Call(self.draw))
            return
        self.state.message = f"tapped {uid}"

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

    # --- the session ---------------------------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # the pipe is closed once the session is over
            os.write(self._wake_w, b"!")

    def _on_resize(self, signum: int, frame: Any) -> None:
        self._resized = True
        self._wake()

    def _consume(self) -> None:
        try:
            self.app.loop.run()
        except BaseException as err:  # reported by the main thread, after the terminal is back
            self.failure = err
        finally:
            self._wake()

    def _show_problem(self, text: str) -> None:
        self.state.message = text

    def run(self, stdin: TextIO = sys.stdin) -> int:
        fd = stdin.fileno()
        saved = termios.tcgetattr(fd) if os.isatty(fd) else None
        consumer = threading.Thread(target=self._consume, name="loop", daemon=True)
        captured = _Captured(self._show_problem)
        root = logging.getLogger()
        handlers, signals = list(root.handlers), {}
        # A signal the kernel gives to another thread must still wake the key reader's select.
        old_wakeup = signal.set_wakeup_fd(self._wake_w, warn_on_full_buffer=False)
        try:
            root.handlers = [captured]
            for signum in (signal.SIGTERM, signal.SIGHUP):
                signals[signum] = signal.signal(signum, _exit_on)
            signals[signal.SIGWINCH] = signal.signal(signal.SIGWINCH, self._on_resize)
            if saved is not None:
                tty.setraw(fd)
            with self.lock:
                self.out.write(ENTER)
                self.out.flush()
            self.app.start()
            if self.phones_port is not None:
                from companion.web.phones import PhoneService

                self.phones = PhoneService(self.app, self.phones_port, host="127.0.0.1")
                self.phones.start()
            consumer.start()
            self.app.loop.post(Call(self.draw))
            self._read_keys(fd, consumer)
        finally:
            # Each step on its own: one failing must neither skip the others (the terminal
            # above all) nor replace the error that brought us here.
            self._quietly(lambda: self.app.loop.post(Stop("quit")))
            if consumer.is_alive():
                self._quietly(lambda: consumer.join(timeout=2))
            if self.web is not None:
                self._quietly(self.web.stop)
            if self.phones is not None:
                self._quietly(self.phones.stop)
            self._quietly(self.controls.close)
            self._quietly(self.box.close)
            if saved is not None:
                self._quietly(lambda: termios.tcsetattr(fd, termios.TCSADRAIN, saved))
            self._quietly(lambda: self._write(LEAVE))
            for signum, handler in signals.items():
                signal.signal(signum, handler)
            signal.set_wakeup_fd(old_wakeup)
            root.handlers = handlers
            for line in captured.lines:
                print(line, file=sys.stderr)
            os.close(self._wake_r)
            os.close(self._wake_w)
        if self.failure is not None:
            raise self.failure
        self._write(STOPPED.format(path=self.app.journal.path))
        return 0

    def _read_keys(self, fd: int, consumer: threading.Thread) -> None:
        while True:
            ready, _, _ = select.select([fd, self._wake_r], [], [])
            if self._wake_r in ready:
                os.read(self._wake_r, 64)
                if self.failure is not None or not consumer.is_alive():
                    return
                if self._resized:
                    self._resized, self._clear = False, True
                    self.app.loop.post(Call(self.draw))
            if fd in ready:
                data = os.read(fd, 1024).decode("utf-8", "replace")
                if not data or not all(self.key(k) for k in split_keys(data)):
                    return
                if self.state.message.startswith("key repeat"):
                    self.app.loop.post(Call(self.draw))

    def _write(self, text: str) -> None:
        with self.lock:
            self.out.write(text)
            self.out.flush()

    @staticmethod
    def _quietly(step: Callable[[], Any]) -> None:
        try:
            step()
        except Exception:
            log.exception("while stopping the simulator")


def _exit_on(signum: int, frame: Any) -> None:
    """SIGTERM or SIGHUP (the window closed): leave through the same clean-up as q."""
    raise SystemExit(128 + signum)
