"""Fake card readers that speak the real wire protocols over a pty.

Tests, the simulator and replay use these so the real drivers always run: the driver opens the
pty's slave path with pyserial exactly as it opens /dev/serial0, and the fake device writes to
(and reads from) the master side. Closing the master is what an unplug looks like to pyserial.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import math
import os
import random
import select
import threading
import tty

from companion.hal.readers import pn532
from companion.hal.readers.rdm6300 import encode_frame

logger = logging.getLogger(__name__)

WRITE_STALL_TIMEOUT = 0.5
HOLD_INTERVAL = 0.1
FIRMWARE = (0x32, 1, 6, 0x07)


class PtyPort:
    """A pty pair standing in for a UART; ``path`` is what the driver opens.

    The master is non-blocking: when nobody reads the port, writes stall for at most
    ``stall_timeout`` seconds and the rest is dropped, as bytes on an unread UART are lost.
    With ``link``, the port is a USB serial adapter: ``path`` is that symlink to the pty, which
    ``unplug`` removes as the kernel removes /dev/ttyUSB0; a new PtyPort with the same link is
    the adapter plugged back.
    """

    def __init__(
        self, stall_timeout: float = WRITE_STALL_TIMEOUT, link: str | os.PathLike[str] | None = None
    ) -> None:
        self.stall_timeout = stall_timeout
        self._master: int | None
        self._master, self._slave = os.openpty()
        tty.setraw(self._master)
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.path = os.ttyname(self._slave)
        self._link: str | None = None
        if link is not None:
            self._link = os.fspath(link)
            staged = f"{self._link}.plugging"
            os.symlink(self.path, staged)
            os.replace(staged, self._link)
            self.path = self._link
        self._wake_r, self._wake_w = os.pipe()
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._closed = False

    @property
    def unplugged(self) -> bool:
        return self._master is None

    def write(self, data: bytes) -> int:
        """Sends ``data`` to the driver; returns how many bytes went out."""
        sent = 0
        with self._write_lock:
            view = memoryview(data)
            while sent < len(data):
                with self._lock:
                    fd = self._master
                    if fd is None:
                        raise OSError(errno.EIO, f"fake port {self.path} is unplugged")
                    try:
                        sent += os.write(fd, view[sent:])
                        continue
                    except BlockingIOError:
                        pass
                _, ready, _ = select.select([self._wake_r], [fd], [], self.stall_timeout)
                if not ready:
                    logger.debug(
                        "fake port %s: nobody reads, %d bytes lost", self.path, len(data) - sent
                    )
                    break
        return sent

    def read_available(self, timeout: float = 0.0) -> bytes:
        """What the driver has written so far, waiting up to ``timeout`` for the first byte.

        Returns b"" once the port is unplugged or closed.
        """
        with self._lock:
            fd = self._master
        if fd is None:
            return b""
        ready, _, _ = select.select([fd, self._wake_r], [], [], timeout)
        with self._lock:
            if self._master is None or fd not in ready:
                return b""
            try:
                return os.read(fd, 4096)
            except (BlockingIOError, InterruptedError):
                return b""
            except OSError as exc:
                logger.debug("fake port %s: %s", self.path, exc)
                return b""

    def wake(self) -> None:
        """Interrupts any ``read_available`` wait, for a fake device that is shutting down."""
        if not self._closed:
            os.write(self._wake_w, b"\x00")

    def unplug(self) -> None:
        """Closes the master: the driver's next read or write fails as on a pulled cable."""
        with self._lock:
            fd, self._master = self._master, None
            if fd is None:
                return
            if self._link is not None:
                with contextlib.suppress(FileNotFoundError):
                    if os.readlink(self._link) == os.ttyname(self._slave):  # not a newer plug's
                        os.unlink(self._link)
            # Wake waiters before the fd number can be reused by anything else.
            os.write(self._wake_w, b"\x00")
            os.close(fd)

    def close(self) -> None:
        self.unplug()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            os.close(self._slave)
            os.close(self._wake_r)
            os.close(self._wake_w)

    def __enter__(self) -> PtyPort:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FakeRdm6300:
    """An RDM6300 module: it only ever transmits frames.

    ``hold`` and ``release`` may be called from different threads (the simulator's keys and its
    loop): one lock makes each a whole step, so a release can never forget a hold that another
    thread has just started (that transmitter would go on sending its tag for ever: the box
    stuck on one card).
    """

    def __init__(self, port: PtyPort | None = None) -> None:
        self.port = port or PtyPort()
        self._hold_lock = threading.Lock()
        self._holding: threading.Event | None = None
        self._hold_thread: threading.Thread | None = None
        self._held: str | None = None

    @property
    def path(self) -> str:
        return self.port.path

    @property
    def held(self) -> str | None:
        """The tag the module is sending over and over now, if any."""
        return self._held

    @staticmethod
    def frame(uid10: str) -> bytes:
        return encode_frame(uid10)

    def write_frames(self, uid: str, n: int = 2) -> None:
        self.port.write(encode_frame(uid) * n)

    def write_garbage(self, data: bytes) -> None:
        self.port.write(data)

    def hold(self, uid: str, interval: float = HOLD_INTERVAL) -> None:
        """Keeps sending ``uid`` every ``interval`` seconds, as a module does while a tag rests."""
        frame = encode_frame(uid)
        with self._hold_lock:
            self._stop_holding()
            stop = threading.Event()

            def transmit() -> None:
                while not stop.is_set():
                    try:
                        self.port.write(frame)
                    except OSError:
                        return
                    stop.wait(interval)

            self._holding, self._held = stop, uid
            self._hold_thread = threading.Thread(target=transmit, name="fake-rdm6300", daemon=True)
            self._hold_thread.start()

    def release(self) -> None:
        with self._hold_lock:
            self._stop_holding()

    def _stop_holding(self) -> None:
        """Called with the hold lock held."""
        if self._holding is not None and self._hold_thread is not None:
            self._holding.set()
            self._hold_thread.join(timeout=2.0)
        self._holding = None
        self._hold_thread = None
        self._held = None

    def close(self) -> None:
        self.release()
        self.port.close()


class FakePn532:
    """A PN532 in HSU mode: ACKs host frames and answers the commands our driver sends.

    Like the chip, it ignores frames before the 0x55 wake-up, drops frames with a bad length
    checksum, NACKs frames with a bad data checksum, resends its last answer on a host NACK and
    treats a host ACK as "abort the pending command". InListPassiveTarget with no card near
    waits in the chip while the passive activation retries are 0xFF (after a reset, or set so
    by RFConfiguration; always with ``ignore_rf_configuration``) and is answered the moment a
    card arrives; with finite retries it answers at once, "no target".
    """

    def __init__(
        self,
        port: PtyPort | None = None,
        firmware: tuple[int, int, int, int] = FIRMWARE,
        ignore_rf_configuration: bool = False,
    ) -> None:
        self.port = port or PtyPort()
        self.firmware = firmware
        self.ignore_rf_configuration = ignore_rf_configuration
        self.commands: list[int] = []
        self._uid: bytes | None = None
        self._awake = False
        self._passive_retries = 0xFF
        self._poll_pending = False
        self._crossing: bytes | None = None
        self._misreads: list[bytes] = []
        self._hung = False
        self._last_answer = b""
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._parser = pn532.Pn532FrameParser()
        self._thread = threading.Thread(target=self._serve, name="fake-pn532", daemon=True)
        self._thread.start()

    @property
    def path(self) -> str:
        return self.port.path

    def present(self, uid_hex: str) -> None:
        """Puts a card with this UID (4, 7 or 10 bytes) on the antenna."""
        uid = _nfc_uid(uid_hex)
        with self._lock:
            self._uid = uid
            if self._poll_pending:
                self._set_pending(False)
                self._send(self._target_answer(uid))

    def remove(self) -> None:
        with self._lock:
            self._uid = None

    def misread(self, uid_hex: str, times: int = 1) -> None:
        """The next ``times`` answers that report a card report ``uid_hex`` instead, with
        valid checksums: bit flips on the line that cancel in the 8-bit sums."""
        with self._lock:
            self._misreads = [_nfc_uid(uid_hex)] * times

    @property
    def held(self) -> str | None:
        """The UID of the card on the antenna now, if any (upper-case hex)."""
        with self._lock:
            return None if self._uid is None else self._uid.hex().upper()

    @property
    def waiting(self) -> bool:
        """An InListPassiveTarget waits in the chip for a card."""
        with self._lock:
            return self._poll_pending

    def wait_until(self, waiting: bool, timeout: float) -> bool:
        """Blocks until a poll waits in the chip (or no longer does); False after ``timeout``."""
        with self._changed:
            return self._changed.wait_for(lambda: self._poll_pending == waiting, timeout)

    def arrive_during_abort(self, uid_hex: str) -> None:
        """A card that passes just as the host aborts the waiting poll: the chip's answer is
        already on the wire when the host's ACK arrives, and the card is gone after it."""
        uid = _nfc_uid(uid_hex)
        with self._lock:
            self._crossing = uid

    def hang(self) -> None:
        """The chip stops answering anything (a brown-out with the UART still wired); a poll
        that was waiting in it is forgotten."""
        with self._lock:
            self._hung = True
            self._set_pending(False)

    def close(self) -> None:
        self._stop.set()
        self.port.wake()
        self._thread.join(timeout=2.0)
        self.port.close()

    def _serve(self) -> None:
        while not self._stop.is_set() and not self.port.unplugged:
            data = self.port.read_available(timeout=0.5)
            if not data:
                continue
            with self._lock:
                if self._hung:
                    continue
                if not self._awake and 0x55 in data:
                    self._awake = True
                for frame in self._parser.feed(data):
                    try:
                        self._handle(frame)
                    except OSError:
                        return

    def _handle(self, frame: pn532.Pn532Frame) -> None:
        if not self._awake:
            return
        if frame.kind == "ack":
            if self._poll_pending and self._crossing is not None:
                self._send(self._target_answer(self._crossing))
                self._crossing = None
            self._set_pending(False)
            return
        if frame.kind == "nack":
            if self._last_answer:
                self._send(self._last_answer)
            return
        if frame.kind == "error":
            if frame.payload:
                self.port.write(pn532.NACK)
            return
        if len(frame.payload) < 2 or frame.payload[0] != pn532.HOST_TFI:
            return
        command, params = frame.payload[1], frame.payload[2:]
        self.commands.append(command)
        self.port.write(pn532.ACK)
        self._set_pending(False)
        if command == pn532.SAM_CONFIGURATION:
            self._send(pn532.response_frame(command))
        elif command == pn532.GET_FIRMWARE_VERSION:
            self._send(pn532.response_frame(command, bytes(self.firmware)))
        elif command == pn532.RF_CONFIGURATION:
            if params[:1] == b"\x05" and len(params) >= 4 and not self.ignore_rf_configuration:
                self._passive_retries = params[3]
            self._send(pn532.response_frame(command))
        elif command == pn532.IN_LIST_PASSIVE_TARGET:
            if self._uid is None and self._passive_retries == 0xFF:
                self._set_pending(True)
            else:
                self._send(self._target_answer(self._uid))
        else:
            self._send(pn532.build_frame(bytes([pn532.ERROR_FRAME_CODE])))

    def _set_pending(self, pending: bool) -> None:
        """Called with the lock held."""
        self._poll_pending = pending
        self._changed.notify_all()

    def _target_answer(self, uid: bytes | None) -> bytes:
        if uid is not None and self._misreads:
            uid = self._misreads.pop()
        return target_answer(uid)

    def _send(self, frame: bytes) -> None:
        self._last_answer = frame
        self.port.write(frame)


# SENS_RES and SEL_RES as common tags give them: MIFARE Classic 1K (4-byte UID), NTAG/Ultralight
# (7 bytes); a triple-size UID (10 bytes) with the same anticollision bit.
_SENS_SEL = {4: (b"\x00\x04", 0x08), 7: (b"\x00\x44", 0x00), 10: (b"\x00\x84", 0x00)}


def target_answer(uid: bytes | None) -> bytes:
    """The chip's whole answer frame to InListPassiveTarget: the card ``uid``, or none."""
    if uid is None:
        return pn532.response_frame(pn532.IN_LIST_PASSIVE_TARGET, b"\x00")
    sens_res, sel_res = _SENS_SEL[len(uid)]
    data = b"\x01\x01" + sens_res + bytes([sel_res, len(uid)]) + uid
    return pn532.response_frame(pn532.IN_LIST_PASSIVE_TARGET, data)


def _nfc_uid(uid_hex: str) -> bytes:
    uid = bytes.fromhex(uid_hex)
    if len(uid) not in pn532.UID_LENGTHS:
        raise ValueError(f"NFC UID {uid_hex!r} must be 4, 7 or 10 bytes")
    return uid


# --- a noisy line: what the PN532's answers may look like after the UART ----------------------


def flip_bits(data: bytes, rate: float, rng: random.Random) -> bytes:
    """``data`` with each bit flipped with probability ``rate`` (independent bit errors)."""
    if rate <= 0:
        return data
    out = bytearray(data)
    bits = len(out) * 8
    # The gap to the next flipped bit is geometric: as many draws as flips, not as bits.
    scale = 1 / math.log1p(-rate) if rate < 1 else 0.0
    position = -1
    while True:
        position += 1 + (int(math.log(1.0 - rng.random()) * scale) if scale else 0)
        if position >= bits:
            return bytes(out)
        out[position // 8] ^= 0x80 >> (position % 8)


def fuzz(data: bytes, rng: random.Random) -> bytes:
    """``data`` damaged one to four times over: bits flipped, bytes changed, dropped, doubled
    or added, the stream cut or garbage around it (a loose wire, a noisy supply, a bad baud)."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(8)
        at = rng.randrange(len(out) + 1)
        if kind == 0:
            for _ in range(rng.randint(1, 8)):
                if out:
                    out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        elif kind == 1 and out:
            out[at % len(out)] = rng.randrange(256)
        elif kind == 2:
            out[at:at] = rng.randbytes(rng.randint(1, 4))
        elif kind == 3:
            del out[at : at + rng.randint(1, 4)]
        elif kind == 4:
            out[at:at] = out[max(0, at - rng.randint(1, 8)) : at]
        elif kind == 5:
            del out[at:]
        elif kind == 6:
            out[0:0] = rng.randbytes(rng.randint(1, 20))
        elif len(out) > 1:
            i, j = rng.randrange(len(out)), rng.randrange(len(out))
            out[i], out[j] = out[j], out[i]
    return bytes(out)


def random_uid(rng: random.Random) -> bytes:
    """A UID as tags have them: 4, 7 or 10 bytes, never starting with the cascade tag."""
    uid = bytearray(rng.randbytes(rng.choice(pn532.UID_LENGTHS)))
    if uid[0] == pn532.CASCADE_TAG:
        uid[0] = 0x04
    return bytes(uid)
