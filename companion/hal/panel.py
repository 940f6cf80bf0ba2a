"""The OLED's RAM written by window: only what differs from what the panel holds goes over I2C.

luma's ssd1306 and sh1106 drivers send the whole frame for every ``display`` (1,024 bytes of
RAM and their commands); these subclasses keep luma's opening, init sequence and commands and
replace only ``display``. They remember the page bytes the panel holds and send only the runs
of columns that changed, with the controller's own addressing, in whichever of the ways below
costs the fewest bytes on the bus for the frame at hand (counted exactly: each write message's
control byte, its commands, its data):

- page addressing, run by run (both controllers; the SH1106 has nothing else): a page is
  chosen (0xB0 | page) and a column (its low and high nibble; the SH1106's visible columns
  start 2 into its 132-column RAM). Two runs of a page go as two when the unchanged bytes
  between them cost more than addressing the second (3 or 4 bytes: the command message, one
  or two nibbles, the data message's control byte), else as one. Nothing is sent that the
  pointer already holds: after a run it stands on the next column, so a page further on needs
  only its page command when its run starts there, and a column in the same sixteen only its
  low nibble (only when the high nibble last sent is that one too: no reliance on how the
  chip carries a nibble).
- SSD1306, horizontal addressing (as luma sets it up): one column/page window (0x21, 0x22)
  around the changed pages, or one window per changed page. A whole frame goes this way.

The SSD1306's addressing mode (0x20) is sent, in the same command message, only when the way
chosen is not the one the panel is in: luma's init leaves it horizontal, a write that failed
leaves it unknown.

What the panel holds is forgotten before a write and known again only once it went through:
a write that fails (the panel dropped off the bus) leaves the next frame whole. The first
frame of a device (luma's init clears the panel, then the box's first frame), a frame after an
outage (a new device is opened) and a frame after a rotation change are whole.

Page bytes come from Pillow, not from a loop over pixels: the 1-bit frame turned a quarter so
that each row of the packed image is one column of the panel, bottom to top, eight pixels a
byte; byte ``k`` of column ``x`` is then page ``pages - 1 - k`` with its top pixel in bit 0.
"""

from __future__ import annotations

import re
from typing import Any

import luma.oled.device
from PIL import Image

Pages = tuple[bytes, ...]
# A changed page and its changed columns, first to last inclusive.
Span = tuple[int, int, int]
# One step of a plan: a command message (none when empty), then a data message.
Write = tuple[tuple[int, ...], bytes]

HORIZONTAL, PAGE = 0x00, 0x02  # the SSD1306's addressing modes (0x20's argument)
# Skipping unchanged bytes costs at least 3 (a command message of one command, and the next
# data message's control byte): up to 3 go with the changed bytes around them.
JOINED = 3
_RUN = re.compile(rb"[^\x00](?:\x00{0,%d}[^\x00])*" % JOINED)


def page_bytes(image: Image.Image) -> Pages:
    """The panel's pages of a 1-bit image as large as the panel: one byte per column, the
    column's top pixel of the page in bit 0."""
    pages = image.size[1] // 8
    # Turned a quarter (clockwise): row x of the result is column x of the frame, from
    # its bottom pixel to its top; "1" packs eight pixels a byte, the first in the high bit.
    packed = image.convert("1").transpose(Image.Transpose.ROTATE_270).tobytes()
    return tuple(packed[pages - 1 - page :: pages] for page in range(pages))


def changed_runs(before: Pages | None, after: Pages) -> list[Span]:
    """The runs of columns of ``after`` that differ from ``before``, page by page and left to
    right, each run from a changed column to a changed column and the runs of a page apart by
    more than ``JOINED`` unchanged bytes; every page, whole, when nothing is known of
    ``before``."""
    width = len(after[0]) if after else 0
    if before is None or len(before) != len(after):
        return [(page, 0, width - 1) for page in range(len(after))]
    runs: list[Span] = []
    for page, (old, new) in enumerate(zip(before, after, strict=True)):
        if old == new:
            continue
        # The differing bits as bytes: a byte not 0 is a column that changed.
        diff = (int.from_bytes(old, "big") ^ int.from_bytes(new, "big")).to_bytes(width, "big")
        runs.extend((page, m.start(), m.end() - 1) for m in _RUN.finditer(diff))
    return runs


def changed_spans_of(runs: list[Span]) -> list[Span]:
    """Each page's runs as one span, from the first run's first column to the last's last."""
    spans: list[Span] = []
    for page, first, last in runs:
        if spans and spans[-1][0] == page:
            spans[-1] = (page, spans[-1][1], last)
        else:
            spans.append((page, first, last))
    return spans


def cost(plan: list[Write]) -> int:
    """Bytes on the bus, each message's control byte included (the address byte not)."""
    return sum((1 + len(cmds) if cmds else 0) + 1 + len(data) for cmds, data in plan)


def page_plan(
    pages: Pages, runs: list[Span], offset: int = 0, lead: tuple[int, ...] = ()
) -> list[Write]:
    """The runs by page addressing, in as few bytes as it goes: ``offset`` is where column 0
    is in the controller's RAM, ``lead`` commands go first (a mode to select)."""
    width = len(pages[0]) if pages else 0
    segments: list[tuple[tuple[int, ...], int, int, int]] = []  # commands, page, first, last
    high: int | None = None  # the high nibble last sent

    def address(page: int, column: int) -> list[int]:
        if not segments:
            return [*lead, 0xB0 | page, column & 0x0F, 0x10 | column >> 4]
        _, held, _, last = segments[-1]
        # Past the last visible column the chip's pointer is not relied on.
        at = last + 1 + offset if last + 1 < width else None
        cmds = [] if held == page and at is not None else [0xB0 | page]
        if at == column:
            return cmds
        if at is not None and at >> 4 == column >> 4 == high:
            return [*cmds, column & 0x0F]
        return [*cmds, column & 0x0F, 0x10 | column >> 4]

    for page, first, last in runs:
        cmds = address(page, first + offset)
        # The unchanged bytes between this run and the one before, or addressing this run
        # (its command message, and its data message's control byte): whichever is fewer.
        if segments and segments[-1][1] == page and first - segments[-1][3] - 1 <= len(cmds) + 2:
            segments[-1] = (*segments[-1][:3], last)
            continue
        if len(cmds) >= 2 and cmds[-1] & 0xF0 == 0x10:
            high = cmds[-1] & 0x0F
        segments.append((tuple(cmds), page, first, last))
    return [(cmds, pages[page][first : last + 1]) for cmds, page, first, last in segments]


class _Windowed:
    """What both controllers share: the pages the panel holds, and the frame's runs."""

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
        runs = changed_runs(before, pages)
        if not runs:
            return
        self._held = None  # until the write went through
        self._send(pages, runs)
        self._held, self._held_as = pages, shape

    def plan(self, pages: Pages, runs: list[Span]) -> list[Write]:
        """The writes that bring the panel from what it holds to ``pages``."""
        raise NotImplementedError

    def _send(self, pages: Pages, runs: list[Span]) -> None:
        for cmds, data in self.plan(pages, runs):
            if cmds:
                self.command(*cmds)  # type: ignore[attr-defined]
            self.data(data)  # type: ignore[attr-defined]


class ssd1306(_Windowed, luma.oled.device.ssd1306):
    """luma's SSD1306, sending only the changed runs: by window (horizontal addressing) or
    run by run (page addressing), whichever is fewer bytes."""

    _mode: int | None = HORIZONTAL  # luma's init selects it before its first frame

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forget()  # the first frame goes whole

    def plan(self, pages: Pages, runs: list[Span]) -> list[Write]:
        return self._cheapest(pages, runs)[1]

    def _cheapest(self, pages: Pages, runs: list[Span]) -> tuple[int, list[Write]]:
        """The fewest bytes of ``plans``, the windows counted without building them (on a
        tie a window, then windows per page, as luma's own whole frame goes)."""
        spans = changed_spans_of(runs)
        lead = 0 if self._mode == HORIZONTAL else 2  # 0x20 and its argument
        rows = spans[-1][0] - spans[0][0] + 1
        columns = max(span[2] for span in spans) - min(span[1] for span in spans) + 1
        one = lead + 7 + 1 + rows * columns
        per_page = lead + sum(7 + 1 + last - first + 1 for _, first, last in spans)
        paged = self._page_addressing(pages, runs)
        if cost(paged) < min(one, per_page):
            return PAGE, paged
        return HORIZONTAL, self._windows(pages, spans, one_window=one <= per_page)

    def plans(self, pages: Pages, runs: list[Span]) -> dict[str, tuple[int, list[Write]]]:
        """Each way of sending the runs, with the mode it leaves the panel in: one window,
        a window per changed page (horizontal addressing), run by run (page addressing)."""
        spans = changed_spans_of(runs)
        return {
            "window": (HORIZONTAL, self._windows(pages, spans, one_window=True)),
            "window_per_page": (HORIZONTAL, self._windows(pages, spans, one_window=False)),
            "page_addressing": (PAGE, self._page_addressing(pages, runs)),
        }

    def _windows(self, pages: Pages, spans: list[Span], one_window: bool) -> list[Write]:
        const = self._const
        start = self._colstart
        lead = () if self._mode == HORIZONTAL else (const.MEMORYMODE, HORIZONTAL)
        if one_window:
            left = min(span[1] for span in spans)
            right = max(span[2] for span in spans)
            windows = [(spans[0][0], spans[-1][0], left, right)]
        else:
            windows = [(page, page, a, b) for page, a, b in spans]
        plan: list[Write] = []
        for top, bottom, a, b in windows:
            cmds = (const.COLUMNADDR, start + a, start + b, const.PAGEADDR, top, bottom)
            data = b"".join(pages[page][a : b + 1] for page in range(top, bottom + 1))
            plan.append(((*lead, *cmds) if not plan else cmds, data))
        return plan

    def _page_addressing(self, pages: Pages, runs: list[Span]) -> list[Write]:
        lead = () if self._mode == PAGE else (self._const.MEMORYMODE, PAGE)
        return page_plan(pages, runs, self._colstart, lead)

    def _send(self, pages: Pages, runs: list[Span]) -> None:
        mode, plan = self._cheapest(pages, runs)
        self._mode = None  # until the write went through
        for cmds, data in plan:
            if cmds:
                self.command(*cmds)
            self.data(data)
        self._mode = mode


class sh1106(_Windowed, luma.oled.device.sh1106):
    """luma's SH1106, sending only the changed runs (page addressing, run by run)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forget()

    def plan(self, pages: Pages, runs: list[Span]) -> list[Write]:
        return page_plan(pages, runs, self._page_address_offset)
