"""The box on simulated parts: gpiozero's mock pins, luma's dummy display and a fake card reader
speaking the real wire protocol over a pty, so the real drivers always run. Replay, the terminal
simulator, bench and tests all build the box here, with the same App as the daemon."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.app import App, Parts
from companion.core.clock import Clock, VirtualClock
from companion.core.config import Config
from companion.errors import HardwareError, UsageError
from companion.hal.display import Display, open_device
from companion.hal.pins import make_factory
from companion.hal.readers.base import canonical_uid, make_driver
from companion.hal.readers.fake import FakePn532, FakeRdm6300, PtyPort
from companion.sim import deck

PRESS_SECONDS = 0.05
TAP_SECONDS = 0.3
RDM6300_REPEAT = 0.1  # a held tag is read about ten times a second
SYNC_TIMEOUT = 5.0  # real seconds to wait for the reader thread; only a bug comes near it


class SimulatedBox:
    def __init__(
        self,
        config: Config,
        state_dir: Path | None = None,
        clock: Clock | None = None,
        seed: int | None = None,
        demo_cards: bool = True,
        on_frame: Callable[[Any], None] | None = None,
        today: Callable[[], str] | None = None,
    ) -> None:
        self.config = config.simulated(state_dir)
        self.clock = clock if clock is not None else VirtualClock()
        self.factory = make_factory("mock")
        self.kind = self.config.reader.type
        self.port: PtyPort | None = None
        self.device: FakeRdm6300 | FakePn532 | None = None
        self._last_uid: str | None = None  # the tag the RDM6300 parser last confirmed
        reader = None
        if self.kind != "none":
            self.port = PtyPort()
            if self.kind == "rdm6300":
                self.device = FakeRdm6300(self.port)
            else:
                self.device = FakePn532(self.port)
            path = self.port.path
            reader = lambda: make_driver(self.kind, path)  # noqa: E731
        display = Display(
            lambda: open_device("dummy", 1, 0x3C, self.config.display.rotate), on_frame=on_frame
        )
        rng = random.Random(seed) if seed is not None else None
        parts = Parts(self.factory, display, reader, self.kind)
        self.app = App(
            self.config,
            self.clock,
            parts,
            rng=rng,
            recording=True,
            today=today,
        )
        self.loop = self.app.loop
        if demo_cards:  # after the app attached the owner's files (a Deathtrap pack)
            self.app.registry.demo = {c.uid: c for c in deck.demo_cards(self.kind)}

    # --- input, as a person would give it ------------------------------------------------

    def pin(self, button: str) -> Any:
        pins = self.config.buttons.pins()
        if button not in pins:
            raise UsageError(f"unknown button {button!r} (use {', '.join(pins)})")
        return self.factory.pin(pins[button])

    def press(self, button: str) -> None:
        self.hold(button, PRESS_SECONDS)

    def hold(self, button: str, seconds: float) -> None:
        pin = self.pin(button)
        pin.drive_low()
        self.advance(seconds)
        pin.drive_high()
        self.loop.drain()

    def advance(self, seconds: float) -> None:
        """Virtual clock: move time on (deadlines fire in order)."""
        self.loop.advance_to(self.clock.now() + seconds)

    def uid(self, text: str) -> str:
        if self.kind == "none":
            raise UsageError("no card reader is configured (reader.type = none)")
        try:
            return canonical_uid(text, self.kind)
        except ValueError as err:
            raise UsageError(str(err)) from None

    def tap(self, uid: str, seconds: float = TAP_SECONDS) -> None:
        """Present a card for ``seconds`` of virtual time, through the real driver, then lift it."""
        uid = self.uid(uid)
        runner = self.app.runner
        if runner is None or self.device is None:
            raise UsageError("no card reader is running")
        if not runner.wait_ready(SYNC_TIMEOUT):
            raise HardwareError(f"the card reader did not open ({runner.status})")
        before = runner.seen_of(uid)
        if isinstance(self.device, FakeRdm6300):
            # Two identical frames confirm a tag; the parser already knows the last tag it
            # confirmed (until another one comes), and then the first frame counts at once.
            first = 2 if uid == self._last_uid else 1
            self._last_uid = uid
            self.device.write_frames(uid, 2)
            self._sync(runner, uid, before + first)
            repeats = int(seconds / RDM6300_REPEAT + 1e-9)
            for n in range(1, repeats + 1):
                self.advance(RDM6300_REPEAT)
                self.device.write_frames(uid, 1)
                self._sync(runner, uid, before + first + n)
            self.advance(max(0.0, seconds - repeats * RDM6300_REPEAT))
        else:
            # Waiting for a read of this very card: a count of all reads would let a read of
            # the card before (still on its way) pass for this one, and this card would be
            # lifted before the driver ever saw it.
            self.device.present(uid)
            self._sync(runner, uid, before + 1)
            self.advance(seconds)
            self.device.remove()

    def _sync(self, runner: Any, uid: str, target: int) -> None:
        """Wait (real time, bounded) until the reader thread has delivered ``target`` reads of
        ``uid``."""
        if not runner.wait_seen_of(uid, target, SYNC_TIMEOUT):
            raise HardwareError(f"the card reader driver did not deliver a read ({runner.status})")
        self.loop.drain()

    def close(self) -> None:
        self.app.shutdown()
        if self.device is not None:
            self.device.close()
        if self.port is not None:
            self.port.close()
        self.factory.reset()
        self.factory.close()
