"""Screen -> 1-bit frame: the one renderer behind the OLED, the golden images, the terminal
simulator and the bench, so what is tested is what the box shows.

The frame has three areas (see ../shared/notes/screens.md): a title line on top, a footer line
at the bottom, and the middle between them holding one thing large. Text is shrunk step by
step until it fits and is cut with an ellipsis only when even the smallest readable size is
too wide; nothing scrolls. The same screen always gives the same pixels.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from PIL import Image, ImageDraw

from companion.core.values import value
from companion.ui import fonts
from companion.ui.fonts import DIGIT_REFERENCE, ELLIPSIS, LINE_REFERENCE, MIN_SIZE, Box
from companion.ui.pictures import PICTURES
from companion.ui.screen import Screen

log = logging.getLogger(__name__)

WIDTH = 128
HEIGHT = 64

BAND = 10  # height of the title and footer lines
GAP = 1  # blank rows between the middle and the title or footer
MARGIN = 1  # blank columns kept at the left and right edges
BIG_GAP = 2  # rows between big digits and the line under them
BIG_MIN_HEIGHT = 24  # big digits are never squeezed below this by the line under them
PICTURE_MIN_HEIGHT = 30  # a picture keeps at least this many rows beside its text
MAX_LINE_GAP = 4  # rows between lines when the middle has room to spare
BESIDE_WIDTH = 40  # the column of big digits when a picture sits beside them


@value
class Style:
    """A face and the sizes to try, largest first; the last one is the smallest readable."""

    face: str
    sizes: tuple[int, ...]


TITLE = Style("regular", (10, 9))  # the title and the footer
SMALL = Style("regular", (11, 10, 9))  # the line under big digits or a picture
MEDIUM = Style("bold", (16, 15, 14, 13, 12, 11, 10, 9))  # up to three lines on their own
BIG = Style("bold", tuple(range(64, MIN_SIZE - 1, -1)))


@value
class Areas:
    """The three areas of a frame; they never overlap."""

    title: Box
    middle: Box
    footer: Box


def areas(width: int = WIDTH, height: int = HEIGHT) -> Areas:
    return Areas(
        title=(0, 0, width, BAND),
        middle=(0, BAND + GAP, width, height - BAND - GAP),
        footer=(0, height - BAND, width, height),
    )


@value
class Placed:
    """One piece of text as drawn: ``text`` may be cut; ``box`` is its ink in frame pixels."""

    area: str  # "title", "footer", "big" or "line"
    text: str
    size: int
    face: str
    origin: tuple[int, int]  # where it is drawn from (Pillow's top-left anchor)
    box: Box


@value
class Layout:
    texts: tuple[Placed, ...]
    picture_box: Box | None = None


def layout(screen: Screen, width: int = WIDTH, height: int = HEIGHT) -> Layout:
    """Where every text of ``screen`` goes and at what size (what ``render`` draws)."""
    return _layout(screen, width, height, AREA_NAMES)


AREA_NAMES = ("title", "middle", "footer")


def _layout(screen: Screen, width: int, height: int, names: Sequence[str]) -> Layout:
    """The layout of the areas ``names`` only (each area is laid out on its own)."""
    parts = areas(width, height)
    texts: list[Placed] = []
    if "title" in names and screen.title.strip():
        texts.append(_single("title", screen.title, parts.title))
    if "footer" in names and screen.footer.strip():
        texts.append(_single("footer", screen.footer, parts.footer))
    picture_box = None
    if "middle" in names:
        middle_texts, picture_box = _middle(screen, parts.middle)
        texts.extend(middle_texts)
    return Layout(tuple(texts), picture_box)


def _content(screen: Screen, area: str) -> object:
    """What an area's pixels depend on (besides the frame's size): the title and the footer
    their text, the middle the rest."""
    if area == "title":
        return screen.title
    if area == "footer":
        return screen.footer
    return (screen.lines, screen.big, screen.inverted, screen.picture)


def render(
    screen: Screen,
    width: int = WIDTH,
    height: int = HEIGHT,
    since: tuple[Screen, Image.Image] | None = None,
) -> Image.Image:
    """The frame for ``screen``: a mode "1" image, white on black (black on white in the
    middle when ``inverted``). Each area is clipped to its box, so even a glyph taller than
    the font's usual band (an accented capital) cannot spill into its neighbour.

    ``since``: the screen shown before and its frame. The areas are independent, so only
    those whose content changed are drawn again (a title and a footer mostly stay); the
    others are kept from that frame, pixel for pixel what a whole render gives."""
    parts = areas(width, height)
    boxes = {"title": parts.title, "middle": parts.middle, "footer": parts.footer}
    if since is not None and since[1].size == (width, height) and since[1].mode == "1":
        before, frame = since[0], since[1].copy()
        redraw = [name for name in AREA_NAMES if _content(before, name) != _content(screen, name)]
        for name in redraw:
            frame.paste(0, boxes[name])
    else:
        frame = Image.new("1", (width, height), 0)
        redraw = list(AREA_NAMES)
    if not redraw:
        return frame
    plan = _layout(screen, width, height, redraw)
    layers = {name: Image.new("1", (width, height), 0) for name in redraw}
    for placed in plan.texts:
        area = placed.area if placed.area in ("title", "footer") else "middle"
        stamped = fonts.stamp(placed.text, placed.size, placed.face)
        if stamped is not None:  # what drawing the text at its origin sets, from the cache
            image, left, top = stamped
            x, y = placed.origin[0] + left, placed.origin[1] + top
            layers[area].paste(1, (x, y, x + image.width, y + image.height), image)
    if plan.picture_box is not None and screen.picture is not None:
        name, data = screen.picture
        PICTURES[name](ImageDraw.Draw(layers["middle"]), plan.picture_box, data)
    for name in redraw:
        box = boxes[name]
        mask = layers[name].crop(box)
        if name == "middle" and screen.inverted:
            frame.paste(255, box)
            frame.paste(0, box, mask=mask)
        else:
            frame.paste(255, box, mask=mask)
    return frame


# --- fitting -----------------------------------------------------------------------------------


def _single(area: str, text: str, box: Box) -> Placed:
    """The title or the footer: one line centred in its band at the largest size that fits."""
    left, top, right, bottom = box
    block = _cut((text,), _block((text,), TITLE, right - left, bottom - top, spread=False))
    shown, size = block.lines[0], block.size
    line_top = top + (bottom - top - block.height) // 2
    if block.height > bottom - top:
        # Taller than the band only because of an accent or a bracket: centre its own ink
        # instead (render clips whatever still sticks out).
        _, ink_top, _, ink_bottom = fonts.ink(shown, size, TITLE.face)
        band_top, _ = fonts.band(shown, size, TITLE.face)
        line_top = top + (bottom - top - (ink_bottom - ink_top)) // 2 - ink_top + band_top
    return _place(area, shown, size, TITLE.face, box, line_top, LINE_REFERENCE)


@value
class _Block:
    """Lines fitted to a width and a height, ready to be placed one under the other."""

    size: int
    face: str
    lines: tuple[str, ...]
    line_height: int
    gap: int
    aligned: bool  # one common left edge (the lines carry indentation) instead of centring

    @property
    def height(self) -> int:
        return len(self.lines) * self.line_height + (len(self.lines) - 1) * self.gap

    def place(self, box: Box, top: int) -> list[Placed]:
        left, _, right, _ = box
        pen = None
        if self.aligned:
            widest = max(fonts.ink(line, self.size, self.face)[2] for line in self.lines)
            pen = left + (right - left - widest) // 2
        placed = []
        y = top
        for text in self.lines:
            # Bottom-align each line in the block's line height: a shared baseline.
            offset = self.line_height - fonts.height(text, self.size, self.face)
            placed.append(
                _place("line", text, self.size, self.face, box, y + offset, LINE_REFERENCE, pen=pen)
            )
            y += self.line_height + self.gap
        return placed


def _block(
    lines: Sequence[str], style: Style, box_width: int, max_height: int, spread: bool
) -> _Block:
    """``lines`` at the largest size of ``style`` at which all of them fit.

    Lines are centred one by one, unless one of them starts with a space: then the
    indentation is meant (a menu's marker column) and they share one left edge.
    A blank row between lines is given up before a line is; when even the smallest size is
    too wide the long lines are cut; when there are too many lines for the height, the ones
    that fit are kept and the last of them ends with "…". ``spread`` opens the gaps between
    lines up to MAX_LINE_GAP when there is room.
    """
    face = style.face
    max_width = box_width - 2 * MARGIN
    aligned = any(line[:1].isspace() for line in lines)

    def wide(line: str, size: int) -> int:
        """Columns the line needs: from the pen when aligned (indentation counts)."""
        left, _, right, _ = fonts.ink(line, size, face)
        return right if aligned else right - left

    def line_height(size: int, shown: Sequence[str]) -> int:
        return max(fonts.height(line, size, face) for line in shown)

    def block_height(size: int, shown: Sequence[str], gap: int) -> int:
        return len(shown) * line_height(size, shown) + (len(shown) - 1) * gap

    def fits(size: int, gap: int) -> bool:
        # The pen's way first: a size a line is surely too wide for costs no FreeType layout.
        return (
            all(fonts.least_width(line, size, face) <= max_width for line in lines)
            and block_height(size, lines, gap) <= max_height
            and all(wide(line, size) <= max_width for line in lines)
        )

    chosen = next(
        ((size, tuple(lines)) for gap in (1, 0) for size in style.sizes if fits(size, gap)),
        None,
    )
    if chosen is None:
        size = style.sizes[-1]
        shown = list(lines)
        while len(shown) > 1 and block_height(size, shown, 0) > max_height:
            shown.pop()
            shown[-1] = shown[-1].rstrip() + ELLIPSIS
        cut = []
        for line in shown:
            indent = wide(line, size) - fonts.width(line, size, face)
            cut.append(fonts.ellipsize(line, size, max_width - indent, face))
        chosen = (size, tuple(cut))
    size, shown_lines = chosen
    height = line_height(size, shown_lines)
    gap = 0
    if len(shown_lines) > 1:
        spare = (max_height - len(shown_lines) * height) // (len(shown_lines) - 1)
        gap = max(0, min(MAX_LINE_GAP if spread else 1, spare))
    return _Block(size, face, shown_lines, height, gap, aligned)


def _cut(lines: Sequence[str], block: _Block) -> _Block:
    """``block``, saying so when it lost words of ``lines``: a screen that does not fit is a
    bug to fix (a shorter word, a notice's next page), never a silent cut."""
    if block.lines != tuple(lines):
        log.warning("screen text cut to fit: %r -> %r", tuple(lines), block.lines)
    return block


def big_fits(text: str) -> bool:
    """Whether ``text`` goes across the screen as large text, at its smallest size if need be,
    without being cut (a player's name that would not takes its short form: ui/names.py)."""
    return _big_wide(text, BIG.sizes[-1]) <= WIDTH - 2 * MARGIN


def _big_wide(text: str, size: int) -> int:
    """Columns ``text`` takes as large text: its ink or its advance, whichever is wider."""
    return max(fonts.width(text, size, BIG.face), fonts.advance(text, size, BIG.face))


def _fit_big(text: str, max_width: int, max_height: int) -> tuple[int, str]:
    """The largest size at which ``text`` fits. Width and height grow with the size, so a
    binary search finds it in a handful of measurements."""
    sizes = sorted(BIG.sizes)

    def fits(size: int) -> bool:
        return fonts.height(text, size, BIG.face, DIGIT_REFERENCE) <= max_height and (
            _big_wide(text, size) <= max_width
        )

    if not fits(sizes[0]):
        shown = fonts.ellipsize(text, sizes[0], max_width, BIG.face)
        log.warning("screen text cut to fit: %r -> %r", text, shown)
        return sizes[0], shown
    low, high = 0, len(sizes) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if fits(sizes[mid]):
            low = mid
        else:
            high = mid - 1
    return sizes[low], text


def _place(
    area: str,
    text: str,
    size: int,
    face: str,
    box: Box,
    line_top: int,
    reference: str,
    steady: bool = False,
    pen: int | None = None,
) -> Placed:
    """``text`` centred across ``box`` with its reference band starting at row ``line_top``.

    Centred on its ink, or on its advance when ``steady`` (big digits: a ticking timer must
    not shuffle sideways), kept inside the margins either way; or drawn from column ``pen``.
    """
    left, _, right, _ = box
    ink_left, ink_top, ink_right, ink_bottom = fonts.ink(text, size, face)
    band_top, _ = fonts.band(text, size, face, reference)
    if pen is not None:
        x = pen
    elif steady:
        x = left + (right - left - fonts.advance(text, size, face)) // 2
        x = min(x, right - MARGIN - ink_right)
        x = max(x, left + MARGIN - ink_left)
    else:
        x = left + (right - left - (ink_right - ink_left)) // 2 - ink_left
    y = line_top - band_top
    return Placed(
        area=area,
        text=text,
        size=size,
        face=face,
        origin=(x, y),
        box=(x + ink_left, y + ink_top, x + ink_right, y + ink_bottom),
    )


def _middle(screen: Screen, box: Box) -> tuple[list[Placed], Box | None]:
    """The texts of the middle area, and the box left for a picture (None: no picture)."""
    left, top, right, bottom = box
    room = bottom - top
    lines = [line for line in screen.lines if line.strip()]
    big = screen.big if screen.big is not None and screen.big.strip() else None
    if screen.picture is not None:
        name = screen.picture[0]
        if name not in PICTURES:
            known = ", ".join(sorted(PICTURES))
            raise ValueError(f"screen {screen.title!r}: no picture named {name!r} ({known})")
    if screen.picture is not None and big is not None:
        return _big_beside_picture(big, lines, box)
    if screen.picture is not None and big is None:
        if not lines:
            return [], box
        block = _block(lines, SMALL, right - left, room - PICTURE_MIN_HEIGHT - GAP, False)
        if block.lines == tuple(lines):
            block_top = bottom - block.height
            return block.place(box, block_top), (left, top, right, block_top - GAP)
    if screen.picture is not None:
        # The picture is the extra: lines that do not fit beside it win.
        log.debug("picture %r left out: the middle needs the room", screen.picture[0])
    if big is None:
        if not lines:
            return [], None
        block = _block(lines, MEDIUM, right - left, room, spread=True)
        if block.lines != tuple(lines):  # the lighter face before any word is lost
            block = _block(lines, SMALL, right - left, room, spread=True)
        block = _cut(lines, block)
        return block.place(box, top + (room - block.height) // 2), None
    under = None
    big_room = room
    if lines:
        under = _cut(
            lines, _block(lines, SMALL, right - left, room - BIG_MIN_HEIGHT - BIG_GAP, False)
        )
        big_room = room - under.height - BIG_GAP
    size, shown = _fit_big(big, right - left - 2 * MARGIN, big_room)
    big_height = fonts.height(shown, size, BIG.face, DIGIT_REFERENCE)
    total = big_height + (under.height + BIG_GAP if under else 0)
    big_top = top + (room - total) // 2
    placed = [_place("big", shown, size, BIG.face, box, big_top, DIGIT_REFERENCE, True)]
    if under:
        placed.extend(under.place(box, big_top + big_height + BIG_GAP))
    return placed, None


def _big_beside_picture(big: str, lines: list[str], box: Box) -> tuple[list[Placed], Box]:
    """Big digits in a column on the left, the picture on their right, the lines under both:
    whose turn it is, large, next to a small overview (a table game's seats)."""
    left, top, right, bottom = box
    room = bottom - top
    under = None
    upper = room
    if lines:
        under = _block(lines, SMALL, right - left, room - BIG_MIN_HEIGHT - BIG_GAP, False)
        upper = room - under.height - BIG_GAP
    column = (left, top, left + BESIDE_WIDTH, top + upper)
    size, shown = _fit_big(big, BESIDE_WIDTH - 2 * MARGIN, upper)
    big_height = fonts.height(shown, size, BIG.face, DIGIT_REFERENCE)
    big_top = top + (upper - big_height) // 2
    placed = [_place("big", shown, size, BIG.face, column, big_top, DIGIT_REFERENCE, True)]
    if under:
        placed.extend(under.place(box, top + upper + BIG_GAP))
    return placed, (left + BESIDE_WIDTH, top, right, top + upper)
