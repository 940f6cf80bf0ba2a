"""The OLED frame as terminal text: half blocks and braille, checked on known pixels and by
decoding the text back into the image."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from companion.sim.frame import BRAILLE_BITS, braille, halfblocks
from companion.ui.render import render
from companion.ui.screen import Screen


def image_with(pixels: set[tuple[int, int]], size: tuple[int, int] = (128, 64)) -> Image.Image:
    image = Image.new("1", size, 0)
    for xy in pixels:
        image.putpixel(xy, 1)
    return image


def lit(image: Image.Image) -> set[tuple[int, int]]:
    width, height = image.size
    gray = image.convert("L")
    return {(x, y) for y in range(height) for x in range(width) if gray.getpixel((x, y))}


def decode_halfblocks(rows: list[str]) -> set[tuple[int, int]]:
    out = set()
    for row, text in enumerate(rows):
        for x, char in enumerate(text):
            if char in "▀█":
                out.add((x, 2 * row))
            if char in "▄█":
                out.add((x, 2 * row + 1))
    return out


def decode_braille(rows: list[str]) -> set[tuple[int, int]]:
    out = set()
    for row, text in enumerate(rows):
        for cell, char in enumerate(text):
            code = ord(char) - 0x2800
            assert 0 <= code <= 0xFF
            for (dx, dy), bit in BRAILLE_BITS.items():
                if code & bit:
                    out.add((2 * cell + dx, 4 * row + dy))
    return out


def test_blank_frame() -> None:
    blank = Image.new("1", (128, 64), 0)
    assert halfblocks(blank) == [" " * 128] * 32
    assert braille(blank) == [chr(0x2800) * 64] * 16


def test_full_frame() -> None:
    full = Image.new("1", (128, 64), 1)
    assert halfblocks(full) == ["█" * 128] * 32
    assert braille(full) == [chr(0x28FF) * 64] * 16


def test_halfblocks_of_single_pixels() -> None:
    assert halfblocks(image_with({(0, 0)}))[0][0] == "▀"
    assert halfblocks(image_with({(0, 1)}))[0][0] == "▄"
    assert halfblocks(image_with({(0, 0), (0, 1)}))[0][0] == "█"
    corner = halfblocks(image_with({(127, 63)}))
    assert corner[31] == " " * 127 + "▄"
    assert all(row == " " * 128 for row in corner[:31])


def test_halfblocks_of_stripes() -> None:
    # Even rows lit: every cell shows its upper half.
    stripes = image_with({(x, y) for x in range(128) for y in range(0, 64, 2)})
    assert halfblocks(stripes) == ["▀" * 128] * 32
    # A vertical line in column 5: full blocks in that column only.
    line = halfblocks(image_with({(5, y) for y in range(64)}))
    assert all(row == " " * 5 + "█" + " " * 122 for row in line)


def test_braille_dot_numbering() -> None:
    assert braille(image_with({(0, 0)}))[0][0] == "\u2801"
    assert braille(image_with({(0, 3)}))[0][0] == "\u2840"
    assert braille(image_with({(1, 0)}))[0][0] == "\u2808"
    assert braille(image_with({(1, 3)}))[0][0] == "\u2880"
    assert braille(image_with({(127, 63)}))[15][63] == "\u2880"


def test_sizes_of_a_rendered_frame() -> None:
    frame = render(Screen("Dice  d6", ("d6  roll 1",), big="4", footer="G roll  R again"))
    rows = halfblocks(frame)
    assert len(rows) == 32 and {len(r) for r in rows} == {128}
    assert decode_halfblocks(rows) == lit(frame)
    cells = braille(frame)
    assert len(cells) == 16 and {len(r) for r in cells} == {64}
    assert decode_braille(cells) == lit(frame)


def test_odd_sizes_are_padded_with_dark_pixels() -> None:
    image = image_with({(0, 4), (2, 4)}, size=(3, 5))
    assert halfblocks(image) == ["   ", "   ", "▀ ▀"]
    assert braille(image) == ["\u2800\u2800", "\u2801\u2801"]


def test_grey_images_are_thresholded() -> None:
    grey = Image.new("L", (2, 2), 0)
    grey.putpixel((0, 0), 200)
    grey.putpixel((1, 0), 60)
    assert halfblocks(grey) == ["▀ "]


@settings(max_examples=40, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 127), st.integers(0, 63)), max_size=300))
def test_text_decodes_back_to_the_same_pixels(pixels: set[tuple[int, int]]) -> None:
    image = image_with(pixels)
    assert decode_halfblocks(halfblocks(image)) == pixels
    assert decode_braille(braille(image)) == pixels
