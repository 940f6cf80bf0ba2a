"""The hardware the box drives, handed in by whoever starts it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Parts:
    """The hardware the app drives, built by whoever starts it (daemon, sim, replay, tests)."""

    factory: Any
    display: Any  # companion.hal.display.Display
    reader: Callable[[], Any] | None = None  # driver factory for the ReaderRunner
    reader_kind: str = "none"
