"""Buttons through gpiozero's mock pins: our debounce against our clock, short and long presses."""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.core.clock import VirtualClock
from companion.core.events import ButtonEdge
from companion.core.loop import Loop
from companion.hal.buttons import ButtonPins, PressLogic


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
