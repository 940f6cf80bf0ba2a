"""What the box shows after a refresh, frozen, so any thread may read it while the loop goes on.

The fields are those of a replay line (game, screen, leds, sounds, log, state) plus what a
picture of the box needs: the OLED's pixels, the LED's pattern, the reader's status. A face
never asks the App for more.
"""

from __future__ import annotations

import io
from dataclasses import field
from functools import cached_property, lru_cache
from typing import Any

from PIL import Image

from companion.core.values import value

RGB = tuple[float, float, float]


@value
class Snapshot:
    seq: int  # 1, 2, 3...: one per refresh, so a face can tell a newer one from an older
    t: float  # the box's clock (monotonic seconds) at the refresh
    game: str | None  # the game's name, None in the start menu
    title: str  # the game's title, or "Trap Companion"
    screen: tuple[str, ...]  # the OLED's text, as replay prints it
    size: tuple[int, int]  # the OLED's width and height in pixels
    pixels: bytes  # 1 bit a pixel, rows top to bottom, each padded to whole bytes (PIL "1")
    led: RGB  # the colour a still picture of the LED shows
    pattern: str  # solid, blink, pulse or off
    sounds: tuple[str, ...]  # the cues played since the snapshot before
    log: tuple[str, ...]  # the log lines since the snapshot before (replay's ``log``)
    state: Any  # the game's public state (JSON-able), None without a game
    reader: str  # the card reader's status ("reader ok", "no reader", ...)
    rejected: str | None = None  # why the last input was refused, if it was
    view: Any = field(default=None, compare=False)  # the frozen ui.screen.Screen drawn

    @classmethod
    def pack(cls, image: Image.Image | None) -> tuple[tuple[int, int], bytes]:
        """An OLED image as (size, 1-bit pixels); no image is a blank 128x64."""
        if image is None:
            return (128, 64), bytes(128 * 64 // 8)
        one = image if image.mode == "1" else image.convert("L").point(lambda v: 255 * (v >= 128))
        return one.size, one.convert("1").tobytes()

    def image(self) -> Image.Image:
        return Image.frombytes("1", self.size, self.pixels)

    @cached_property
    def png(self) -> bytes:
        """The OLED as a PNG (made once, by whichever thread asks first)."""
        return _png(self.size, self.pixels)

    def replay_line(self) -> dict[str, Any]:
        """What a replay line prints for this moment (without ``line`` and ``t``)."""
        out: dict[str, Any] = {
            "game": self.game,
            "state": self.state,
            "screen": list(self.screen),
            "leds": {"led": [round(c, 3) for c in self.led]},
            "sounds": list(self.sounds),
            "log": list(self.log),
        }
        if self.rejected is not None:
            out["rejected"] = self.rejected
        return out


@lru_cache(maxsize=256)
def _png(size: tuple[int, int], pixels: bytes) -> bytes:
    """A frame shown before (a menu gone back to, a timer's second of the last turn) is not
    encoded again: at a Pi's pace Pillow's PNG writer is a good part of a phone's event."""
    out = io.BytesIO()
    Image.frombytes("1", size, pixels).save(out, format="PNG", optimize=False)
    return out.getvalue()
