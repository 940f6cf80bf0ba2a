"""The gpiozero pin factory, chosen by config. The mock factory is our simulated GPIO; it is
never picked automatically, so a laptop run without it fails loudly instead of pretending."""

from __future__ import annotations

import logging
import warnings
from typing import Any

from companion.errors import HardwareError

log = logging.getLogger(__name__)


def make_factory(name: str) -> Any:
    """A fresh factory (tests make one per test and ``reset()``/``close()`` it afterwards)."""
    tried = ""  # the backends gpiozero skipped, for the error message
    try:
        if name == "mock":
            from gpiozero.pins.mock import MockFactory, MockPWMPin

            return MockFactory(pin_class=MockPWMPin)
        if name == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        if name == "rpigpio":
            from gpiozero.pins.rpigpio import RPiGPIOFactory

            return RPiGPIOFactory()
        if name == "native":
            from gpiozero.pins.native import NativeFactory

            return NativeFactory()
        from gpiozero import Device

        if Device.pin_factory is None:
            # gpiozero warns about each backend it skips; say it once, in our own log.
            with warnings.catch_warnings(record=True) as skipped:
                warnings.simplefilter("always")
                try:
                    Device.pin_factory = Device._default_pin_factory()
                finally:
                    tried = "; ".join(str(w.message) for w in skipped)
            if tried:
                log.debug("GPIO backends skipped: %s", tried)
        return Device.pin_factory
    except Exception as err:  # gpiozero raises BadPinFactory, ImportError, OSError...
        raise HardwareError(
            f"hardware.pin_factory = {name!r}: no GPIO backend works here ({err}"
            + (f"; tried: {tried}" if tried else "")
            + "). "
            "On a laptop use `trap-companion sim` or `trap-companion check --simulate`, "
            'or pin_factory = "mock".'
        ) from None


def factory_name(factory: Any) -> str:
    return type(factory).__name__.removesuffix("Factory").lower() or "unknown"
