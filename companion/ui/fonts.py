"""Fonts and text measurement for the 1-bit OLED frame, cached so a frame renders in well
under a millisecond once its texts have been seen.

The faces are DejaVu Sans and DejaVu Sans Bold, bundled in companion/data/fonts (Bitstream
Vera licence, see LICENSE.txt there): without anti-aliasing, Pillow's built-in Aileron turns
6, 8 and 9 into look-alikes below 13 px, and small digits are what this box shows most.
DejaVu's hinting keeps them apart down to 9 px. Measurements use mode "1", exactly as drawing
on a mode "1" image does.

Text is laid out by Pillow's basic engine, always (LAYOUT). Left to choose, Pillow takes libraqm
whenever the system has libfribidi, and the basic engine where it has not (a minimal Debian or
Raspberry Pi OS Lite image): the two place glyphs a pixel apart here and there, so the same box
would draw different frames, and cut menu text at different letters, depending on what else
happens to be installed. The box shows short left-to-right text, which the basic engine lays
out fully. What the layout does not decide is FreeType's own: the hinter of one release sets a
pixel of a glyph here and there differently from another's (Debian 12's 2.12, which a 32-bit
Pi's Pillow links, against the 2.14 of Pillow's wheels: 4 to 6 pixels in two of the seven golden
frames; every text's place, size and cut the same). tests/golden keeps those frames per release.
"""

from __future__ import annotations

import logging
from functools import cache, lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

FACES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}

Box = tuple[int, int, int, int]  # left, top, right, bottom; right and bottom exclusive

# Smallest size still readable across a table on a 0.96" panel.
MIN_SIZE = 9

# Vertical reference for a line of text: the tallest ascender and deepest descender of
# everyday words, so lines sit at the same height whatever their letters.
LINE_REFERENCE = "Hdfgjklpqy"
# Vertical reference for big digits (timers, dice): digits and their separators.
DIGIT_REFERENCE = "0123456789:+"

ELLIPSIS = "…"

# The one layout engine on every system (see the module's docstring).
LAYOUT = ImageFont.Layout.BASIC


class _Bytes:
    """A face's file, read once, handed to Pillow as a file it reads from memory (the same
    bytes for every size, never a copy)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self) -> bytes:
        return self.data


@cache
def _font_data(face: str) -> _Bytes | None:
    """The bundled file of ``face``, read once; None (warned once) when the install lacks it."""
    path = resources.files("companion").joinpath("data", "fonts", FACES[face])
    if path.is_file():
        return _Bytes(path.read_bytes())
    log.warning("font file %s is missing; text falls back to Pillow's default font", path)
    return None


def preload() -> None:
    """Read every face's file now (the display calls this at start): a font of any size is
    then made from memory, so a box out of file handles still draws every frame."""
    for face in FACES:
        _font_data(face)


@cache
def font(size: int, face: str = "regular") -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """``face`` at ``size`` pixels, made once from the face's bytes in memory."""
    data = _font_data(face)
    if data is None:
        return ImageFont.load_default(size=size)
    # read() is all Pillow needs of a file
    return ImageFont.truetype(data, size, layout_engine=LAYOUT)  # type: ignore[arg-type]


@lru_cache(maxsize=8192)
def ink(text: str, size: int, face: str = "regular") -> Box:
    """Pillow's box for ``text`` drawn at (0, 0): every pixel lies inside it (leading spaces
    count from the pen); (0, 0, 0, 0) for blank text."""
    if not text.strip():
        return (0, 0, 0, 0)
    left, top, right, bottom = font(size, face).getbbox(text, mode="1")
    return (int(left), int(top), int(right), int(bottom))


@lru_cache(maxsize=1024)
def stamp(text: str, size: int, face: str = "regular") -> tuple[Image.Image, int, int] | None:
    """``text`` drawn once, as a mode "1" image of its ink box, and where that box sits from
    the pen (``ink``): pasted through itself at pen + (left, top) it sets the pixels drawing
    the text there sets, so a text seen before (a menu's line, a die's face, a timer's digits)
    is not rendered by FreeType again (on a Pi Zero each render is a good part of a frame).
    None for blank text."""
    left, top, right, bottom = ink(text, size, face)
    if right <= left or bottom <= top:
        return None
    image = Image.new("1", (right - left, bottom - top), 0)
    ImageDraw.Draw(image).text((-left, -top), text, font=font(size, face), fill=1)
    return image, left, top


@lru_cache(maxsize=8192)
def _pen_units(text: str, size: int, face: str) -> int:
    """How far Pillow's basic layout moves the pen over ``text``, in FreeType's 26.6 units
    (hinted advances and kerning, exactly as its layout sums them)."""
    return round(font(size, face).getlength(text, mode="1") * 64)


# Pairs of characters whose pen steps are kept per size and face (a screen's texts use a few
# hundred).
PEN_PAIRS = 8192
# (size, face) -> what each character adds to the pen's way after the one before it ("" first),
# by the pair: filled as texts come (_pen_step).
_PEN_STEPS: dict[tuple[int, str], dict[str, int]] = {}


def least_width(text: str, size: int, face: str = "regular") -> int:
    """A width ``text``'s ink box never falls short of: Pillow's box spans the pen's whole way
    (0 to where the pen stops, in FreeType's rounding) besides the glyphs' ink. Summed from
    each character's advance and each pair's kerning, measured once per character and pair, so
    a size a new text is too wide for (a roll's count grown a digit) is ruled out without
    FreeType laying the whole text out: a line costs the same at any count. 0 for blank text
    (its box is empty) and for a font not laid out by the basic engine (Pillow's fallback
    font: a shaping engine's advances are not a sum of pairs)."""
    chosen = font(size, face)
    if not text.strip() or getattr(chosen, "layout_engine", None) != LAYOUT:
        return 0
    steps = _PEN_STEPS.setdefault((size, face), {})  # a press looks its line's pairs up here
    units, before = 0, ""
    for char in text:
        pair = before + char
        step = steps.get(pair)
        if step is None:
            if len(steps) >= PEN_PAIRS:  # bounded, whatever names the table types in
                steps.clear()
            step = steps[pair] = _pen_step(before, char, size, face)
        units += step
        before = char
    return (units + 32) // 64  # FreeType's PIXEL(): where the pen stops, in whole pixels


def _pen_step(before: str, char: str, size: int, face: str) -> int:
    """The character's advance, and the pair's kerning as the layout adds it between the two."""
    units = _pen_units(char, size, face)
    if before:
        units += _pen_units(before + char, size, face)
        units -= _pen_units(before, size, face) + _pen_units(char, size, face)
    return units


@lru_cache(maxsize=8192)
def band(
    text: str, size: int, face: str = "regular", reference: str = LINE_REFERENCE
) -> tuple[int, int]:
    """Top and bottom (exclusive) of the rows a line of ``text`` occupies when drawn at y=0.

    The union of the reference's rows and the text's own, so ordinary lines share one
    baseline and an unusual glyph (an accent, a bracket) still stays inside its area.
    """
    _, ref_top, _, ref_bottom = ink(reference, size, face)
    left, top, right, bottom = ink(text, size, face)
    if right <= left:
        return ref_top, ref_bottom
    return min(ref_top, top), max(ref_bottom, bottom)


def width(text: str, size: int, face: str = "regular") -> int:
    """Ink width of ``text`` (0 for blank text)."""
    left, _, right, _ = ink(text, size, face)
    return right - left


@lru_cache(maxsize=8192)
def advance(text: str, size: int, face: str = "regular") -> int:
    """How far the pen moves over ``text``: equal for any digits, so "0:41" and "0:47"
    centred by it stand still while a timer counts."""
    return round(font(size, face).getlength(text, mode="1"))


def height(text: str, size: int, face: str = "regular", reference: str = LINE_REFERENCE) -> int:
    """Rows of the band ``text`` occupies (see ``band``)."""
    top, bottom = band(text, size, face, reference)
    return bottom - top


@lru_cache(maxsize=4096)
def ellipsize(text: str, size: int, max_width: int, face: str = "regular") -> str:
    """``text`` cut at the end with an ellipsis so that it is at most ``max_width`` wide."""
    if width(text, size, face) <= max_width:
        return text
    cut = text.rstrip()
    while cut:
        cut = cut[:-1].rstrip()
        candidate = cut + ELLIPSIS
        if width(candidate, size, face) <= max_width:
            return candidate
    return ELLIPSIS if width(ELLIPSIS, size, face) <= max_width else ""
