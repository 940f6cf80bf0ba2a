"""The RGB LED through gpiozero's RGBLED. Blink and pulse run on gpiozero's own background
thread (its job, not ours); brightness scales every colour."""

from __future__ import annotations

from typing import Any

from gpiozero import RGBLED

from companion.ui.screen import OFF, Lights


class Led:
    def __init__(self, red: int, green: int, blue: int, factory: Any, brightness: float = 1.0):
        self.device = RGBLED(red, green, blue, active_high=True, pwm=True, pin_factory=factory)
        self.brightness = brightness
        self.current: Lights | None = None

    def show(self, lights: Lights) -> None:
        if lights == self.current:
            return  # re-starting a blink would restart its phase
        self.current = lights
        color = tuple(round(c * self.brightness, 4) for c in lights.color)
        if lights.pattern == "off" or color == OFF:
            self.device.off()
        elif lights.pattern == "blink":
            self.device.blink(on_time=0.3, off_time=0.3, on_color=color, background=True)
        elif lights.pattern == "pulse":
            self.device.pulse(fade_in_time=0.8, fade_out_time=0.8, on_color=color, background=True)
        else:
            self.device.color = color

    def off(self) -> None:
        self.current = None
        self.device.off()

    def close(self) -> None:
        self.device.off()
        self.device.close()
