"""The simulated box's Controls (companion/faces/face.py): a press drives the button's mock pin
down and up again on the loop thread, a tap lays a card on the fake reader for a moment, at the
pace a finger keeps (companion/sim/keys.py). The terminal's keys and the web page's buttons both
come through here, so both behave as the real buttons do. Cards go down through one hand
(companion/sim/hand.py): one after the other, each until the driver has read it.
"""

from __future__ import annotations

import threading

from companion.core.events import Call
from companion.errors import UsageError
from companion.faces.face import BUTTONS
from companion.sim.box import SimulatedBox
from companion.sim.hand import CardHand, DeviceHand
from companion.sim.keys import GAP, Pacer

SHORT = 0.08  # seconds a short press holds its button
LONG_EXTRA = 0.2  # a long press holds this much longer than the config's hold time


class SimControls:
    def __init__(self, box: SimulatedBox) -> None:
        self.box = box
        self.pacer = Pacer()
        self._lock = threading.Lock()  # the terminal and the web may press at once
        self.released_at = 0.0  # loop thread: when the button pressed last is up again
        self.hand: CardHand | None = None
        if box.device is not None:
            self.hand = CardHand(DeviceHand(box.device), lambda: box.app.runner)

    @property
    def dropped(self) -> int:
        return self.pacer.dropped

    def press(self, button: str, long: bool = False) -> bool:
        """Press on the loop thread, unless it comes faster than a finger could (dropped)."""
        if button not in BUTTONS:
            raise ValueError(f"unknown button {button!r} (use {', '.join(BUTTONS)})")
        box = self.box
        pin = box.pin(button)
        seconds = box.config.buttons.hold_seconds + LONG_EXTRA if long else SHORT
        loop = box.loop
        with self._lock:
            start = self.pacer.admit(box.clock.now(), seconds)
        if start is None:
            return False

        def down() -> None:
            # On the loop thread: a late timer (a busy machine) must still never press a
            # button that is not yet released, or the second press would be lost.
            now = box.clock.now()
            if now < self.released_at:
                loop.call_at(self.released_at, down)
                return
            pin.drive_low()
            self.released_at = now + seconds + GAP
            loop.call_later(seconds, pin.drive_high)

        loop.post(Call(lambda: loop.call_at(start, down)))
        return True

    def tap(self, uid: str) -> str:
        """Lay the card on the simulated reader after the cards before it; the UID as read."""
        box = self.box
        try:
            uid = box.uid(uid)
        except UsageError as err:
            raise ValueError(str(err)) from None
        if self.hand is None:
            raise ValueError("no card reader configured")
        self.hand.tap(uid)  # the terminal and the web may tap at once: the hand queues them
        return uid

    def close(self) -> None:
        """Lift the last card and stop the hand (before the box closes its reader)."""
        if self.hand is not None:
            self.hand.close()

    def deck(self) -> list[tuple[str, str, str]]:
        """Every card the simulator knows, enrolled or demo: (uid, name, game)."""
        registry = self.box.app.registry
        cards = list(registry.cards.values()) + list(registry.demo.values())
        return [(c.uid, c.name, c.game) for c in cards]
