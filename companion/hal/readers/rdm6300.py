"""RDM6300 (125 kHz) reader: a transmit-only module sending 14-byte ASCII frames at 9600 baud.

Frame: 0x02, 10 hex characters (version byte + 4-byte tag), 2 hex characters of checksum (XOR of
the 5 decoded bytes), 0x03. Cheap modules emit spurious IDs that still pass the checksum, so a
tag counts only after two identical valid frames in a row.
"""

from __future__ import annotations

import logging
from functools import reduce
from operator import xor

import serial

from companion.hal.readers.port import close_quietly, read_chunk

logger = logging.getLogger(__name__)

STX = 0x02
ETX = 0x03
FRAME_LENGTH = 14
BAUDRATE = 9600
READ_WINDOW = 1.0  # the module speaks only when a tag is near; cancel() cuts a wait short

_HEX_BYTES = frozenset(b"0123456789ABCDEFabcdef")


def checksum(uid_bytes: bytes) -> int:
    """XOR of the decoded version and tag bytes, as the module computes it."""
    return reduce(xor, uid_bytes, 0)


def encode_frame(uid10: str) -> bytes:
    """The frame an RDM6300 sends for a 10-hex-digit UID (version + tag)."""
    if len(uid10) != 10 or any(c not in "0123456789ABCDEFabcdef" for c in uid10):
        raise ValueError(f"RDM6300 UID {uid10!r} must be 10 hex digits")
    text = uid10.upper()
    check = checksum(bytes.fromhex(text))
    return bytes([STX]) + f"{text}{check:02X}".encode("ascii") + bytes([ETX])


def decode_frame(frame: bytes) -> str | None:
    """The UID in one complete 14-byte frame, or None when it is malformed or fails the checksum."""
    if len(frame) != FRAME_LENGTH or frame[0] != STX or frame[-1] != ETX:
        return None
    body = frame[1:-1]
    if any(b not in _HEX_BYTES for b in body):
        return None
    text = body.decode("ascii").upper()
    data = bytes.fromhex(text[:10])
    if checksum(data) != int(text[10:], 16):
        return None
    return text[:10]


class Rdm6300Parser:
    """Turns a byte stream into confirmed tag reads, one per accepted frame.

    Any 0x02 starts a new candidate frame, so the parser resynchronises within one frame after
    garbage. Bytes that break a frame are dropped; they do not reset the confirmation, only a
    different valid frame does.
    """

    def __init__(self) -> None:
        self._frame: bytearray | None = None
        self._candidate: str | None = None

    def reset(self) -> None:
        self._frame = None
        self._candidate = None

    def feed(self, data: bytes) -> list[str]:
        uids: list[str] = []
        for byte in data:
            if byte == STX:
                self._frame = bytearray([STX])
                continue
            if self._frame is None:
                continue
            self._frame.append(byte)
            if len(self._frame) < FRAME_LENGTH:
                if byte not in _HEX_BYTES:
                    self._frame = None
                continue
            uid = decode_frame(bytes(self._frame))
            self._frame = None
            if uid is None:
                logger.debug("RDM6300 frame dropped: bad terminator or checksum")
                continue
            if uid == self._candidate:
                uids.append(uid)
            self._candidate = uid
        return uids


class Rdm6300Driver:
    """An RDM6300 on a serial port; no initialisation, it talks as soon as a tag is near."""

    kind = "rdm6300"

    def __init__(self, port: str, baudrate: int = BAUDRATE, read_window: float = READ_WINDOW):
        self.port = port
        self.baudrate = baudrate
        self.read_window = read_window
        self._serial: serial.Serial | None = None
        self._parser = Rdm6300Parser()

    def open(self) -> None:
        self.close()
        self._serial = serial.Serial(self.port, self.baudrate, timeout=self.read_window)
        self._serial.reset_input_buffer()
        self._parser.reset()

    def read_uids(self) -> list[str]:
        """Waits up to one window for the first byte, then takes everything already buffered."""
        return self._parser.feed(read_chunk(self._require_open(), f"RDM6300 on {self.port}"))

    def cancel(self) -> None:
        """Unblock a read in progress (from another thread), so stopping is immediate."""
        port = self._serial
        if port is not None:
            port.cancel_read()

    def close(self) -> None:
        port, self._serial = self._serial, None
        close_quietly(port, self.port)

    def describe(self) -> str:
        return "RDM6300"

    def _require_open(self) -> serial.Serial:
        if self._serial is None:
            raise serial.SerialException(f"RDM6300 port {self.port} is not open")
        return self._serial
