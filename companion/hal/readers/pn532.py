"""PN532 NFC reader in HSU (high-speed UART) mode at 115200 baud.

Information frames are ``00 00 FF LEN LCS TFI data... DCS 00``; the chip ACKs every host frame
before it answers. With no card near, the chip itself waits for one: InListPassiveTarget with
unlimited passive activation retries answers only when a card comes, so the host just listens
(one wake-up a second, not ten polls). Once a card lies on the antenna the retries are made
finite and the host polls, to see the card leave; then the chip waits again. Stopping aborts a
pending command with an ACK. After any abort the driver resynchronises on a fresh command's
answer, so an answer that crossed the abort on the wire is dropped, never taken as the next
poll's.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Literal

import serial

from companion.core.values import value
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
# CfgItem 5 (MaxRetries): MxRtyATR 0xFF, MxRtyPSL 1, then MxRtyPassiveActivation:
# 0xFF -> InListPassiveTarget waits in the chip until a card comes (no card, no answer);
RF_WAIT_FOR_CARD = b"\x05\xff\x01\xff"
# 1 -> it answers at once, card or not (used while a card lies on the antenna).
RF_MAX_RETRIES = b"\x05\xff\x01\x01"
# One target at 106 kbps type A (ISO/IEC 14443 A).
ONE_TYPE_A_TARGET = b"\x01\x00"

SLICE = 0.02
COMMAND_TIMEOUT = 0.5
POLL_TIMEOUT = 0.15
POLL_INTERVAL = 0.05  # while a card lies: a card laid 0.1 s after it is always polled
WAIT_WINDOW = 1.0  # how long one read_uids listens for the chip's answer with no card near
RESYNC_QUIET = 0.1  # a frame's rest not come after this long: its length was garbage
REARM_SECONDS = 30.0  # a wait this old is aborted and re-sent: a chip that reset answers nothing
UID_LENGTHS = (4, 7, 10)
CONFIRM_READS = 2  # agreeing reads a new UID needs (docs/performance.md, "PN532 false cards")


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


@value
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

    def resync(self) -> list[Pn532Frame]:
        """Gives up on the unfinished frame at the head (nothing more came: its length was
        garbage and it would swallow the real frames behind it) and scans what follows."""
        if self._buffer.startswith(START):
            del self._buffer[: len(START)]
        return self.feed(b"")

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


# SENS_RES (ATQA) bits 8-7 give the UID size: single, double or triple (ISO/IEC 14443-3).
UID_SIZE_CODES = {0: 4, 1: 7, 2: 10}
CASCADE_TAG = 0x88  # never the first byte of a complete UID
SAK_CASCADE = 0x04  # set while the UID is not complete
SAK_ISO14443_4 = 0x20  # the target speaks ISO/IEC 14443-4: the chip adds its ATS


def target_problem(data: bytes) -> str | None:
    """What does not agree in an InListPassiveTarget answer (the bytes after ``D5 4B``) that
    reports a card, or None when every field does: one target, target number 1, SENS_RES with
    one anticollision bit and the UID size of the NFCID length (4, 7 or 10), a SEL_RES of a
    complete UID, no cascade tag in front, and the frame exactly as long as all that (plus the
    ATS a 14443-4 target adds). The frame checksums are 8-bit sums: two bit flips that cancel
    pass them, and these checks are what stands between such a frame and a false card."""
    if len(data) < 6:
        return "too short"
    targets, number, sens_hi, sens_lo, sel_res, length = data[:6]
    if targets != 1 or number != 1:
        return f"{targets} targets, number {number} (asked for one)"
    if sens_hi & 0xF0 or sens_lo & 0x20:
        return f"SENS_RES {sens_hi:02X}{sens_lo:02X} with bits that must be 0 set"
    anticollision = sens_lo & 0x1F
    if anticollision & (anticollision - 1) or not anticollision:
        return f"SENS_RES {sens_hi:02X}{sens_lo:02X} without exactly one anticollision bit"
    if UID_SIZE_CODES.get(sens_lo >> 6) != length:
        return f"SENS_RES {sens_hi:02X}{sens_lo:02X} does not give a UID of {length} bytes"
    if sel_res & SAK_CASCADE:
        return f"SEL_RES {sel_res:02X} says the UID is not complete"
    end = 6 + length
    if len(data) < end or data[6] == CASCADE_TAG:
        return "the NFCID is cut short or starts with the cascade tag"
    if sel_res & SAK_ISO14443_4:
        if len(data) <= end or data[end] < 1:
            return "a 14443-4 target without its ATS"
        end += data[end]
    if len(data) != end:
        return f"{len(data)} bytes where the fields make {end}"
    return None


def parse_target_uid(data: bytes) -> list[str]:
    """The UID in an InListPassiveTarget answer (the bytes after ``D5 4B``), if a card is there
    and every field of the answer agrees (``target_problem``); else none.

    Layout: number of targets, target number, SENS_RES (2), SEL_RES, UID length, UID[, ATS].
    """
    if data == b"\x00":
        return []
    problem = target_problem(data)
    if problem is not None:
        logger.debug("PN532 target answer dropped (%s): %s", problem, data.hex())
        return []
    return [data[6 : 6 + data[5]].hex().upper()]


class Confirmation:
    """A new UID counts only once two reads in a row give it in the very same answer (the
    card's SENS_RES, SEL_RES and ATS too: a card answers alike every time); the card already
    reported stays reported while every read gives its UID. Two reads must then be damaged in
    the same way to make a false card (docs/performance.md, "PN532 false cards"). Pure: the
    driver feeds it each read and the bench feeds it noise."""

    def __init__(self, reads: int = CONFIRM_READS) -> None:
        self.reads = reads  # agreeing reads a new UID needs
        self.reported: str | None = None
        self.candidate: tuple[str, bytes] | None = None
        self.count = 0

    def seen(self, uids: list[str], answer: bytes = b"") -> list[str]:
        """What to report for one read: its UIDs (none, or one) and the answer they came in."""
        if not uids:
            self.reported = self.candidate = None
            return []
        uid = uids[0]
        if uid == self.reported:
            self.candidate = None
            return [uid]
        if (uid, answer) == self.candidate:
            self.count += 1
        else:
            self.candidate, self.count = (uid, answer), 1
        if self.count >= self.reads:
            self.reported, self.candidate = uid, None
            return [uid]
        return []

    @property
    def pending(self) -> bool:
        """A UID waits for its confirming read."""
        return self.candidate is not None


class Pn532Driver:
    """A PN532 on a serial port in HSU mode."""

    kind = "pn532"

    def __init__(
        self,
        port: str,
        baudrate: int = BAUDRATE,
        poll_interval: float = POLL_INTERVAL,
        poll_timeout: float = POLL_TIMEOUT,
        wait_window: float = WAIT_WINDOW,
        rearm_seconds: float = REARM_SECONDS,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.poll_interval = poll_interval
        self.poll_timeout = poll_timeout
        self.wait_window = wait_window
        self.rearm_seconds = rearm_seconds
        self.firmware: tuple[int, int, int] | None = None
        self._serial: serial.Serial | None = None
        self._parser = Pn532FrameParser()
        self._closing = threading.Event()
        self._waiting_since: float | None = None  # an InListPassiveTarget waits in the chip
        self._card_on = False  # a card lay on the antenna at the last look: poll for it
        self._damaged = 0  # frames dropped for bad checksums, so far
        self._confirm = Confirmation()  # a new UID is reported on its second read

    def open(self) -> None:
        """Wakes the chip, selects normal SAM mode, reads the firmware, lets the chip wait."""
        self.close()
        self._closing.clear()
        self._waiting_since = None
        self._card_on = False
        self._confirm = Confirmation()
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
            self._require(RF_CONFIGURATION, RF_WAIT_FOR_CARD, "RFConfiguration")
        except BaseException:
            self.close()
            raise

    def read_uids(self) -> list[str]:
        """With no card: listens up to ``wait_window`` for the chip to find one. With a card:
        polls once (polls are spaced ``poll_interval`` apart) to see whether it is still there."""
        if self._card_on:
            return self._poll()
        return self._wait_for_card()

    def cancel(self) -> None:
        """Cut a wait short (from another thread), so stopping is immediate."""
        self._closing.set()
        port = self._serial
        if port is not None:
            port.cancel_read()

    def close(self) -> None:
        """Aborts a command still waiting in the chip (an ACK), then closes the port."""
        self._closing.set()
        port, self._serial = self._serial, None
        if port is not None and self._waiting_since is not None:
            try:
                port.write(ACK)
            except OSError as exc:
                logger.debug("PN532 on %s: abort on close failed: %s", self.port, exc)
        self._waiting_since = None
        close_quietly(port, self.port)

    def describe(self) -> str:
        if self.firmware is None:
            return "PN532"
        _, version, revision = self.firmware
        return f"PN532 firmware {version}.{revision}"

    def _wait_for_card(self) -> list[str]:
        """Idle: one InListPassiveTarget waits in the chip; the host sleeps in a read."""
        if self._waiting_since is None:
            self._send_command(IN_LIST_PASSIVE_TARGET, ONE_TYPE_A_TARGET)
            self._waiting_since = time.monotonic()
        damaged = self._damaged
        answer = self._listen(IN_LIST_PASSIVE_TARGET, self.wait_window, self.wait_window)
        if self._closing.is_set():
            return []
        if answer is None:
            # A damaged frame may have been the answer; a long wait may be one a chip that
            # reset has forgotten. Either way: abort (which proves the chip answers), re-arm.
            old = time.monotonic() - self._waiting_since >= self.rearm_seconds
            if old or self._damaged != damaged:
                self._abort()
            return []
        self._waiting_since = None
        uids = parse_target_uid(answer)
        self._confirm.seen(uids, answer)
        if not uids:
            return []
        self._card_on = True
        self._require(RF_CONFIGURATION, RF_MAX_RETRIES, "RFConfiguration")
        return self._poll(pace=False)  # the confirming read, at once

    def _poll(self, pace: bool = True) -> list[str]:
        """A card lies on the antenna: poll once, answered at once, card or not. A UID not
        yet confirmed is not reported, and the next poll (its confirming read) follows at once;
        ``pace``: a reported card's polls are spaced ``poll_interval`` apart."""
        started = time.monotonic()
        answer = self._exchange(IN_LIST_PASSIVE_TARGET, ONE_TYPE_A_TARGET, self.poll_timeout)
        if self._closing.is_set():
            return []
        if answer is None:  # a chip that waits anyway (or a lost frame): the card is taken as gone
            self._abort()
        uids = parse_target_uid(answer) if answer is not None else []
        reported = self._confirm.seen(uids, answer or b"")
        if not uids:
            self._card_on = False
            self._require(RF_CONFIGURATION, RF_WAIT_FOR_CARD, "RFConfiguration")
            return []
        remaining = self.poll_interval - (time.monotonic() - started)
        if pace and reported and remaining > 0:
            self._closing.wait(remaining)
        return reported

    def _require(self, command: int, params: bytes, name: str) -> bytes:
        answer = self._exchange(command, params, COMMAND_TIMEOUT)
        if answer is None:
            raise serial.SerialException(f"no answer to {name} from a PN532 on {self.port}")
        return answer

    def _exchange(self, command: int, params: bytes, timeout: float) -> bytes | None:
        """Sends one command; the answer's data, or None if the chip stays silent or fails."""
        self._send_command(command, params)
        return self._listen(command, timeout, SLICE)

    def _send_command(self, command: int, params: bytes) -> None:
        self._write(command_frame(command, params))

    def _listen(self, command: int, timeout: float, read_timeout: float) -> bytes | None:
        """The data of the answer to ``command`` within ``timeout``; other frames are dropped.

        ``read_timeout`` is how long one read may sleep waiting for a byte: short while a
        command is answered, long while the chip waits for a card.
        """
        deadline = last_byte = time.monotonic()
        deadline += timeout
        while time.monotonic() < deadline and not self._closing.is_set():
            data = self._read_chunk(read_timeout)
            if data:
                last_byte = time.monotonic()
                frames = self._parser.feed(data)
            elif time.monotonic() - last_byte >= RESYNC_QUIET:
                frames = self._parser.resync()
            else:
                continue
            for frame in frames:
                if frame.kind != "data":
                    if frame.kind == "error":
                        self._damaged += 1
                        logger.debug("PN532 frame dropped: %s", frame.reason)
                    continue
                if frame.payload[:2] == bytes([CHIP_TFI, command + 1]):
                    return frame.payload[2:]
                if frame.payload[:1] == bytes([ERROR_FRAME_CODE]):
                    logger.warning("PN532 on %s refused command 0x%02X", self.port, command)
                    return None
                logger.debug("PN532 stale or unexpected frame dropped: %s", frame.payload.hex())
        if not self._closing.is_set() and read_timeout == SLICE:
            logger.debug("PN532 on %s: no answer to 0x%02X in %.2f s", self.port, command, timeout)
        return None

    def _abort(self) -> None:
        """An ACK from the host cancels the chip's pending command. Then a fresh command's
        answer marks where the stream is clean: an answer the chip had already sent when the
        ACK came (a card that arrived just then) is read and dropped before it, never taken
        as the answer to a later poll. A chip that does not answer is lost."""
        self._write(ACK)
        self._waiting_since = None
        self._require(GET_FIRMWARE_VERSION, b"", "GetFirmwareVersion after an abort")

    def _read_chunk(self, read_timeout: float) -> bytes:
        port = self._require_open()
        if port.timeout != read_timeout:
            port.timeout = read_timeout
        return read_chunk(port, f"PN532 on {self.port}")

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
