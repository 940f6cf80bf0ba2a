"""What every card reader driver offers the runner, and how users write card UIDs.

A driver is a thin layer over pyserial that speaks one chip's wire protocol. The runner owns the
thread and the reconnects, so a driver stays a plain blocking object that can be tested against a
fake device over a pty.
"""

from __future__ import annotations

import string
from typing import Protocol

from companion.hal.readers.pn532 import Pn532Driver
from companion.hal.readers.rdm6300 import Rdm6300Driver

READER_KINDS = ("rdm6300", "pn532")

RDM6300_UID_CHARS = 10
PN532_MIN_UID_BYTES = 4
PN532_MAX_UID_BYTES = 10
NFC_UID_BYTES = (4, 7, 10)  # ISO/IEC 14443-3 single, double and triple size

_SEPARATORS = str.maketrans("", "", ":-._ \t")
_HEX_DIGITS = frozenset(string.hexdigits)


class ReaderDriver(Protocol):
    """One card reader on one serial port.

    ``read_uids`` blocks for a bounded window (at most about a second) and returns one entry
    per confirmed read, so a card held on the reader keeps appearing; the presence state
    machine turns those reads into taps. An unplugged port raises ``serial.SerialException``.
    A driver may offer ``cancel()`` to cut a blocked read short from another thread.
    """

    kind: str

    def open(self) -> None: ...

    def read_uids(self) -> list[str]: ...

    def close(self) -> None: ...

    def describe(self) -> str: ...


def make_driver(kind: str, port: str) -> ReaderDriver:
    """The driver for a configured reader kind ("rdm6300" or "pn532") on ``port``."""
    if kind == "rdm6300":
        return Rdm6300Driver(port)
    if kind == "pn532":
        return Pn532Driver(port)
    raise ValueError(
        f"unknown card reader type {kind!r}: expected one of {', '.join(READER_KINDS)}"
    )


def canonical_uid(text: str, kind: str) -> str:
    """The UID as the driver of ``kind`` reports it, from what a user typed.

    Separators (``:``, ``-``, ``.``, ``_``, spaces) are dropped and letters uppercased, so
    "14:00:8e:c7:93" and "14008EC793" name the same card. RDM6300 UIDs are left-padded to 10
    hex digits because labels often omit the leading version byte's zeros.
    """
    if kind not in READER_KINDS:
        raise ValueError(
            f"unknown card reader type {kind!r}: expected one of {', '.join(READER_KINDS)}"
        )
    digits = text.translate(_SEPARATORS)
    if not digits:
        raise ValueError(f"card UID {text!r} is empty")
    bad = sorted({c for c in digits if c not in _HEX_DIGITS})
    if bad:
        raise ValueError(
            f"card UID {text!r} is not hexadecimal (unexpected {', '.join(map(repr, bad))})"
        )
    digits = digits.upper()
    if kind == "rdm6300":
        if len(digits) > RDM6300_UID_CHARS:
            raise ValueError(
                f"card UID {text!r} has {len(digits)} hex digits; an RDM6300 tag has at most "
                f"{RDM6300_UID_CHARS}"
            )
        return digits.rjust(RDM6300_UID_CHARS, "0")
    if len(digits) % 2:
        digits = "0" + digits
    n_bytes = len(digits) // 2
    if n_bytes not in NFC_UID_BYTES:
        raise ValueError(
            f"card UID {text!r} is {n_bytes} bytes; an NFC card UID is 4, 7 or 10 bytes"
        )
    return digits
