"""The RGB LED and the buzzer on gpiozero's mock PWM pins: patterns, brightness, named cues
played on loop deadlines (never by sleeping), and volume 0 meaning silence."""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.core.clock import VirtualClock
from companion.core.loop import Loop
from companion.hal.lights import Led
from companion.hal.sound import CUES, Sound
from companion.ui.screen import GREEN, Lights, fraction_color


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()
    f.close()


def test_solid_colour_scaled_by_brightness(factory):
    led = Led(17, 27, 22, factory, brightness=0.5)
    led.show(Lights((1.0, 0.5, 0.0)))
    assert factory.pin(17).state == pytest.approx(0.5)
    assert factory.pin(27).state == pytest.approx(0.25)
    assert factory.pin(22).state == 0
    led.show(Lights(GREEN, "off"))
    assert factory.pin(27).state == 0
    led.close()


def test_blink_and_pulse_run_on_gpiozero_and_are_not_restarted_by_the_same_lights(factory):
    led = Led(17, 27, 22, factory)
    led.show(Lights(GREEN, "blink"))
    thread = led.device._blink_thread
    assert thread is not None and thread.is_alive()
    led.show(Lights(GREEN, "blink"))
    assert led.device._blink_thread is thread  # same phase, not restarted
    led.show(Lights(GREEN, "pulse"))
    assert led.device._blink_thread is not thread
    led.off()
    assert led.device._blink_thread is None
    led.close()


def test_fraction_colour_goes_green_amber_red():
    assert fraction_color(1.0) == (0.0, 1.0, 0.0)
    assert fraction_color(0.5) == (1.0, 1.0, 0.0)
    assert fraction_color(0.0) == (1.0, 0.0, 0.0)
    assert fraction_color(-3) == fraction_color(0.0)


def _sound(factory, volume):
    clock = VirtualClock()
    loop = Loop(clock)
    return clock, loop, Sound(18, factory, volume, loop.call_at, loop.cancel, clock.now)


def test_a_cue_plays_its_notes_on_deadlines_then_falls_silent(factory):
    _, loop, sound = _sound(factory, 1.0)
    pin = factory.pin(18)
    sound.play("card_ok")
    loop.drain()
    first = pin.frequency
    assert first is not None and pin.state == pytest.approx(0.5)
    notes = CUES["card_ok"]
    loop.advance_to(notes[0][1] + 0.001)
    assert pin.frequency is not None and pin.frequency > first  # the second, higher note
    loop.advance_to(sum(s for _, s in notes) + 0.01)
    assert pin.frequency is None  # silent again
    sound.close()


def test_volume_scales_the_duty_cycle_and_zero_is_silent(factory):
    _, loop, quiet = _sound(factory, 0.2)
    quiet.play("tick")
    loop.drain()
    assert factory.pin(18).state == pytest.approx(0.1)
    quiet.close()
    _, loop, silent = _sound(factory, 0.0)
    assert silent.buzzer is None
    silent.play("tick")
    loop.drain()
    assert loop.next_deadline() is None


def test_a_new_cue_cuts_the_old_one_short(factory):
    _, loop, sound = _sound(factory, 1.0)
    sound.play("time_up")
    loop.drain()
    sound.play("tick")
    loop.advance_to(0.1)
    assert factory.pin(18).frequency is None  # tick is over; no note of time_up is left
    loop.advance_to(5)
    assert factory.pin(18).frequency is None
    sound.close()


def test_every_cue_the_games_use_exists():
    import re
    from pathlib import Path

    used = set()
    for path in (Path(__file__).parents[1] / "companion" / "games").rglob("*.py"):
        used |= set(re.findall(r'Sound\("([a-z_]+)"\)', path.read_text()))
    assert used, "the games should play cues"
    assert used <= set(CUES), f"missing cues: {used - set(CUES)}"


def test_a_late_loop_delays_a_cue_but_keeps_each_note_its_length(factory):
    """The loop busy past a whole cue (a frame at a Pi Zero's pace, as the booted VM showed):
    each note still sounds for its own length, counted from when it really began."""
    clock, loop, sound = _sound(factory, 1.0)
    pin = factory.pin(18)
    notes = CUES["card_ok"]
    sound.play("card_ok")  # the first note starts at once
    first = pin.frequency
    clock.set(sum(s for _, s in notes) + 1.0)  # busy for longer than the whole cue
    loop.drain()  # what was due: the second note, not the silence after it
    assert pin.frequency is not None and pin.frequency > first
    loop.advance_to(clock.now() + notes[1][1] - 0.001)
    assert pin.frequency is not None  # still sounding for its length
    loop.advance_to(clock.now() + 0.01)
    assert pin.frequency is None
    sound.close()


class WaveStoppedHighPin(MockPWMPin):
    """lgpio's software PWM: stopping it (frequency None) leaves the line where the wave was;
    here the worst case, high (hwtest's VM saw 8 stops in 20 end so)."""

    def _set_frequency(self, value):
        self._frequency = value
        if value is None:
            self._change_state(1.0)


def test_a_cue_and_a_rest_end_with_the_line_driven_low_whatever_the_pwm_left():
    factory = MockFactory(pin_class=WaveStoppedHighPin)
    try:
        _, loop, sound = _sound(factory, 1.0)
        pin = factory.pin(18)
        sound.play("card_unknown")  # a note, a rest, a note
        loop.drain()
        first, rest, _ = CUES["card_unknown"]
        assert rest[0] == "rest"
        loop.advance_to(first[1] + 0.001)
        assert pin.frequency is None and pin.state == 0  # the rest is silent, line low
        loop.advance_to(sum(s for _, s in CUES["card_unknown"]) + 0.01)
        assert pin.frequency is None and pin.state == 0
        sound.play("tick")  # cut short by close: the line low before gpiozero frees it
        loop.drain()
        sound._silence()
        assert pin.state == 0
        sound.close()
    finally:
        factory.reset()
        factory.close()
