"""The OLED's RAM written by window: only what differs from what the panel holds goes over I2C.

luma's ssd1306 and sh1106 drivers send the whole frame for every ``display`` (1,024 bytes of
RAM and their commands); these subclasses keep luma's opening, init sequence and commands and
replace only ``display``. They remember the page bytes the panel holds and send the pages that
changed and, within them, the columns that changed, with the controller's own addressing:

- SSD1306 (horizontal addressing, as luma sets it up): one column/page window (0x21, 0x22)
  around the changed pages, or one window per changed page when that is fewer bytes.
- SH1106 (page addressing only): each changed page from its first changed column (0xB0 | page,
  then the column's low and high nibble, with luma's 2-column offset into its 132-column RAM).

What the panel holds is forgotten before a write and known again only once it went through:
a write that fails (the panel dropped off the bus) leaves the next frame whole. The first
frame of a device (luma's init clears the panel, then the box's first frame), a frame after an
outage (a new device is opened) and a frame after a rotation change are whole.

Page bytes come from Pillow, not from a loop over pixels: the 1-bit frame turned a quarter so
that each row of the packed image is one column of the panel, bottom to top, eight pixels a
byte; byte ``k`` of column ``x`` is then page ``pages - 1 - k`` with its top pixel in bit 0.
"""

from __future__ import annotations

from typing import Any

import luma.oled.device
from PIL import Image

Pages = tuple[bytes, ...]
# A changed page and its changed columns, first to last inclusive.
Span = tuple[int, int, int]

SSD1306_WINDOW_COMMANDS = 7  # one message: control byte, 0x21 a b, 0x22 a b
DATA_MESSAGE = 1  # the control byte before a data message's bytes


def page_bytes(image: Image.Image) -> Pages:
    """The panel's pages of a 1-bit image as large as the panel: one byte per column, the
    column's top pixel of the page in bit 0."""
    pages = image.size[1] // 8
    # Turned a quarter (clockwise): row x of the result is column x of the frame, from
    # its bottom pixel to its top; "1" packs eight pixels a byte, the first in the high bit.
    packed = image.convert("1").transpose(Image.Transpose.ROTATE_270).tobytes()
    return tuple(packed[pages - 1 - page :: pages] for page in range(pages))


def changed_spans(before: Pages | None, after: Pages) -> list[Span]:
    """The pages of ``after`` that differ from ``before``, each with its first and last changed
    column; every page, whole, when nothing is known of ``before``."""
    width = len(after[0]) if after else 0
    if before is None or len(before) != len(after):
        return [(page, 0, width - 1) for page in range(len(after))]
    spans: list[Span] = []
    for page, (old, new) in enumerate(zip(before, after, strict=True)):
        if old == new:
            continue
        # The differing bits as one integer: the first column is the highest differing byte,
        # the last the lowest (big-endian: column 0 is the most significant byte).
        diff = int.from_bytes(old, "big") ^ int.from_bytes(new, "big")
        first = width - 1 - (diff.bit_length() - 1) // 8
        last = width - 1 - ((diff & -diff).bit_length() - 1) // 8
        spans.append((page, first, last))
    return spans


class _Windowed:
    """What both controllers share: the pages the panel holds, and the frame's spans."""

    _held: Pages | None = None  # also while luma's __init__ clears the panel through display()
    _held_as: tuple[int, int, int] | None = None  # (rotate, width, height) the pages were for

    def forget(self) -> None:
        """The next frame goes whole (the panel's RAM is not known)."""
        self._held = None

    def display(self, image: Image.Image) -> None:
        device: Any = self
        assert image.mode == device.mode
        assert image.size == device.size
        pages = page_bytes(device.preprocess(image))
        shape = (device.rotate, device._w, device._h)
        before = self._held if self._held_as == shape else None
        spans = changed_spans(before, pages)
        if not spans:
            return
        self._held = None  # until the write went through
        self._send(pages, spans)
        self._held, self._held_as = pages, shape

    def _send(self, pages: Pages, spans: list[Span]) -> None:
        raise NotImplementedError


class ssd1306(_Windowed, luma.oled.device.ssd1306):
    """luma's SSD1306, sending only the changed window (horizontal addressing)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forget()  # the first frame goes whole

    def _send(self, pages: Pages, spans: list[Span]) -> None:
        first, last = spans[0][0], spans[-1][0]
        left = min(span[1] for span in spans)
        right = max(span[2] for span in spans)
        one_window = (
            SSD1306_WINDOW_COMMANDS + DATA_MESSAGE + (last - first + 1) * (right - left + 1)
        )
        per_page = sum(
            SSD1306_WINDOW_COMMANDS + DATA_MESSAGE + span[2] - span[1] + 1 for span in spans
        )
        windows = [(first, last, left, right)]
        if per_page < one_window:
            windows = [(page, page, a, b) for page, a, b in spans]
        start = self._colstart
        const = self._const
        for top, bottom, a, b in windows:
            self.command(const.COLUMNADDR, start + a, start + b, const.PAGEADDR, top, bottom)
            self.data(b"".join(pages[page][a : b + 1] for page in range(top, bottom + 1)))


class sh1106(_Windowed, luma.oled.device.sh1106):
    """luma's SH1106, sending each changed page from its first changed column."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forget()

    def _send(self, pages: Pages, spans: list[Span]) -> None:
        for page, a, b in spans:
            column = self._page_address_offset + a
            self.command(0xB0 | page, column & 0x0F, 0x10 | (column >> 4))
            self.data(pages[page][a : b + 1])
