"""RDM6300: the frame parser (with fuzzing) and the real driver against a fake module on a pty."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import serial
from hypothesis import given
from hypothesis import strategies as st
from readers_support import read_for, read_until

from companion.hal.readers.fake import FakeRdm6300
from companion.hal.readers.rdm6300 import (
    FRAME_LENGTH,
    Rdm6300Driver,
    Rdm6300Parser,
    decode_frame,
    encode_frame,
)

REFERENCE = bytes.fromhex("02 31 34 30 30 38 45 43 37 39 33 43 45 03")
TAG = "14008EC793"
OTHER = "0A1B2C3D4E"

uids = st.integers(0, 2**40 - 1).map(lambda n: f"{n:010X}")


def _valid_uids_in(data: bytes) -> set[str]:
    """Every UID some 14-byte window of ``data`` decodes to."""
    return {
        uid
        for i in range(len(data) - FRAME_LENGTH + 1)
        if (uid := decode_frame(data[i : i + FRAME_LENGTH])) is not None
    }


def test_reference_frame_round_trips() -> None:
    assert encode_frame(TAG) == REFERENCE
    assert decode_frame(REFERENCE) == TAG


def test_lowercase_hex_frame_is_accepted_as_uppercase_uid() -> None:
    assert decode_frame(REFERENCE.lower()) == TAG


def test_two_identical_frames_confirm_the_tag() -> None:
    assert Rdm6300Parser().feed(REFERENCE * 2) == [TAG]


def test_a_single_spurious_frame_yields_nothing() -> None:
    parser = Rdm6300Parser()
    assert parser.feed(REFERENCE) == []
    assert parser.feed(encode_frame(OTHER)) == []


def test_every_frame_after_confirmation_is_reported() -> None:
    assert Rdm6300Parser().feed(REFERENCE * 5) == [TAG] * 4


def test_a_different_frame_restarts_confirmation() -> None:
    stream = REFERENCE * 2 + encode_frame(OTHER) + REFERENCE + REFERENCE
    assert Rdm6300Parser().feed(stream) == [TAG, TAG]


def test_bad_checksum_is_never_reported() -> None:
    broken = bytearray(REFERENCE)
    broken[12] = ord("F")
    assert Rdm6300Parser().feed(bytes(broken) * 4) == []


def test_frames_split_across_reads_still_parse() -> None:
    parser = Rdm6300Parser()
    out: list[str] = []
    for byte in REFERENCE * 3:
        out.extend(parser.feed(bytes([byte])))
    assert out == [TAG, TAG]


def test_stx_inside_a_frame_starts_a_new_candidate() -> None:
    stream = REFERENCE[:7] + REFERENCE * 2
    assert Rdm6300Parser().feed(stream) == [TAG]


def test_encode_frame_rejects_a_uid_that_is_not_ten_hex_digits() -> None:
    with pytest.raises(ValueError, match="'8EC793'"):
        encode_frame("8EC793")


@given(st.binary(max_size=400))
def test_random_bytes_only_yield_checksum_valid_uids(data: bytes) -> None:
    out = Rdm6300Parser().feed(data)
    assert set(out) <= _valid_uids_in(data)


def _mutate(data: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    buf = bytearray(data)
    for kind, position, value in edits:
        if not buf:
            break
        index = position % len(buf)
        if kind == 0:
            buf[index] = value
        elif kind == 1:
            buf.insert(index, value)
        else:
            del buf[index]
    return bytes(buf)


@given(
    st.lists(uids, min_size=1, max_size=6),
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10_000), st.integers(0, 255)), max_size=8),
)
def test_mutated_frames_only_yield_checksum_valid_uids(
    tags: list[str], edits: list[tuple[int, int, int]]
) -> None:
    stream = _mutate(b"".join(encode_frame(t) * 2 for t in tags), edits)
    out = Rdm6300Parser().feed(stream)
    assert set(out) <= _valid_uids_in(stream)


@given(st.binary(max_size=200), uids, st.lists(st.integers(1, 40), max_size=6))
def test_resynchronises_within_one_frame_after_garbage(
    garbage: bytes, tag: str, cuts: list[int]
) -> None:
    stream = garbage + encode_frame(tag) * 2
    whole = Rdm6300Parser().feed(stream)
    assert whole[-1:] == [tag]
    parser = Rdm6300Parser()
    pieces: list[str] = []
    rest = stream
    for cut in cuts:
        pieces.extend(parser.feed(rest[:cut]))
        rest = rest[cut:]
    pieces.extend(parser.feed(rest))
    assert pieces == whole


@pytest.fixture
def module() -> Iterator[FakeRdm6300]:
    fake = FakeRdm6300()
    yield fake
    fake.close()


@pytest.fixture
def driver(module: FakeRdm6300) -> Iterator[Rdm6300Driver]:
    drv = Rdm6300Driver(module.path, read_window=0.1)
    drv.open()
    yield drv
    drv.close()


def test_driver_reads_a_tag_from_the_fake_module(
    module: FakeRdm6300, driver: Rdm6300Driver
) -> None:
    assert driver.describe() == "RDM6300"
    module.write_frames(TAG, 3)
    assert read_until(driver, 2) == [TAG, TAG]


def test_driver_ignores_one_spurious_frame(module: FakeRdm6300, driver: Rdm6300Driver) -> None:
    module.write_frames(OTHER, 1)
    assert read_for(driver, 0.25) == []


def test_driver_resynchronises_after_line_noise(module: FakeRdm6300, driver: Rdm6300Driver) -> None:
    module.write_garbage(b"\x02\x31\x34\xff\x00\x03noise" + REFERENCE[:9])
    module.write_frames(TAG, 2)
    assert read_until(driver, 1) == [TAG]


def test_a_read_waits_at_most_its_window_when_nothing_arrives(driver: Rdm6300Driver) -> None:
    started = time.monotonic()
    assert driver.read_uids() == []
    # Its window (0.1 s), not a wait for a frame that never comes: the bound is a guard, wide
    # enough for a loaded machine (0.43 s was seen at load 12), not a pace.
    assert time.monotonic() - started < driver.read_window * 20


def test_cancel_cuts_a_long_read_short(module: FakeRdm6300) -> None:
    """As the PN532's: once cancelled, long before its window, whatever the machine's pace."""
    drv = Rdm6300Driver(module.path, read_window=30.0)
    drv.open()
    try:
        cancelled: list[float] = []
        timer = threading.Timer(0.1, lambda: (cancelled.append(time.monotonic()), drv.cancel()))
        timer.start()
        started = time.monotonic()
        assert drv.read_uids() == []
        ended = time.monotonic()
        assert cancelled and cancelled[0] <= ended  # it was the cancel that ended it
        assert ended - started < drv.read_window / 3
        timer.join()
    finally:
        drv.close()


def test_held_tag_keeps_appearing_until_released(
    module: FakeRdm6300, driver: Rdm6300Driver
) -> None:
    module.hold(TAG, interval=0.02)
    assert read_until(driver, 4) == [TAG] * 4
    module.release()
    read_for(driver, 0.1)
    assert read_for(driver, 0.15) == []


def test_unplug_makes_read_raise_serial_exception(
    module: FakeRdm6300, driver: Rdm6300Driver
) -> None:
    module.port.unplug()
    with pytest.raises(serial.SerialException):
        read_for(driver, 0.5)


def test_opening_a_missing_port_raises_serial_exception(tmp_path) -> None:
    drv = Rdm6300Driver(str(tmp_path / "ttyGONE"))
    with pytest.raises(serial.SerialException, match="ttyGONE"):
        drv.open()


def test_reading_a_closed_driver_raises_serial_exception(module: FakeRdm6300) -> None:
    drv = Rdm6300Driver(module.path, read_window=0.1)
    with pytest.raises(serial.SerialException, match="not open"):
        drv.read_uids()
