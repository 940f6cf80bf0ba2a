"""The OLED frame as terminal text, for the simulator: two pixels per character cell with
half blocks (128x64 -> 128 columns x 32 rows), or eight with braille (64 x 16)."""

from __future__ import annotations

from PIL import Image

# Index: top pixel * 2 + bottom pixel.
HALF_BLOCKS = " ▄▀█"

# Bit of each dot of a braille cell (Unicode's numbering), by (column, row) in the 2x4 cell.
BRAILLE_BITS = {
    (0, 0): 0x01,
    (0, 1): 0x02,
    (0, 2): 0x04,
    (1, 0): 0x08,
    (1, 1): 0x10,
    (1, 2): 0x20,
    (0, 3): 0x40,
    (1, 3): 0x80,
}
BRAILLE_BLANK = 0x2800


def _rows(image: Image.Image, multiple_x: int, multiple_y: int) -> list[bytes]:
    """The pixels as rows of 0/1 bytes, padded with dark pixels to whole character cells.

    Any image is accepted; a non 1-bit one counts a pixel as lit from half brightness up.
    """
    gray = image.convert("L")
    width, height = gray.size
    data = gray.point(lambda value: 1 if value >= 128 else 0).tobytes()
    padded_width = -(-width // multiple_x) * multiple_x
    rows = [data[y * width : (y + 1) * width] + bytes(padded_width - width) for y in range(height)]
    rows.extend(bytes(padded_width) for _ in range(-height % multiple_y))
    return rows


def halfblocks(image: Image.Image) -> list[str]:
    """One text row per two pixel rows; the upper half block is the upper pixel."""
    rows = _rows(image, 1, 2)
    table = {index: char for index, char in enumerate(HALF_BLOCKS)}
    return [
        bytes(2 * top + bottom for top, bottom in zip(rows[y], rows[y + 1], strict=True))
        .decode("latin-1")
        .translate(table)
        for y in range(0, len(rows), 2)
    ]


def braille(image: Image.Image) -> list[str]:
    """One braille character per 2x4 pixels."""
    rows = _rows(image, 2, 4)
    out = []
    for y in range(0, len(rows), 4):
        band = rows[y : y + 4]
        cells = []
        for x in range(0, len(band[0]), 2):
            code = BRAILLE_BLANK
            for (dx, dy), bit in BRAILLE_BITS.items():
                if band[dy][x + dx]:
                    code |= bit
            cells.append(chr(code))
        out.append("".join(cells))
    return out
