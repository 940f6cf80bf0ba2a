"""Serial port chores both drivers share: reading what arrived, closing without fuss."""

from __future__ import annotations

import logging

import serial

logger = logging.getLogger(__name__)


def read_chunk(port: serial.Serial, name: str) -> bytes:
    """Wait up to the port's timeout for a first byte, then take all that is buffered.

    Any OS error is reported as a SerialException naming the reader, so the runner treats it
    as an unplugged reader and reopens it.
    """
    try:
        data = port.read(1)
        if data and (waiting := port.in_waiting):
            data += port.read(waiting)
    except serial.SerialException:
        raise
    except OSError as exc:
        raise serial.SerialException(f"{name}: {exc}") from exc
    return data


def close_quietly(port: serial.Serial | None, name: str) -> None:
    """Close a port that may already be gone (an unplugged reader): log, never raise."""
    if port is None:
        return
    try:
        port.close()
    except OSError as exc:
        logger.debug("closing %s: %s", name, exc)
