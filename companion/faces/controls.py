"""Controls for a face that is not a finger on the box: a press goes straight to the App on its
loop (no pin, no debounce, no hold), a tap as if the reader had read the card. For remotes (the
phones' six buttons) and for the bench; the simulator's own Controls drive its mock pins
(companion/sim/controls.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.core.events import Call, Event
from companion.faces.face import BUTTONS


class LoopControls:
    def __init__(
        self,
        post: Callable[[Event], Any],
        on_press: Callable[[str, bool], None],
        on_tap: Callable[[str], None] | None = None,
    ) -> None:
        self.post, self.on_press, self.on_tap = post, on_press, on_tap

    def press(self, button: str, long: bool = False) -> bool:
        if button not in BUTTONS:
            raise ValueError(f"unknown button {button!r} (use {', '.join(BUTTONS)})")
        # False when the post refused it (a remote's queue full: Loop.post_remote)
        return self.post(Call(lambda: self.on_press(button, long))) is not False

    def tap(self, uid: str) -> str:
        on_tap = self.on_tap
        if on_tap is None:
            raise ValueError("cards are tapped on the box's reader")
        if self.post(Call(lambda: on_tap(uid))) is False:
            raise ValueError("the box is busy; tap again")
        return uid
