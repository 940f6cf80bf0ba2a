"""Buttons through gpiozero's mock pins: our debounce against our clock, short and long presses."""

from typing import ClassVar

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.core.clock import VirtualClock
from companion.core.events import ButtonEdge
from companion.core.loop import Loop
from companion.hal.buttons import ButtonPins, PressLogic, stamps_edges


@pytest.fixture
def rig():
    factory = MockFactory(pin_class=MockPWMPin)
    clock = VirtualClock()
    loop = Loop(clock)
    presses = []
    logic = PressLogic(
        lambda b, long: presses.append((b, long, clock.now())),
        loop.call_at,
        loop.cancel,
        hold_seconds=1.0,
        debounce=0.005,
    )
    loop.handler = lambda e: (
        logic.edge(e.button, e.pressed, e.t) if isinstance(e, ButtonEdge) else None
    )
    pins = ButtonPins({"green": 26, "red": 21}, factory, loop.post, clock)
    yield factory, clock, loop, presses
    pins.close()
    factory.reset()
    factory.close()


def _bounce(factory, clock, loop, pin, edges, within, end_low):
    """``edges`` alternating edges spread over ``within`` seconds, ending low (pressed) or high."""
    p = factory.pin(pin)
    step = within / edges
    level_low = not end_low if edges % 2 == 0 else end_low
    for _ in range(edges):
        (p.drive_low if level_low else p.drive_high)()
        loop.advance_to(clock.now() + step)
        level_low = not level_low


def test_twenty_edges_within_five_ms_are_one_press(rig):
    factory, clock, loop, presses = rig
    _bounce(factory, clock, loop, 26, 20, 0.0049, end_low=True)
    loop.advance_to(clock.now() + 0.2)
    _bounce(factory, clock, loop, 26, 20, 0.0049, end_low=False)
    loop.advance_to(clock.now() + 0.1)
    assert [(b, long) for b, long, _ in presses] == [("green", False)]


def test_a_clean_press_is_reported_on_release_without_debounce_delay(rig):
    factory, _, loop, presses = rig
    p = factory.pin(21)
    p.drive_low()
    loop.advance_to(0.05)
    p.drive_high()
    loop.drain()
    assert presses == [("red", False, 0.05)]


def test_holding_past_the_hold_time_is_one_long_press_and_no_short_one(rig):
    factory, _, loop, presses = rig
    p = factory.pin(26)
    p.drive_low()
    loop.advance_to(0.999)
    assert presses == []
    loop.advance_to(1.5)
    assert presses == [("green", True, 1.0)]
    p.drive_high()
    loop.advance_to(2.0)
    assert len(presses) == 1


def test_a_spike_shorter_than_the_debounce_window_is_not_a_press(rig):
    factory, _, loop, presses = rig
    p = factory.pin(26)
    p.drive_low()
    loop.advance_to(0.001)
    p.drive_high()
    loop.advance_to(0.5)
    assert presses == []


def test_two_buttons_are_independent(rig):
    factory, _, loop, presses = rig
    g, r = factory.pin(26), factory.pin(21)
    g.drive_low()
    loop.advance_to(0.01)
    r.drive_low()
    loop.advance_to(0.05)
    g.drive_high()
    loop.advance_to(0.1)
    r.drive_high()
    loop.drain()
    assert [(b, long) for b, long, _ in presses] == [("green", False), ("red", False)]


class _LatePin(MockPWMPin):
    """A pin whose edges reach gpiozero's callback late, as lgpio's callback thread can (it
    waits for the GIL or a CPU): each edge is kept with the time the line changed, and handed
    over when the test says."""

    waiting: ClassVar[list] = []

    def _call_when_changed(self):
        _LatePin.waiting.append((self, self._last_change, self._state))


def _hand_over_one() -> None:
    from gpiozero.pins.pi import PiPin

    pin, ticks, state = _LatePin.waiting.pop(0)
    PiPin._call_when_changed(pin, ticks, state)


@pytest.mark.parametrize(
    ("edge_times", "presses"),
    [(True, [("green", False)]), (False, [("green", False), ("green", False), ("green", False)])],
)
def test_edges_handed_over_late_keep_the_times_the_line_changed(monkeypatch, edge_times, presses):
    """A 3 ms glitch and a bouncing press whose edges after the first reach the callback 6 ms
    late: by the factory's stamps one press (the bounce's); stamped on arrival, the glitch was
    a press and the bounce two (as hwtest saw on a loaded VM before the box took lgpio's)."""
    clock = VirtualClock()
    monkeypatch.setattr("gpiozero.pins.mock.monotonic", clock.now)
    factory = MockFactory(pin_class=_LatePin)
    monkeypatch.setattr(factory, "ticks", clock.now)
    loop = Loop(clock)
    got = []
    logic = PressLogic(lambda b, long: got.append((b, long)), loop.call_at, loop.cancel)
    loop.handler = lambda e: logic.edge(e.button, e.pressed, e.t)
    pins = ButtonPins({"green": 26}, factory, loop.post, clock, edge_times=edge_times)
    p = factory.pin(26)
    try:
        glitch = [(0.0, p.drive_low), (0.003, p.drive_high)]
        bounce = [(0.2 + i * 0.0006, (p.drive_low, p.drive_high)[i % 2]) for i in range(7)]
        lines = [*glitch, *bounce, (0.3, p.drive_high)]
        # The first edge of each is handed over at once; the loop then wakes for it and the
        # edges after it wait 6 ms for their callback.
        firsts = {0.0, 0.2, 0.3}
        late = [(at + (0 if at in firsts else 0.006), _hand_over_one) for at, _ in lines]
        for at, do in sorted([*lines, *late], key=lambda e: e[0]):
            loop.advance_to(at)
            do()
        loop.advance_to(0.5)
        assert got == presses
    finally:
        _LatePin.waiting.clear()
        pins.close()
        factory.reset()
        factory.close()


def test_only_lgpio_hands_edges_over_with_their_own_time():
    class LGPIOFactory:  # named as gpiozero's (lgpio itself is on a Pi only)
        pass

    assert stamps_edges(LGPIOFactory())
    assert not stamps_edges(MockFactory())  # a virtual clock's stamps stay exact: replays
