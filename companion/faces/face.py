"""The one small interface of every face of the box (terminal, web page, phone).

The loop calls ``Face.show`` after every refresh, on its own thread: a face copies what it
needs and returns at once (a slow client must never hold up the box: keep only the newest
snapshot and drop the older ones). A face gives input through ``Controls``, whose calls only
post onto the loop's event queue and are safe from any thread.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from companion.core.config import BUTTONS
from companion.faces.snapshot import Snapshot

__all__ = ["BUTTONS", "Controls", "Face"]


@runtime_checkable
class Face(Protocol):
    def show(self, snapshot: Snapshot) -> None:
        """The box after a refresh (loop thread; must not block)."""


class Controls(Protocol):
    def press(self, button: str, long: bool = False) -> bool:
        """Press a button (one of BUTTONS; ValueError otherwise). False when the press came
        faster than a finger could and was dropped."""

    def tap(self, uid: str) -> str:
        """Tap a card by its UID; the UID as the reader reads it. ValueError for a UID the
        reader cannot have read."""
