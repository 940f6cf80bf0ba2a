"""Buttons: gpiozero devices whose callbacks only enqueue raw edges, and the consumer-side logic
that turns edges into short and long presses against our own clock.

Debounce is ours because the backends disagree (the mock factory ignores bounce_time, lgpio
delays each edge by it, RPi.GPIO drops edges after the first). We act on the leading edge, so a
press costs no debounce latency, then ignore edges for ``debounce`` seconds and reconcile with
the last raw level when the window closes. A press whose line was down for less than
``debounce`` (by the edges' own stamps, not by when they were handled) is a glitch.

An edge can reach us after its window closed (its thread was late to post it, or the window's
deadline fired first): the window is then settled again with it, as if it had come in time.

An edge's stamp is when the line changed, not when gpiozero's callback ran: lgpio hands each
edge over with the kernel's own time, and its callback thread can run late (it waits for the
GIL while the loop draws a frame, or for a CPU on a loaded box); stamped on arrival, a 3 ms
glitch whose release came in 5 ms late was a press, and a bounce two.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import DigitalInputDevice

from companion.core.clock import Clock
from companion.core.events import ButtonEdge

log = logging.getLogger(__name__)


class ButtonPins:
    """One gpiozero input per named pin, pulled up, wired to GND.

    DigitalInputDevice, not Button: Button's hold thread wakes ten times a second per button
    to time long presses, which we time ourselves with a deadline.
    """

    def __init__(
        self,
        pins: dict[str, int],
        factory: Any,
        post: Callable[[Any], None],
        clock: Clock,
        edge_times: bool | None = None,
    ):
        """``edge_times``: the factory's pins tell when each edge happened (None: as
        ``stamps_edges`` says for the factory); each edge is then stamped that long ago."""
        if edge_times is None:
            edge_times = stamps_edges(factory)
        self.devices: dict[str, DigitalInputDevice] = {}
        for name, pin in pins.items():
            button = DigitalInputDevice(pin, pull_up=True, bounce_time=None, pin_factory=factory)
            button.when_activated = self._edge(post, clock, name, True, button, edge_times)
            button.when_deactivated = self._edge(post, clock, name, False, button, edge_times)
            self.devices[name] = button

    @staticmethod
    def _edge(
        post: Callable[[Any], None],
        clock: Clock,
        name: str,
        pressed: bool,
        device: DigitalInputDevice,
        edge_times: bool,
    ):
        def callback() -> None:
            late = 0.0
            if edge_times:  # how long ago the line changed, by the factory's own ticks
                since = device.active_time if pressed else device.inactive_time
                if since is not None and 0.0 <= since <= MAX_LATE:  # else another origin
                    late = since
            post(ButtonEdge(name, pressed, clock.now() - late))

        return callback

    def alive(self) -> bool:
        return all(not d.closed for d in self.devices.values())

    def close(self) -> None:
        for device in self.devices.values():
            device.close()


@dataclass
class _Track:
    stable: bool = False  # the level we act on
    raw: bool = False  # the line's last reported level
    raw_at: float = float("-inf")  # when the line last changed, by the edge's stamp
    lock_until: float = float("-inf")  # edges stamped before this are bounce
    settled: bool = True  # the window up to lock_until has been settled
    down_at: float = 0.0  # when we took the press to start (the hold counts from here)
    line_down_at: float = 0.0  # when its line went down (the glitch test counts from here)
    long_fired: bool = False
    confirmed: bool = False  # the line was still down when the press's window closed
    released_at: float | None = None  # a press's line went up inside its window, at this time


# An edge handed over later than this is stamped on arrival: lgpio leaves the stamps' origin to
# the kernel (monotonic since 5.7, the epoch before), and a stamp from another clock shows as a
# negative or a huge lateness.
MAX_LATE = 2.0


def stamps_edges(factory: Any) -> bool:
    """Whether the factory's pins hand each edge over with the time it happened: lgpio's, the
    kernel's stamp. The others stamp it in the callback itself (RPi.GPIO, native) or, the mock,
    when a test drives the pin, at once: nothing to take off, and a virtual clock left alone."""
    return type(factory).__name__ == "LGPIOFactory"


Schedule = Callable[[float, Callable[[], None], str], Any]
Cancel = Callable[[str], None]


class PressLogic:
    """Raw edges in, ``(button, long)`` presses out; deadlines through the loop's callbacks."""

    def __init__(
        self,
        emit: Callable[[str, bool], None],
        call_at: Schedule,
        cancel: Cancel,
        hold_seconds: float = 1.0,
        debounce: float = 0.005,
    ) -> None:
        self.emit = emit
        self.call_at = call_at
        self.cancel = cancel
        self.hold = hold_seconds
        self.debounce = debounce
        self.tracks: dict[str, _Track] = {}

    def edge(self, button: str, pressed: bool, t: float) -> None:
        track = self.tracks.setdefault(button, _Track())
        track.raw, track.raw_at = pressed, t
        if t < track.lock_until:
            if track.stable and not pressed and track.released_at is None:
                track.released_at = t  # the press ended here, whatever comes after
            if track.settled:  # late: its window closed without it; settle it again
                self._settle(button)
            return  # bounce: reconciled when the window closes
        if pressed != track.stable:
            self._transition(button, track, pressed, t, t)

    def _transition(
        self, button: str, track: _Track, pressed: bool, at: float, line: float
    ) -> None:
        """The level we act on changes at ``at``; the line itself changed at ``line``."""
        track.stable = pressed
        track.lock_until = at + self.debounce
        track.settled = False
        track.released_at = None
        self.call_at(track.lock_until, lambda: self._settle(button), f"settle:{button}")
        if pressed:
            track.down_at = at
            track.line_down_at = line
            track.long_fired = False
            track.confirmed = self.debounce <= 0
            self.call_at(at + self.hold, lambda: self._held(button), f"hold:{button}")
            return
        self.cancel(f"hold:{button}")
        if line - track.line_down_at < self.debounce:
            return  # down for less than the debounce: noise, not a press
        if not track.long_fired:
            self.emit(button, False)

    def _settle(self, button: str) -> None:
        track = self.tracks[button]
        track.settled = True
        if track.stable and track.released_at is not None:
            # Its line went up inside the window: that press is over (a press or a glitch by
            # how long the line was down); if the line is down again, a new press began.
            at = track.lock_until
            self._transition(button, track, False, at, track.released_at)
            if track.raw:
                self._transition(button, track, True, at, track.raw_at)
            return
        if track.stable and track.raw:
            track.confirmed = True
        if track.raw != track.stable:
            self._transition(button, track, track.raw, track.lock_until, track.raw_at)

    def _held(self, button: str) -> None:
        track = self.tracks[button]
        if track.stable and track.confirmed:
            track.long_fired = True
            self.emit(button, True)

    def is_down(self, button: str) -> bool:
        track = self.tracks.get(button)
        return bool(track and track.stable)
