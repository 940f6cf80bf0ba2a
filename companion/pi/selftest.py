"""`trap-companion check`: every part of the box tried once, with a person (or a test) answering.

Each part is opened through the adapters the daemon uses (gpiozero, luma, the reader drivers),
so a pass means the daemon will find that part. A part that is missing or broken becomes a
failed row in the table, never a crash. Waiting for a person is a blocking ``get`` with a
timeout on a queue fed by gpiozero's callbacks or the reader thread: nothing polls.
"""

from __future__ import annotations

import errno
import logging
import queue
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import luma.core.error
from gpiozero import GPIOZeroError, TonalBuzzer
from gpiozero.tones import Tone

from companion.core.clock import Clock, RealClock
from companion.core.config import BUTTONS, Config
from companion.core.events import ButtonEdge
from companion.core.registry import Registry
from companion.errors import CompanionError, DataError
from companion.hal.buttons import ButtonPins
from companion.hal.display import DEVICE_ERRORS, Display, device_factory, open_device
from companion.hal.lights import Led
from companion.hal.pins import factory_name, make_factory
from companion.hal.readers.base import ReaderDriver, make_driver
from companion.hal.readers.fake import FakePn532, FakeRdm6300, PtyPort
from companion.hal.readers.runner import ReaderRunner
from companion.pi import paths
from companion.ui.screen import BLUE, GREEN, OFF, RED, Lights, Screen

log = logging.getLogger(__name__)

PASS, FAIL, SKIPPED = "pass", "fail", "skipped"
COLOURS = {"red": RED, "green": GREEN, "blue": BLUE}
TONE = "A5"
TIMEOUT = 10.0  # seconds a person gets for each question
SHOW_SECONDS = 2.0  # how long a colour or the tone lasts when nobody can answer
NOT_ASKED = "not asked (--non-interactive)"
SIMULATED_UIDS = {"rdm6300": "14008EC793", "pn532": "04A1B2C3"}


@dataclass(frozen=True)
class Result:
    part: str
    outcome: str  # PASS, FAIL or SKIPPED
    detail: str = ""


@dataclass
class CheckParts:
    """How the check opens each part. Each maker is called inside the check, so a missing part
    is a failed row; None means the config has no such part."""

    pin_factory: Callable[[], Any]
    display: Callable[[], Any] | None  # the luma device
    reader: Callable[[], ReaderDriver] | None
    registry: Callable[[], Registry]

    @classmethod
    def from_config(cls, config: Config, registry_path: Path) -> CheckParts:
        d, r = config.display, config.reader
        reader = None
        if r.type != "none":
            reader = lambda: make_driver(r.type, r.port)  # noqa: E731
        return cls(
            pin_factory=lambda: make_factory(config.hardware.pin_factory),
            display=device_factory(d.driver, d.i2c_port, d.i2c_address, d.rotate),
            reader=reader,
            registry=lambda: Registry(registry_path),
        )


class Operator(Protocol):
    """The person at the box, or whatever stands in for them."""

    def tell(self, text: str) -> None:
        """Progress: a part opened, a result."""

    def ask(self, step: str, text: str) -> None:
        """The check now waits for ``step``: "button:NAME", "led:COLOUR", "tone" or "card"."""


def registry_path(config: Config, installed: Path = paths.STATE_DIR) -> Path:
    """The registry the daemon reads (see Config.state_dir)."""
    return config.state_dir(installed) / "cards.toml"


class SelfTest:
    def __init__(
        self,
        config: Config,
        parts: CheckParts,
        operator: Operator,
        timeout: float = TIMEOUT,
        show_seconds: float = SHOW_SECONDS,
        clock: Clock | None = None,
    ) -> None:
        self.config = config
        self.parts = parts
        self.operator = operator
        self.timeout = timeout
        self.show_seconds = show_seconds
        self.clock = clock or RealClock()
        self.results: list[Result] = []
        self._presses: queue.SimpleQueue[ButtonEdge] = queue.SimpleQueue()
        self._display: Display | None = None
        self._closers: list[Callable[[], Any]] = []
        self._keep_picture = False  # the verdict stays on the panel after a full run

    # --- the run -------------------------------------------------------------------------

    def run(self, interactive: bool = True) -> list[Result]:
        """Every step in order; the parts are closed afterwards whatever happened."""
        try:
            factory = self._check_pins()
            self._check_display()
            reader_ok = self._check_reader()
            if not interactive:
                for part in self._asked_parts():
                    self._add(part, SKIPPED, NOT_ASKED, quiet=True)
                return self.results
            buttons = self._check_buttons(factory)
            confirm = {"ok", "back"} <= buttons
            self._check_led(factory, confirm)
            self._check_tone(factory, confirm)
            self._check_card(reader_ok)
            self._show_summary()
        finally:
            self._close()
        return self.results

    @staticmethod
    def _asked_parts() -> list[str]:
        return [f"button {b}" for b in BUTTONS] + [f"LED {c}" for c in COLOURS] + ["buzzer", "card"]

    def _add(self, part: str, outcome: str, detail: str = "", quiet: bool = False) -> None:
        self.results.append(Result(part, outcome, detail))
        if not quiet:
            self.operator.tell(f"{part}: {outcome}" + (f" - {detail}" if detail else ""))

    def _close(self) -> None:
        for close in reversed(self._closers):
            try:
                close()
            except (GPIOZeroError, OSError) as err:
                log.debug("closing a part after the check: %s", err)
        self._closers.clear()

    # --- automatic steps -----------------------------------------------------------------

    def _check_pins(self) -> Any:
        try:
            factory = self.parts.pin_factory()
        except CompanionError as err:
            self._add("pin factory", FAIL, str(err))
            return None
        self._closers.append(factory.close)
        try:
            board = f" ({factory.board_info.description})"
        except (GPIOZeroError, OSError):
            board = ""
        self._add("pin factory", PASS, f"{factory_name(factory)}{board}")
        return factory

    def _check_display(self) -> None:
        if self.parts.display is None:
            self._add("display", SKIPPED, 'display.driver = "none"')
            return
        d = self.config.display
        where = f"{d.driver} at 0x{d.i2c_address:02X} on I2C bus {d.i2c_port}"
        if d.driver == "dummy":
            where = "luma's dummy device"
        try:
            device = self.parts.display()
        except DEVICE_ERRORS as err:
            self._add("display", FAIL, f"{where}: {_display_hint(err, d.i2c_port)}")
            return
        display = Display(lambda: device)
        self._closers.append(lambda: display.close(keep_picture=self._keep_picture))
        if not display.show(Screen("Trap Companion", ("Self-test",), footer="")):
            self._add("display", FAIL, f"{where}: opened, but a write failed ({display.error})")
            return
        self._display = display
        self._add("display", PASS, f"{where} answers")

    def _check_reader(self) -> bool:
        if self.parts.reader is None:
            self._add("reader", SKIPPED, 'reader.type = "none"')
            return False
        r = self.config.reader
        driver: ReaderDriver | None = None
        try:
            driver = self.parts.reader()
            driver.open()
            what = driver.describe()
        except OSError as err:  # serial.SerialException is an OSError
            self._add("reader", FAIL, f"{r.type} on {r.port}: {_reader_hint(err)}")
            return False
        finally:
            if driver is not None:
                driver.close()
        note = " (silent until a tag is near)"
        self._add("reader", PASS, f"{r.port} opens: {what}" + (note if r.type == "rdm6300" else ""))
        return True

    # --- steps a person answers ----------------------------------------------------------

    def _check_buttons(self, factory: Any) -> set[str]:
        """The buttons that passed."""
        if factory is None:
            for name in BUTTONS:
                self._add(f"button {name}", SKIPPED, "no GPIO backend")
            return set()
        pins = self.config.buttons.pins()
        try:
            buttons = ButtonPins(pins, factory, self._presses.put, self.clock)
        except Exception as err:  # gpiozero's backends raise their own types (lgpio.error...)
            why = (
                f"cannot claim the button pins ({err}); if the service runs: "
                "sudo systemctl stop trap-companion"
            )
            for name in BUTTONS:
                self._add(f"button {name}", FAIL, why)
            return set()
        self._closers.append(buttons.close)
        return {name for name in BUTTONS if self._button(buttons, name, pins[name])}

    def _button(self, buttons: ButtonPins, name: str, gpio: int) -> bool:
        part = f"button {name}"
        if buttons.devices[name].is_active:  # pulled up: active means held to GND
            self._add(part, FAIL, f"GPIO {gpio} reads pressed before anyone touched it (short?)")
            return False
        screen = Screen("Check: buttons", (f"GPIO {gpio}",), big=name.upper(), footer="")
        self._ask(f"button:{name}", f"Press {name.upper()} within {self.timeout:g} s", screen)
        deadline = self.clock.now() + self.timeout
        others: list[str] = []
        while (edge := self._next_press(deadline)) is not None:
            if edge.button == name:
                after = f" (after {', '.join(others)})" if others else ""
                self._add(part, PASS, f"GPIO {gpio}{after}")
                return True
            others.append(edge.button)
        if others:
            why = f"pressed instead: {', '.join(others)} (swapped wires?)"
        else:
            why = f"the button must join GPIO {gpio} to GND"
        self._add(part, FAIL, f"GPIO {gpio}: no press within {self.timeout:g} s; {why}")
        return False

    def _check_led(self, factory: Any, confirm: bool) -> None:
        parts = [f"LED {colour}" for colour in COLOURS]
        if factory is None:
            for part in parts:
                self._add(part, SKIPPED, "no GPIO backend")
            return
        c = self.config.led
        gpios = {"red": c.red, "green": c.green, "blue": c.blue}
        try:
            led = Led(c.red, c.green, c.blue, factory, brightness=1.0)
        except Exception as err:  # as for the buttons: the backend's own exception types
            for part in parts:
                self._add(part, FAIL, f"cannot claim the LED pins ({err})")
            return
        self._closers.append(led.close)
        for (colour, rgb), part in zip(COLOURS.items(), parts, strict=True):
            led.show(Lights(rgb))
            screen = Screen("Check: LED", (f"Is it {colour}?",), footer="ok yes  back no")
            question = f"Is the LED {colour}? ok = yes, back = no"
            watch = f"the LED should be {colour}"
            outcome = self._answer(f"led:{colour}", question, watch, screen, confirm)
            gpio = f"GPIO {gpios[colour]}"
            if outcome == "ok":
                self._add(part, PASS, gpio)
            elif outcome == "back":
                self._add(part, FAIL, f"{gpio}: not {colour} (wire, resistor; common cathode?)")
            else:
                self._add(part, SKIPPED, outcome)
        led.show(Lights(OFF, "off"))

    def _check_tone(self, factory: Any, confirm: bool) -> None:
        b = self.config.buzzer
        if factory is None:
            self._add("buzzer", SKIPPED, "no GPIO backend")
            return
        if b.volume <= 0:
            self._add("buzzer", SKIPPED, "buzzer.volume = 0 (silent by config)")
            return
        try:
            buzzer = TonalBuzzer(b.pin, mid_tone=Tone(TONE), octaves=2, pin_factory=factory)
        except Exception as err:  # as for the buttons: the backend's own exception types
            self._add("buzzer", FAIL, f"cannot claim GPIO {b.pin} ({err})")
            return
        self._closers.append(buzzer.close)
        buzzer.play(Tone(TONE))
        buzzer.pwm_device.value = 0.5 * b.volume  # duty cycle sets loudness, as the box does
        try:
            screen = Screen("Check: sound", ("Do you hear it?",), footer="ok yes  back no")
            question = "Do you hear a tone? ok = yes, back = no"
            outcome = self._answer("tone", question, "a tone should sound", screen, confirm)
        finally:
            buzzer.stop()
        if outcome == "ok":
            self._add("buzzer", PASS, f"GPIO {b.pin}, {TONE}")
        elif outcome == "back":
            self._add("buzzer", FAIL, f"GPIO {b.pin}: no tone heard (transistor, wiring)")
        else:
            self._add("buzzer", SKIPPED, outcome)

    def _check_card(self, reader_ok: bool) -> None:
        if self.parts.reader is None:
            self._add("card", SKIPPED, 'reader.type = "none"')
            return
        if not reader_ok:
            self._add("card", SKIPPED, "the reader's port did not open")
            return
        uids: queue.SimpleQueue[str] = queue.SimpleQueue()
        statuses: queue.SimpleQueue[str] = queue.SimpleQueue()
        runner = ReaderRunner(self.parts.reader, on_seen=uids.put, on_status=statuses.put)
        runner.start()
        self._closers.append(runner.stop)
        try:
            status = statuses.get(timeout=self.timeout)
        except queue.Empty:
            status = "the reader did not open in time"
        if not status.startswith("reader ready"):
            self._add("card", FAIL, status)
            return
        screen = Screen("Check: card", ("Tap a card", "on the reader"), footer="")
        self._ask("card", f"Tap a card on the reader within {self.timeout:g} s", screen)
        try:
            uid = uids.get(timeout=self.timeout)
        except queue.Empty:
            kinds = {"rdm6300": "125 kHz tags", "pn532": "13.56 MHz NFC cards"}
            kind = kinds.get(self.config.reader.type, "its kind of card")
            why = f"no card read within {self.timeout:g} s (it reads {kind}; {runner.status})"
            self._add("card", FAIL, why)
            return
        finally:
            runner.stop()
        known = self._enrolment(uid)
        self._show(Screen("Check: card", (uid, known[:21]), footer=""))
        self._add("card", PASS, f"{uid}: {known}")

    def _enrolment(self, uid: str) -> str:
        try:
            card = self.parts.registry().lookup(uid)
        except (DataError, OSError) as err:
            return f"enrolment unknown ({err}; try sudo)"
        if card is None:
            return f"not enrolled (trap-companion cards enrol {uid} GAME CARD)"
        return f"enrolled as {card.name} ({card.game})"

    def _show_summary(self) -> None:
        failed = sum(r.outcome == FAIL for r in self.results)
        lines = ("All parts pass",) if not failed else (f"{failed} failed:", "see the table")
        self._show(Screen("Check done", lines, footer=""))
        self._keep_picture = True

    # --- waiting for a person ------------------------------------------------------------

    def _show(self, screen: Screen) -> None:
        if self._display is not None:
            self._display.show(screen)

    def _ask(self, step: str, text: str, screen: Screen) -> None:
        """Forget earlier presses, show the question, then hand over to the operator."""
        while True:
            try:
                self._presses.get_nowait()
            except queue.Empty:
                break
        self._show(screen)
        self.operator.ask(step, text)

    def _next_press(self, deadline: float) -> ButtonEdge | None:
        while (remaining := deadline - self.clock.now()) > 0:
            try:
                edge = self._presses.get(timeout=remaining)
            except queue.Empty:
                return None
            if edge.pressed:
                return edge
        return None

    def _answer(self, step: str, question: str, watch: str, screen: Screen, confirm: bool) -> str:
        """ "ok" or "back" from the person, else why the step is skipped. Without working ok and
        back buttons the part is only shown: ``watch`` says what to look or listen for."""
        if not confirm:
            plain = Screen(screen.title, (), footer="")
            seconds = f"{self.show_seconds:g} s"
            self._ask(step, f"Now {watch} for {seconds} (ok/back cannot answer)", plain)
            self._next_press(self.clock.now() + self.show_seconds)  # any press moves on
            return f"shown for {seconds}, not confirmed (ok and back did not pass)"
        self._ask(step, question, screen)
        deadline = self.clock.now() + self.timeout
        while (edge := self._next_press(deadline)) is not None:
            if edge.button in ("ok", "back"):
                return edge.button
        return f"no answer within {self.timeout:g} s"


def _display_hint(err: Exception, port: int) -> str:
    if isinstance(err, luma.core.error.DevicePermissionError):
        return f"{err}: add your user to the i2c group, then log in again"
    if isinstance(err, luma.core.error.DeviceNotFoundError):
        return f"{err}: is I2C on? (trap-companion firmware apply, then reboot)"
    if isinstance(err, OSError) and err.errno in (errno.EREMOTEIO, errno.EIO):
        return f"nothing answers ({err}): check power, SDA/SCL, the address (i2cdetect -y {port})"
    return f"{type(err).__name__}: {err}"


def _reader_hint(err: OSError) -> str:
    if err.errno == errno.EACCES:
        return f"{err}: add your user to the dialout group, then log in again"
    if err.errno == errno.ENOENT:
        return f"{err}: is the UART on? (trap-companion firmware apply; a Pi 5 uses /dev/ttyAMA0)"
    return str(err)


def format_table(results: list[Result]) -> str:
    """Plain text, one row a part, then the totals."""
    rows = [("part", "result", "detail")] + [(r.part, r.outcome, r.detail) for r in results]
    width = [max(len(row[i]) for row in rows) for i in (0, 1)]
    lines = [f"{a:<{width[0]}}  {b:<{width[1]}}  {c}".rstrip() for a, b, c in rows]
    lines.insert(1, f"{'-' * width[0]}  {'-' * width[1]}  ------")
    counts = {o: sum(r.outcome == o for r in results) for o in (PASS, FAIL, SKIPPED)}
    lines.append(f"{counts[PASS]} passed, {counts[FAIL]} failed, {counts[SKIPPED]} skipped")
    return "\n".join(lines)


def exit_status(results: list[Result]) -> int:
    """0 when nothing failed (skipped parts do not fail the check), else 1."""
    return 1 if any(r.outcome == FAIL for r in results) else 0


# --- the check on simulated parts ------------------------------------------------------------


class SimulatedOperator:
    """Answers like a person at a working box: presses the button asked for, says yes to the
    LED and the tone, taps a card. Tests override ``ask`` to misbehave."""

    def __init__(
        self,
        factory: Any,
        config: Config,
        device: FakeRdm6300 | FakePn532 | None,
        say: Callable[[str], None] = lambda text: None,
    ) -> None:
        self.factory = factory
        self.config = config
        self.device = device
        self.say = say
        self.uid = SIMULATED_UIDS.get(config.reader.type, "")
        self.asked: list[str] = []

    def tell(self, text: str) -> None:
        self.say(text)

    def ask(self, step: str, text: str) -> None:
        self.asked.append(step)
        self.say(f"> {text}")
        kind, _, what = step.partition(":")
        if kind == "button":
            self.press(what)
        elif kind in ("led", "tone"):
            self.press("ok")
        elif kind == "card":
            self.tap(self.uid)

    def press(self, button: str) -> None:
        """Down and up on the mock pin; gpiozero runs the callbacks in this thread."""
        self.say(f"  (simulated: {button} pressed)")
        pin = self.factory.pin(self.config.buttons.pins()[button])
        pin.drive_low()
        pin.drive_high()

    def tap(self, uid: str) -> None:
        self.say(f"  (simulated: card {uid} tapped)")
        if isinstance(self.device, FakeRdm6300):
            self.device.write_frames(uid, 2)  # two identical frames confirm a tag
        elif isinstance(self.device, FakePn532):
            self.device.present(uid)


@contextmanager
def simulated(
    config: Config, say: Callable[[str], None] = lambda text: None
) -> Iterator[tuple[Config, CheckParts, SimulatedOperator]]:
    """Mock pins, luma's dummy display and a fake reader over a pty (the configured kind), a
    throw-away card registry, and an operator who does what the check asks."""
    driver = config.display.driver
    with tempfile.TemporaryDirectory(prefix="trap-companion-check-") as tmp:
        config = config.simulated(Path(tmp))
        if driver == "none":
            config = replace(config, display=replace(config.display, driver="none"))
        factory = make_factory("mock")
        port: PtyPort | None = None
        device: FakeRdm6300 | FakePn532 | None = None
        reader = None
        kind = config.reader.type
        if kind != "none":
            port = PtyPort()
            device = FakeRdm6300(port) if kind == "rdm6300" else FakePn532(port)
            path = port.path
            config = replace(config, reader=replace(config.reader, port=path))
            reader = lambda: make_driver(kind, path)  # noqa: E731
        rotate = config.display.rotate
        display = None
        if driver != "none":
            display = lambda: open_device("dummy", rotate=rotate)  # noqa: E731
        parts = CheckParts(
            pin_factory=lambda: factory,
            display=display,
            reader=reader,
            registry=lambda: Registry(Path(tmp) / "cards.toml"),
        )
        try:
            yield config, parts, SimulatedOperator(factory, config, device, say)
        finally:
            if device is not None:
                device.close()
            if port is not None:
                port.close()
            factory.reset()
            factory.close()
