"""What an SSD1306 holds, rebuilt from the I2C writes i2c-record recorded (make hwtest).

Each write message starts with a control byte: 0x00, the rest are commands; 0x40, the rest is
display data for the GDDRAM at the address pointer. The pointer moves as the chip's datasheet
says for the mode luma sets (horizontal addressing within the column and page windows); page
addressing (0xB0.., 0x00.., 0x10..) is followed too, so any driver's writes rebuild the same.
"""

from __future__ import annotations

import copy
import struct
from dataclasses import dataclass, field

WIDTH, HEIGHT, PAGES = 128, 64, 8
HEAD = struct.Struct("<QHH")  # i2c-record: CLOCK_MONOTONIC ns, address, length

# Commands with arguments: how many bytes follow the command byte.
ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2, 0x81: 1,
        0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}  # fmt: skip


@dataclass(frozen=True)
class Write:
    t_ns: int
    address: int
    data: bytes


def parse_records(blob: bytes) -> tuple[list[Write], bytes]:
    """The whole records in BLOB, and what is left of a record cut short."""
    writes: list[Write] = []
    at = 0
    while at + HEAD.size <= len(blob):
        t_ns, address, length = HEAD.unpack_from(blob, at)
        if at + HEAD.size + length > len(blob):
            break
        writes.append(Write(t_ns, address, blob[at + HEAD.size : at + HEAD.size + length]))
        at += HEAD.size + length
    return writes, blob[at:]


@dataclass
class Ssd1306:
    ram: bytearray = field(default_factory=lambda: bytearray(WIDTH * PAGES))
    on: bool = False
    mode: int = 2  # page addressing after reset
    col_start: int = 0
    col_end: int = WIDTH - 1
    page_start: int = 0
    page_end: int = PAGES - 1
    col: int = 0
    page: int = 0
    data_bytes: int = 0

    def feed(self, data: bytes) -> None:
        """One I2C write message to the panel."""
        if not data:
            return
        control, rest = data[0], data[1:]
        if control & 0x40:
            self._data(rest)
        else:
            self._commands(rest)

    def _commands(self, cmds: bytes) -> None:
        i = 0
        while i < len(cmds):
            cmd = cmds[i]
            args = cmds[i + 1 : i + 1 + ARGS.get(cmd, 0)]
            i += 1 + ARGS.get(cmd, 0)
            if cmd == 0xAE:
                self.on = False
            elif cmd == 0xAF:
                self.on = True
            elif cmd == 0x20 and args:
                self.mode = args[0] & 3
            elif cmd == 0x21 and len(args) == 2:
                self.col_start, self.col_end = args[0] & 0x7F, args[1] & 0x7F
                self.col = self.col_start
            elif cmd == 0x22 and len(args) == 2:
                self.page_start, self.page_end = args[0] & 7, args[1] & 7
                self.page = self.page_start
            elif 0xB0 <= cmd <= 0xB7:
                self.page = cmd & 7
            elif cmd <= 0x0F:
                self.col = (self.col & 0xF0) | cmd
            elif 0x10 <= cmd <= 0x1F:
                self.col = (self.col & 0x0F) | ((cmd & 0x0F) << 4)

    def _data(self, data: bytes) -> None:
        for byte in data:
            self.ram[self.page * WIDTH + (self.col % WIDTH)] = byte
            self.data_bytes += 1
            if self.mode == 2:  # page addressing: the column wraps within the page
                self.col = (self.col + 1) % WIDTH
                continue
            if self.col < self.col_end:
                self.col += 1
                continue
            self.col = self.col_start
            self.page = self.page + 1 if self.page < self.page_end else self.page_start

    def pixels(self) -> list[list[int]]:
        """The GDDRAM as rows of 0/1, y down, x right (rotate 0: as luma's image)."""
        return [
            [(self.ram[(y // 8) * WIDTH + x] >> (y % 8)) & 1 for x in range(WIDTH)]
            for y in range(HEIGHT)
        ]


def ram_of(pixels: list[list[int]]) -> bytearray:
    """The GDDRAM that shows PIXELS (rows of 0/1, rotate 0)."""
    ram = bytearray(WIDTH * PAGES)
    for y, row in enumerate(pixels):
        for x, bit in enumerate(row):
            ram[(y // 8) * WIDTH + x] |= bit << (y % 8)
    return ram


def frame_done_at(before: Ssd1306, writes: list[Write], want: list[list[int]]) -> int | None:
    """The stamp of the write that completed WANT on a panel that was BEFORE (its RAM and
    address pointers) and then took WRITES: the one with the frame's last changed byte, from
    when the panel shows it; None if it never did (or showed it already)."""
    panel, ram = copy.deepcopy(before), ram_of(want)
    if panel.ram == ram:
        return None  # nothing to draw: no write made it
    for w in writes:
        panel.feed(w.data)
        if panel.ram == ram:
            return w.t_ns
    return None


def image_pixels(image: object) -> list[list[int]]:
    """A PIL image (mode "1" or any) as rows of 0/1."""
    mono = image.convert("1")  # type: ignore[attr-defined]
    width, height = mono.size
    data = mono.load()
    return [[1 if data[x, y] else 0 for x in range(width)] for y in range(height)]


def differing(a: list[list[int]], b: list[list[int]]) -> int:
    """How many of the pixels differ (every pixel of a row that one side lacks counts)."""
    total = 0
    for y in range(max(len(a), len(b))):
        row_a = a[y] if y < len(a) else []
        row_b = b[y] if y < len(b) else []
        for x in range(max(len(row_a), len(row_b))):
            total += (row_a[x] if x < len(row_a) else 2) != (row_b[x] if x < len(row_b) else 2)
    return total
