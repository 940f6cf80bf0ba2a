"""A recording I2C bus under luma's drivers, and the two controllers' RAM as their datasheets
describe them: what the panel would hold after the writes, to compare pixel for pixel.

``Bus`` stands in for luma's i2c serial interface (``command``/``data``) and records each
message as the wire has it (control byte first: 0x00 commands, 0x40 data). It can fail like a
panel that dropped off the bus (OSError 121) after a number of messages.

The datasheets leave one thing open: whether a column nibble command changes the nibble of the
pointer as it stands (moved on by the data written) or loads the pointer from the two nibbles
last sent. The models follow the first and keep the second alongside (``col_sent``): a data
byte written where the two disagree marks the writes ``ambiguous`` (a driver relying on one
reading of the chip).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field

WIDTH, HEIGHT, PAGES = 128, 64, 8
BLOCK = 4096  # luma's i2c.data sends this much per message on a managed bus (i2c_rdwr)


class Bus:
    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.fail_after: int | None = None  # messages still taken before the panel is gone
        self.listeners: list = []

    def _write(self, message: bytes) -> None:
        if self.fail_after is not None:
            if self.fail_after <= 0:
                raise OSError(errno.EREMOTEIO, "Remote I/O error")
            self.fail_after -= 1
        self.messages.append(message)
        for listener in self.listeners:
            listener.feed(message)

    def command(self, *cmd: int) -> None:
        self._write(bytes([0x00, *cmd]))

    def data(self, data: bytes | list[int]) -> None:
        data = bytes(data)
        for at in range(0, len(data), BLOCK):
            self._write(bytes([0x40]) + data[at : at + BLOCK])

    def cleanup(self) -> None:
        pass

    def taken(self) -> int:
        return sum(len(m) for m in self.messages)


def _nibble(col: int, nibbles: list[int], cmd: int) -> tuple[int, int]:
    """A column nibble command (0x00-0x0F low, 0x10-0x1F high): the pointer with that nibble
    changed, and the pointer loaded from the two nibbles last sent."""
    high = cmd >> 4
    nibbles[high] = cmd & 0x0F
    col = (col & 0x0F) | (nibbles[1] << 4) if high else (col & 0xF0) | nibbles[0]
    return col, nibbles[0] | nibbles[1] << 4


# Commands followed by arguments, and how many (SSD1306 datasheet, section 9).
SSD1306_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2, 0x81: 1,
                0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}  # fmt: skip
# SH1106: every command is one byte but these double-byte ones (and luma's 0x8D with its 0x14).
SH1106_ARGS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1, 0x8D: 1}


@dataclass
class Ssd1306Ram:
    """128x8 pages; page addressing after reset, horizontal/vertical with column and page
    windows once 0x20 selects them."""

    ram: bytearray = field(default_factory=lambda: bytearray(WIDTH * PAGES))
    mode: int = 2
    col_start: int = 0
    col_end: int = WIDTH - 1
    page_start: int = 0
    page_end: int = PAGES - 1
    col: int = 0
    page: int = 0
    nibbles: list[int] = field(default_factory=lambda: [0, 0])  # the low and high last sent
    col_sent: int = 0  # the pointer, were it loaded from the nibbles last sent
    ambiguous: bool = False

    def feed(self, message: bytes) -> None:
        if message[0] & 0x40:
            for byte in message[1:]:
                self.ambiguous |= self.mode == 2 and self.col != self.col_sent
                self._put(byte)
                self.col_sent = self.col
            return
        cmds, i = message[1:], 0
        while i < len(cmds):
            cmd, n = cmds[i], SSD1306_ARGS.get(cmds[i], 0)
            args = cmds[i + 1 : i + 1 + n]
            i += 1 + n
            if cmd == 0x20:
                self.mode = args[0] & 3
            elif cmd == 0x21:
                self.col_start, self.col_end = args[0] & 0x7F, args[1] & 0x7F
                self.col = self.col_sent = self.col_start
            elif cmd == 0x22:
                self.page_start, self.page_end = args[0] & 7, args[1] & 7
                self.page = self.page_start
            elif self.mode == 2 and 0xB0 <= cmd <= 0xB7:
                self.page = cmd & 7
            elif self.mode == 2 and cmd <= 0x1F:
                self.col, self.col_sent = _nibble(self.col, self.nibbles, cmd)

    def _put(self, byte: int) -> None:
        self.ram[self.page * WIDTH + self.col] = byte
        if self.mode == 2:
            self.col = (self.col + 1) % WIDTH
        elif self.mode == 0:
            if self.col < self.col_end:
                self.col += 1
            else:
                self.col = self.col_start
                self.page = self.page + 1 if self.page < self.page_end else self.page_start
        else:
            if self.page < self.page_end:
                self.page += 1
            else:
                self.page = self.page_start
                self.col = self.col + 1 if self.col < self.col_end else self.col_start

    def visible(self) -> bytes:
        return bytes(self.ram)


SH1106_COLUMNS = 132


@dataclass
class Sh1106Ram:
    """132x8 pages, page addressing only: a page (0xB0..), a column (low and high nibble);
    the column moves on by one per byte and stays at the last one (no wrap to a page)."""

    offset: int = 2  # the 128 visible columns start here in RAM (luma's page_address_offset)
    ram: bytearray = field(default_factory=lambda: bytearray(SH1106_COLUMNS * PAGES))
    col: int = 0
    page: int = 0
    nibbles: list[int] = field(default_factory=lambda: [0, 0])
    col_sent: int = 0
    ambiguous: bool = False

    def feed(self, message: bytes) -> None:
        if message[0] & 0x40:
            for byte in message[1:]:
                self.ambiguous |= self.col != self.col_sent
                self.ram[self.page * SH1106_COLUMNS + self.col] = byte
                self.col = self.col_sent = min(self.col + 1, SH1106_COLUMNS - 1)
            return
        cmds, i = message[1:], 0
        while i < len(cmds):
            cmd = cmds[i]
            i += 1 + SH1106_ARGS.get(cmd, 0)
            if 0xB0 <= cmd <= 0xB7:
                self.page = cmd & 7
            elif cmd <= 0x1F:
                self.col, self.col_sent = _nibble(self.col, self.nibbles, cmd)

    def visible(self) -> bytes:
        start = self.offset
        return b"".join(
            self.ram[p * SH1106_COLUMNS + start : p * SH1106_COLUMNS + start + WIDTH]
            for p in range(PAGES)
        )


def model_for(driver: str) -> Ssd1306Ram | Sh1106Ram:
    return Ssd1306Ram() if driver == "ssd1306" else Sh1106Ram()
