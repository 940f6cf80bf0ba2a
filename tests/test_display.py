"""The luma display adapter: frames reach luma's dummy device, and a missing or failing panel
never stops the box (one warning per outage, retry brings it back)."""

from __future__ import annotations

import errno
import logging
from typing import Any

import luma.core.device
import pytest
from luma.core.error import DeviceNotFoundError, DevicePermissionError
from PIL import Image, ImageChops

from companion.errors import ConfigError
from companion.hal.display import Display, device_factory, open_device
from companion.ui.render import render
from companion.ui.screen import Screen

TIMER = Screen("Trapwords  R3", ("Team A guessing",), big="0:45", footer="G correct  R wrong")
DICE = Screen("Dice  d6", ("d6  roll 1",), big="4", footer="G roll  R again")


def same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.difference(a, b).getbbox() is None


def dummy() -> Any:
    return open_device("dummy", 1, 0x3C, 0)


class Flaky:
    """A device factory that fails with ``error`` until ``working`` is set."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.working = False
        self.calls = 0
        self.devices: list[Any] = []

    def __call__(self) -> Any:
        self.calls += 1
        if not self.working:
            raise self.error
        device = dummy()
        self.devices.append(device)
        return device


class DropsOut:
    """A luma dummy whose writes fail like an unplugged I2C panel (raw OSError 121)."""

    def __init__(self) -> None:
        self.inner = dummy()
        self.width, self.height = self.inner.width, self.inner.height
        self.broken = False
        self.writes = 0

    def display(self, image: Image.Image) -> None:
        self.writes += 1
        if self.broken:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.inner.display(image)

    def cleanup(self) -> None:
        raise OSError(errno.EREMOTEIO, "Remote I/O error")


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "companion.hal.display" and r.levelno >= logging.WARNING
    ]


# --- open_device ---------------------------------------------------------------------------------


def test_dummy_device_is_a_128x64_one_bit_luma_dummy() -> None:
    device = dummy()
    assert isinstance(device, luma.core.device.dummy)
    assert (device.width, device.height, device.mode) == (128, 64, "1")


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_a_missing_i2c_bus_raises_luma_device_not_found(driver: str) -> None:
    # No /dev/i2c-250 anywhere: luma itself turns the missing bus into its own error.
    with pytest.raises(DeviceNotFoundError):
        open_device(driver, 250, 0x3C, 0)


def test_bad_driver_or_rotation_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"display\.driver = 'ssd1309'"):
        open_device("ssd1309", 1, 0x3C, 0)
    with pytest.raises(ConfigError, match=r"display\.rotate = 4"):
        open_device("dummy", 1, 0x3C, 4)
    with pytest.raises(ConfigError, match=r"display\.driver"):
        device_factory("oled")


def test_device_factory_for_settings() -> None:
    assert device_factory("none") is None
    factory = device_factory("dummy", 1, 0x3C, 2)
    assert factory is not None
    assert isinstance(factory(), luma.core.device.dummy)


# --- Display on luma's dummy -------------------------------------------------------------------


def test_the_dummy_holds_exactly_the_rendered_frame() -> None:
    frames: list[Image.Image] = []
    display = Display(dummy, on_frame=frames.append)
    assert display.available and display.error is None
    assert display.show(TIMER) is True
    assert same(display.device.image, render(TIMER))
    assert display.lines == TIMER.text_lines()
    assert display.image is not None and same(display.image, render(TIMER))
    assert len(frames) == 1 and same(frames[0], render(TIMER))
    assert display.show(DICE) is True
    assert same(display.device.image, render(DICE))
    assert len(frames) == 2


def test_a_half_turn_reaches_the_panel_rotated() -> None:
    display = Display(lambda: open_device("dummy", 1, 0x3C, 2))
    display.show(TIMER)
    assert same(display.device.image, render(TIMER).rotate(180))


def test_a_quarter_turn_renders_portrait() -> None:
    display = Display(lambda: open_device("dummy", 1, 0x3C, 1))
    assert display.show(DICE) is True
    assert display.image is not None and display.image.size == (64, 128)
    assert display.device.image.size == (128, 64)


def test_close_blanks_the_panel() -> None:
    display = Display(dummy)
    display.show(TIMER)
    device = display.device
    display.close()
    assert not display.available
    assert device.image.getbbox() is None
    display.close()  # twice is harmless


def test_no_display_configured() -> None:
    display = Display(None)
    assert not display.available
    assert display.error == "no display configured"
    assert display.show(TIMER) is False
    assert display.lines == TIMER.text_lines()
    assert display.image is not None and same(display.image, render(TIMER))
    assert display.retry() is False
    display.close()


# --- a missing or failing panel -----------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        DeviceNotFoundError("I2C device not found: /dev/i2c-1"),
        DevicePermissionError("I2C device permission denied: /dev/i2c-1"),
        OSError(errno.EREMOTEIO, "Remote I/O error"),
    ],
)
def test_missing_at_start_then_found_by_retry(
    error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="companion.hal.display")
    factory = Flaky(error)
    frames: list[Image.Image] = []
    display = Display(factory, on_frame=frames.append)
    assert not display.available
    assert display.error is not None and str(error) in display.error
    for screen in (TIMER, DICE, TIMER):
        assert display.show(screen) is False
    assert display.retry() is False
    assert display.retry() is False
    assert display.lines == TIMER.text_lines()
    assert len(frames) == 3, "the simulator still sees every frame"
    assert len(warnings(caplog)) == 1, warnings(caplog)

    factory.working = True
    assert display.retry() is True
    assert display.available and display.error is None
    # The panel shows the current screen at once, without waiting for the next change.
    assert same(factory.devices[-1].image, render(TIMER))
    assert display.retry() is True
    assert factory.calls == 4
    assert display.show(DICE) is True
    assert same(factory.devices[-1].image, render(DICE))


def test_drop_out_while_running_then_back(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="companion.hal.display")
    first = DropsOut()
    devices: list[Any] = [first]
    display = Display(lambda: devices[-1])
    assert display.show(TIMER) is True

    first.broken = True
    assert display.show(DICE) is False
    assert not display.available
    assert display.error is not None and "Remote I/O" in display.error
    writes = first.writes
    assert display.show(TIMER) is False
    assert first.writes == writes, "no writes to a panel known to be gone"
    # The panel opens again but still cannot take a frame: still unavailable, no new warning.
    assert display.retry() is False
    assert not display.available
    assert display.show(DICE) is False
    assert len(warnings(caplog)) == 1, warnings(caplog)

    second = DropsOut()
    devices.append(second)
    assert display.retry() is True
    assert same(second.inner.image, render(DICE))
    assert display.lines == DICE.text_lines()
    # A second outage warns again: once per outage, not once per frame.
    second.broken = True
    display.show(TIMER)
    display.show(DICE)
    assert len(warnings(caplog)) == 2
    display.close()


def test_close_swallows_a_failing_cleanup() -> None:
    device = DropsOut()
    display = Display(lambda: device)
    display.show(TIMER)
    display.close()
    assert not display.available
