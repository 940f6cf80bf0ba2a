"""PN532 NFC reader in HSU (high-speed UART) mode at 115200 baud.

Information frames are ``00 00 FF LEN LCS TFI data... DCS 00``; the chip ACKs every host frame
before it answers. Polling for a card waits forever by default, so ``open`` lowers the passive
activation retries and ``read_uids`` still keeps its own deadline, aborts with an ACK and
resynchronises if the chip does not answer in time.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Literal

import serial

from companion.hal.readers.port import close_quietly, read_chunk

logger = logging.getLogger(__name__)

BAUDRATE = 115200
START = b"\x00\x00\xff"
ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
WAKE_UP = b"\x55\x55" + bytes(14)
HOST_TFI = 0xD4
CHIP_TFI = 0xD5
ERROR_FRAME_CODE = 0x7F

GET_FIRMWARE_VERSION = 0x02
SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_LIST_PASSIVE_TARGET = 0x4A

SAM_NORMAL_MODE = b"\x01"
# CfgItem 5 (MaxRetries): ATR_RES 0xFF, PSL_RES 1, passive activation 1 -> answers promptly.
RF_MAX_RETRIES = b"\x05\xff\x01\x01"
# One target at 106 kbps type A (ISO/IEC 14443 A).
ONE_TYPE_A_TARGET = b"\x01\x00"

SLICE = 0.02
COMMAND_TIMEOUT = 0.5
POLL_TIMEOUT = 0.15
POLL_INTERVAL = 0.1
UID_LENGTHS = (4, 7, 10)


def build_frame(payload: bytes) -> bytes:
    """An information frame around ``payload`` (TFI first, then command and parameters)."""
    if not 1 <= len(payload) <= 254:
        raise ValueError(f"PN532 frame payload must be 1..254 bytes, not {len(payload)}")
    length = len(payload)
    return (
        START + bytes([length, (-length) & 0xFF]) + payload + bytes([(-sum(payload)) & 0xFF, 0x00])
    )


def command_frame(command: int, params: bytes = b"") -> bytes:
    """A host-to-chip frame for ``command``."""
    return build_frame(bytes([HOST_TFI, command]) + params)


def response_frame(command: int, data: bytes = b"") -> bytes:
    """The chip's answer frame to ``command`` (reply code = command + 1)."""
    return build_frame(bytes([CHIP_TFI, command + 1]) + data)


@dataclass(frozen=True)
class Pn532Frame:
    """One frame found in the byte stream; ``error`` frames failed a checksum."""

    kind: Literal["ack", "nack", "data", "error"]
    payload: bytes = b""
    reason: str = ""


class Pn532FrameParser:
    """Finds frames in a byte stream, resynchronising on ``00 00 FF`` after garbage.

    A frame whose length checksum fails is reported as an error and scanning resumes right after
    its start code, so a start code inside garbage costs at most one frame.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()

    def reset(self) -> None:
        self._buffer.clear()

    def feed(self, data: bytes) -> list[Pn532Frame]:
        self._buffer.extend(data)
        frames: list[Pn532Frame] = []
        while True:
            start = self._buffer.find(START)
            if start < 0:
                # Keep a possible partial start code for the next chunk.
                del self._buffer[: max(0, len(self._buffer) - (len(START) - 1))]
                return frames
            del self._buffer[:start]
            if len(self._buffer) < 5:
                return frames
            length, lcs = self._buffer[3], self._buffer[4]
            if length == 0x00 and lcs == 0xFF:
                frames.append(Pn532Frame("ack"))
                del self._buffer[:5]
                continue
            if length == 0xFF and lcs == 0x00:
                frames.append(Pn532Frame("nack"))
                del self._buffer[:5]
                continue
            if (length + lcs) & 0xFF or length == 0:
                frames.append(Pn532Frame("error", reason=f"bad length checksum {length}/{lcs}"))
                del self._buffer[: len(START)]
                continue
            end = 5 + length + 1
            if len(self._buffer) < end:
                return frames
            payload = bytes(self._buffer[5 : 5 + length])
            dcs = self._buffer[5 + length]
            if (sum(payload) + dcs) & 0xFF:
                frames.append(Pn532Frame("error", payload, reason="bad data checksum"))
                del self._buffer[: len(START)]
                continue
            frames.append(Pn532Frame("data", payload))
            del self._buffer[:end]


def parse_target_uid(data: bytes) -> list[str]:
    """The UID in an InListPassiveTarget answer (the bytes after ``D5 4B``), if a card is there.

    Layout: number of targets, target number, SENS_RES (2), SEL_RES, UID length, UID.
    """
    if not data or data[0] == 0:
        return []
    if len(data) < 6:
        logger.warning("PN532 target answer too short: %s", data.hex())
        return []
    uid_length = data[5]
    uid = data[6 : 6 + uid_length]
    if uid_length not in UID_LENGTHS or len(uid) != uid_length:
        logger.warning("PN532 target answer with a bad UID: %s", data.hex())
        return []
    return [uid.hex().upper()]


class Pn532Driver:
    """A PN532 on a serial port in HSU mode."""

    kind = "pn532"

    def __init__(
        self,
        port: str,
        baudrate: int = BAUDRATE,
        poll_interval: float = POLL_INTERVAL,
        poll_timeout: float = POLL_TIMEOUT,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.poll_interval = poll_interval
        self.poll_timeout = poll_timeout
        self.firmware: tuple[int, int, int] | None = None
        self._serial: serial.Serial | None = None
        self._parser = Pn532FrameParser()
        self._closing = threading.Event()

    def open(self) -> None:
        """Wakes the chip, selects normal SAM mode, reads the firmware and shortens polling."""
        self.close()
        self._closing.clear()
        self._serial = serial.Serial(self.port, self.baudrate, timeout=SLICE)
        try:
            self._serial.reset_input_buffer()
            self._parser.reset()
            self._write(WAKE_UP)
            self._require(SAM_CONFIGURATION, SAM_NORMAL_MODE, "SAMConfiguration")
            version = self._require(GET_FIRMWARE_VERSION, b"", "GetFirmwareVersion")
            if len(version) < 3:
                raise serial.SerialException(
                    f"PN532 on {self.port} sent a short firmware version: {version.hex()}"
                )
            self.firmware = (version[0], version[1], version[2])
            if version[0] != 0x32:
                logger.warning("chip on %s reports IC 0x%02X, not a PN532", self.port, version[0])
            self._require(RF_CONFIGURATION, RF_MAX_RETRIES, "RFConfiguration")
        except BaseException:
            self.close()
            raise

    def read_uids(self) -> list[str]:
        """Polls once for a type A card; polls are spaced ``poll_interval`` apart."""
        started = time.monotonic()
        answer = self._exchange(IN_LIST_PASSIVE_TARGET, ONE_TYPE_A_TARGET, self.poll_timeout)
        if answer is None:
            self._abort()
            return []
        uids = parse_target_uid(answer)
        remaining = self.poll_interval - (time.monotonic() - started)
        if remaining > 0:
            self._closing.wait(remaining)
        return uids

    def close(self) -> None:
        self._closing.set()
        port, self._serial = self._serial, None
        close_quietly(port, self.port)

    def describe(self) -> str:
        if self.firmware is None:
            return "PN532"
        _, version, revision = self.firmware
        return f"PN532 firmware {version}.{revision}"

    def _require(self, command: int, params: bytes, name: str) -> bytes:
        answer = self._exchange(command, params, COMMAND_TIMEOUT)
        if answer is None:
            raise serial.SerialException(f"no answer to {name} from a PN532 on {self.port}")
        return answer

    def _exchange(self, command: int, params: bytes, timeout: float) -> bytes | None:
        """Sends one command; the answer's data, or None if the chip stays silent or fails."""
        self._write(command_frame(command, params))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for frame in self._parser.feed(self._read_chunk()):
                if frame.kind != "data":
                    if frame.kind == "error":
                        logger.debug("PN532 frame dropped: %s", frame.reason)
                    continue
                if frame.payload[:2] == bytes([CHIP_TFI, command + 1]):
                    return frame.payload[2:]
                if frame.payload[:1] == bytes([ERROR_FRAME_CODE]):
                    logger.warning("PN532 on %s refused command 0x%02X", self.port, command)
                    return None
                logger.debug("PN532 unexpected frame: %s", frame.payload.hex())
        logger.debug("PN532 on %s: no answer to 0x%02X in %.2f s", self.port, command, timeout)
        return None

    def _abort(self) -> None:
        """An ACK from the host cancels the chip's pending command; then start clean."""
        self._write(ACK)
        port = self._require_open()
        try:
            port.reset_input_buffer()
        except OSError as exc:
            raise serial.SerialException(f"PN532 on {self.port}: {exc}") from exc
        self._parser.reset()

    def _read_chunk(self) -> bytes:
        return read_chunk(self._require_open(), f"PN532 on {self.port}")

    def _write(self, data: bytes) -> None:
        port = self._require_open()
        try:
            port.write(data)
        except serial.SerialException:
            raise
        except OSError as exc:
            raise serial.SerialException(f"PN532 on {self.port}: {exc}") from exc

    def _require_open(self) -> serial.Serial:
        if self._serial is None:
            raise serial.SerialException(f"PN532 port {self.port} is not open")
        return self._serial
