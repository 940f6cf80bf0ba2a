"""PN532 over HSU: frame helpers (with fuzzing), the fake chip, and the real driver over a pty."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import serial
from hypothesis import assume, given
from hypothesis import strategies as st
from readers_support import read_for, read_until

from companion.hal.readers import pn532
from companion.hal.readers.fake import FakePn532, PtyPort
from companion.hal.readers.pn532 import (
    ACK,
    NACK,
    START,
    Pn532Driver,
    Pn532Frame,
    Pn532FrameParser,
    build_frame,
    command_frame,
    parse_target_uid,
    response_frame,
)

SAM_REFERENCE = bytes.fromhex("00 00 FF 03 FD D4 14 01 17 00")
POLL_REFERENCE = bytes.fromhex("00 00 FF 04 FC D4 4A 01 00 E1 00")
RF_RETRIES = bytes.fromhex("00 00 FF 06 FA D4 32 05 FF 01 01 F4 00")
RF_WAIT = bytes.fromhex("00 00 FF 06 FA D4 32 05 FF 01 FF F6 00")
CARD = "04A1B2C3"
OTHER = "04D5E6F7"


def _checksums_hold(frame: Pn532Frame, stream: bytes) -> bool:
    """A data frame came from a contiguous, checksum-valid frame in ``stream``."""
    return build_frame(frame.payload)[:-1] in stream


def test_command_frames_match_the_reference_bytes() -> None:
    assert command_frame(pn532.SAM_CONFIGURATION, b"\x01") == SAM_REFERENCE
    assert command_frame(pn532.IN_LIST_PASSIVE_TARGET, b"\x01\x00") == POLL_REFERENCE
    assert command_frame(pn532.RF_CONFIGURATION, pn532.RF_MAX_RETRIES) == RF_RETRIES
    assert command_frame(pn532.RF_CONFIGURATION, pn532.RF_WAIT_FOR_CARD) == RF_WAIT


def test_build_frame_rejects_empty_and_oversized_payloads() -> None:
    with pytest.raises(ValueError, match="0"):
        build_frame(b"")
    with pytest.raises(ValueError, match="255"):
        build_frame(bytes(255))


def test_parser_finds_ack_nack_and_data() -> None:
    answer = response_frame(pn532.GET_FIRMWARE_VERSION, b"\x32\x01\x06\x07")
    frames = Pn532FrameParser().feed(ACK + answer + NACK)
    assert frames == [
        Pn532Frame("ack"),
        Pn532Frame("data", bytes.fromhex("D5 03 32 01 06 07")),
        Pn532Frame("nack"),
    ]


def test_parser_handles_one_byte_at_a_time() -> None:
    parser = Pn532FrameParser()
    frames: list[Pn532Frame] = []
    for byte in ACK + SAM_REFERENCE:
        frames.extend(parser.feed(bytes([byte])))
    assert frames == [Pn532Frame("ack"), Pn532Frame("data", bytes.fromhex("D4 14 01"))]


def test_parser_reports_bad_length_checksum_and_resyncs() -> None:
    broken = bytearray(SAM_REFERENCE)
    broken[4] = 0xFE
    frames = Pn532FrameParser().feed(bytes(broken) + POLL_REFERENCE)
    assert [f.kind for f in frames] == ["error", "data"]
    assert frames[1].payload == bytes.fromhex("D4 4A 01 00")


def test_parser_reports_bad_data_checksum_and_resyncs() -> None:
    broken = bytearray(SAM_REFERENCE)
    broken[8] ^= 0x01
    frames = Pn532FrameParser().feed(bytes(broken) + POLL_REFERENCE)
    assert [f.kind for f in frames] == ["error", "data"]
    assert frames[0].reason == "bad data checksum"


@given(st.binary(max_size=400))
def test_random_bytes_only_yield_checksum_valid_frames(data: bytes) -> None:
    frames = Pn532FrameParser().feed(data)
    for frame in frames:
        if frame.kind == "data":
            assert _checksums_hold(frame, data)


payloads = st.binary(min_size=1, max_size=40)


@given(
    st.lists(payloads, min_size=1, max_size=5),
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10_000), st.integers(0, 255)), max_size=6),
)
def test_mutated_frames_only_yield_checksum_valid_frames(
    items: list[bytes], edits: list[tuple[int, int, int]]
) -> None:
    buf = bytearray(b"".join(build_frame(p) for p in items))
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
    stream = bytes(buf)
    for frame in Pn532FrameParser().feed(stream):
        if frame.kind == "data":
            assert _checksums_hold(frame, stream)


@given(st.binary(max_size=200), payloads, payloads, st.lists(st.integers(1, 30), max_size=6))
def test_resynchronises_after_garbage_without_a_start_code(
    garbage: bytes, first: bytes, second: bytes, cuts: list[int]
) -> None:
    assume(START not in garbage)
    stream = garbage + build_frame(first) + build_frame(second)
    parser = Pn532FrameParser()
    frames: list[Pn532Frame] = []
    rest = stream
    for cut in cuts:
        frames.extend(parser.feed(rest[:cut]))
        rest = rest[cut:]
    frames.extend(parser.feed(rest))
    assert frames == [Pn532Frame("data", first), Pn532Frame("data", second)]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (bytes.fromhex("00"), []),
        (bytes.fromhex("01 01 00 04 08 04 04A1B2C3"), ["04A1B2C3"]),
        (bytes.fromhex("01 01 00 44 00 07 04A1B2C3D4E5F6"), ["04A1B2C3D4E5F6"]),
        (bytes.fromhex("01 01 00 44 00 07 04A1B2"), []),
        (bytes.fromhex("01 01 00 44 00 05 04A1B2C3D4"), []),
        (bytes.fromhex("01 01"), []),
        (b"", []),
    ],
)
def test_parse_target_uid(answer: bytes, expected: list[str]) -> None:
    assert parse_target_uid(answer) == expected


@given(st.binary(max_size=30))
def test_parse_target_uid_never_raises(answer: bytes) -> None:
    out = parse_target_uid(answer)
    assert len(out) <= 1
    for uid in out:
        assert len(uid) in (8, 14, 20)


@pytest.fixture
def chip() -> Iterator[FakePn532]:
    fake = FakePn532()
    yield fake
    fake.close()


@pytest.fixture
def driver(chip: FakePn532) -> Iterator[Pn532Driver]:
    drv = Pn532Driver(chip.path, poll_interval=0.02, wait_window=0.1)
    drv.open()
    yield drv
    drv.close()


def _polls(chip: FakePn532) -> int:
    return chip.commands.count(pn532.IN_LIST_PASSIVE_TARGET)


def test_open_initialises_the_chip_in_order(chip: FakePn532, driver: Pn532Driver) -> None:
    assert chip.commands[:3] == [
        pn532.SAM_CONFIGURATION,
        pn532.GET_FIRMWARE_VERSION,
        pn532.RF_CONFIGURATION,
    ]
    assert driver.describe() == "PN532 firmware 1.6"
    assert driver.firmware == (0x32, 1, 6)


def test_describe_reports_the_chips_firmware() -> None:
    fake = FakePn532(firmware=(0x32, 2, 3, 0x07))
    drv = Pn532Driver(fake.path)
    try:
        assert drv.describe() == "PN532"
        drv.open()
        assert drv.describe() == "PN532 firmware 2.3"
    finally:
        drv.close()
        fake.close()


def test_with_no_card_the_chip_waits_and_the_host_only_listens(
    chip: FakePn532, driver: Pn532Driver
) -> None:
    started = time.monotonic()
    assert driver.read_uids() == []
    assert time.monotonic() - started < 0.5  # a read returns after its window
    assert read_for(driver, 0.5) == []
    assert _polls(chip) == 1  # one InListPassiveTarget, waiting in the chip all along
    assert chip.waiting


def test_a_card_arriving_while_the_chip_waits_is_read_at_once(chip: FakePn532) -> None:
    drv = Pn532Driver(chip.path, wait_window=5.0)
    drv.open()
    try:
        reads: list[list[str]] = []
        reader = threading.Thread(target=lambda: reads.append(drv.read_uids()))
        reader.start()
        assert chip.wait_until(waiting=True, timeout=1.0)
        arrived = time.monotonic()
        chip.present(CARD)
        reader.join(timeout=2.0)
        assert reads == [[CARD]]
        assert time.monotonic() - arrived < 0.1
    finally:
        drv.close()


def test_the_chip_waits_again_once_the_card_is_gone(chip: FakePn532, driver: Pn532Driver) -> None:
    chip.present(CARD)
    assert read_until(driver, 3) == [CARD] * 3
    assert not chip.waiting  # polled (finite retries) while the card lies on it
    chip.remove()
    assert read_for(driver, 0.3) == []
    assert chip.waiting
    assert chip.commands.count(pn532.RF_CONFIGURATION) == 3  # wait, poll, wait again


@pytest.mark.parametrize("uid", ["04A1B2C3", "04A1B2C3D4E5F6", "04A1B2C3D4E5F60718A9"])
def test_reads_a_present_card(chip: FakePn532, driver: Pn532Driver, uid: str) -> None:
    chip.present(uid)
    assert driver.read_uids() == [uid]


def test_held_card_keeps_appearing_then_goes(chip: FakePn532, driver: Pn532Driver) -> None:
    chip.present(CARD)
    assert read_until(driver, 3) == [CARD] * 3
    chip.remove()
    assert read_for(driver, 0.1) == []


def test_polls_are_paced(chip: FakePn532) -> None:
    drv = Pn532Driver(chip.path, poll_interval=0.05)
    drv.open()
    try:
        chip.present(CARD)
        assert len(read_for(drv, 0.3)) <= 7
    finally:
        drv.close()


@pytest.fixture
def stubborn() -> Iterator[tuple[FakePn532, Pn532Driver]]:
    """A chip that ignores the retries setting: every poll with no card waits for one."""
    fake = FakePn532(ignore_rf_configuration=True)
    drv = Pn532Driver(fake.path, poll_interval=0.02, poll_timeout=0.1, wait_window=0.1)
    drv.open()
    yield fake, drv
    drv.close()
    fake.close()


def test_a_chip_that_ignores_the_retries_still_shows_cards_come_and_go(
    stubborn: tuple[FakePn532, Pn532Driver],
) -> None:
    fake, drv = stubborn
    assert drv.read_uids() == []
    fake.present(CARD)
    assert read_until(drv, 2, timeout=3.0) == [CARD] * 2
    fake.remove()  # the next poll waits in the chip: the host times out and aborts it
    assert read_for(drv, 0.4) == []
    assert fake.waiting


@pytest.mark.parametrize("run", range(3))
def test_an_answer_that_crosses_an_abort_is_never_taken_for_a_later_poll(
    stubborn: tuple[FakePn532, Pn532Driver], run: int
) -> None:
    fake, drv = stubborn
    fake.present(CARD)
    assert read_until(drv, 1, timeout=3.0) == [CARD]
    fake.arrive_during_abort(OTHER)
    fake.remove()
    assert read_for(drv, 0.6) == []  # OTHER passed only as the poll was aborted


def test_a_long_wait_is_renewed_and_a_crossing_answer_dropped(chip: FakePn532) -> None:
    drv = Pn532Driver(chip.path, wait_window=0.05, rearm_seconds=0.2)
    drv.open()
    try:
        assert drv.read_uids() == []
        chip.arrive_during_abort(OTHER)
        assert read_for(drv, 0.6) == []
        assert chip.commands.count(pn532.GET_FIRMWARE_VERSION) >= 2  # open, then each renewal
        assert _polls(chip) >= 2
        chip.present(CARD)
        assert read_until(drv, 1) == [CARD]
    finally:
        drv.close()


def test_a_chip_that_stops_answering_is_lost_at_the_next_renewal(chip: FakePn532) -> None:
    drv = Pn532Driver(chip.path, wait_window=0.05, rearm_seconds=0.2)
    drv.open()
    try:
        assert drv.read_uids() == []
        chip.hang()
        with pytest.raises(serial.SerialException, match="GetFirmwareVersion"):
            read_for(drv, 1.5)
    finally:
        drv.close()


def test_close_aborts_the_waiting_poll(chip: FakePn532) -> None:
    drv = Pn532Driver(chip.path, wait_window=0.05)
    drv.open()
    assert drv.read_uids() == []
    assert chip.wait_until(waiting=True, timeout=1.0)
    drv.close()
    assert chip.wait_until(waiting=False, timeout=1.0)


def test_cancel_cuts_a_long_wait_short(chip: FakePn532) -> None:
    """The wait ends once cancelled, long before its window: at any pace (a loaded machine
    once took 1.9 s here to schedule the cancel and the read's return), so the bound is a
    third of the window, and the cancel must have come before the read ended."""
    drv = Pn532Driver(chip.path, wait_window=30.0)
    drv.open()
    try:
        cancelled: list[float] = []
        timer = threading.Timer(0.1, lambda: (cancelled.append(time.monotonic()), drv.cancel()))
        timer.start()
        started = time.monotonic()
        assert drv.read_uids() == []
        ended = time.monotonic()
        assert cancelled and cancelled[0] <= ended  # it was the cancel that ended it
        assert ended - started < drv.wait_window / 3
        timer.join()
    finally:
        drv.close()


def test_resynchronises_after_garbage_on_the_line(chip: FakePn532, driver: Pn532Driver) -> None:
    chip.present(CARD)
    # A start code with a valid length checksum would swallow the ACK and the answer behind
    # it: when nothing more comes, the driver gives up on it and finds them.
    chip.port.write(b"\x13\x37" + START + b"\x40\xc0\x01\x02")
    assert read_until(driver, 1, timeout=3.0) == [CARD]


def test_a_damaged_answer_while_waiting_renews_the_wait(
    chip: FakePn532, driver: Pn532Driver
) -> None:
    assert driver.read_uids() == []
    broken = bytearray(response_frame(pn532.IN_LIST_PASSIVE_TARGET, b"\x01\x01\x00\x04\x08\x04"))
    broken[-3] ^= 0xFF  # a card's answer, hit by noise
    chip.port.write(bytes(broken))
    assert read_for(driver, 0.3) == []
    assert _polls(chip) == 2  # the wait was aborted and sent again
    chip.present(CARD)
    assert read_until(driver, 1, timeout=3.0) == [CARD]


def test_unplug_makes_read_raise_serial_exception(chip: FakePn532, driver: Pn532Driver) -> None:
    chip.port.unplug()
    with pytest.raises(serial.SerialException):
        read_for(driver, 0.5)


def test_opening_a_missing_port_raises_serial_exception(tmp_path) -> None:
    with pytest.raises(serial.SerialException, match="ttyGONE"):
        Pn532Driver(str(tmp_path / "ttyGONE")).open()


def test_silent_port_fails_open_naming_the_step() -> None:
    with PtyPort() as port:
        drv = Pn532Driver(port.path)
        with pytest.raises(serial.SerialException, match="SAMConfiguration"):
            drv.open()


def _host(path: str) -> serial.Serial:
    return serial.Serial(path, pn532.BAUDRATE, timeout=0.3)


def test_fake_chip_ignores_commands_before_wake_up(chip: FakePn532) -> None:
    with _host(chip.path) as host:
        host.write(SAM_REFERENCE)
        assert host.read(6) == b""
        host.write(pn532.WAKE_UP + SAM_REFERENCE)
        assert host.read(6) == ACK
        assert host.read(9) == response_frame(pn532.SAM_CONFIGURATION)


def test_fake_chip_nacks_a_bad_data_checksum_and_resends_on_nack(chip: FakePn532) -> None:
    with _host(chip.path) as host:
        host.write(pn532.WAKE_UP + command_frame(pn532.GET_FIRMWARE_VERSION))
        answer = response_frame(pn532.GET_FIRMWARE_VERSION, b"\x32\x01\x06\x07")
        assert host.read(6 + len(answer)) == ACK + answer
        broken = bytearray(SAM_REFERENCE)
        broken[8] ^= 0xFF
        host.write(bytes(broken))
        assert host.read(6) == NACK
        host.write(NACK)
        assert host.read(len(answer)) == answer


def test_fake_chip_answers_unknown_commands_with_an_error_frame(chip: FakePn532) -> None:
    with _host(chip.path) as host:
        host.write(pn532.WAKE_UP + command_frame(0x60))
        assert host.read(6) == ACK
        frames = Pn532FrameParser().feed(host.read(8))
        assert frames == [Pn532Frame("data", bytes([pn532.ERROR_FRAME_CODE]))]


def test_fake_chip_rejects_a_uid_of_the_wrong_length(chip: FakePn532) -> None:
    with pytest.raises(ValueError, match="'A1B2C3'"):
        chip.present("A1B2C3")


# --- no false card: every field agrees, and a new UID is read twice -----------------------------

ONE_CARD = bytes.fromhex("01 01 00 04 08 04 04A1B2C3")


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        # the case: target number 01 -> 00 and a UID byte 20 -> 21 keep the checksum
        (bytes.fromhex("01 00 00 04 08 04 04A1B221"), "number 0"),
        (bytes.fromhex("02 01 00 04 08 04 04A1B2C3"), "2 targets"),
        (bytes.fromhex("01 02 00 04 08 04 04A1B2C3"), "number 2"),
        (bytes.fromhex("01 01 00 44 08 04 04A1B2C3"), "does not give a UID of 4 bytes"),
        (bytes.fromhex("01 01 00 04 00 07 04A1B2C3D4E5F6"), "does not give a UID of 7 bytes"),
        (bytes.fromhex("01 01 00 C4 00 0A 04A1B2C3D4E5F60718A9"), "UID of 10 bytes"),
        (bytes.fromhex("01 01 89 04 08 04 04A1B2C3"), "bits that must be 0"),
        (bytes.fromhex("01 01 00 24 08 04 04A1B2C3"), "bits that must be 0"),
        (bytes.fromhex("01 01 00 06 08 04 04A1B2C3"), "exactly one anticollision bit"),
        (bytes.fromhex("01 01 00 00 08 04 04A1B2C3"), "exactly one anticollision bit"),
        (bytes.fromhex("01 01 00 04 0C 04 04A1B2C3"), "not complete"),
        (bytes.fromhex("01 01 00 04 08 04 88A1B2C3"), "cascade tag"),
        (bytes.fromhex("01 01 00 04 08 04 04A1B2C3 00"), "11 bytes where the fields make 10"),
        (bytes.fromhex("01 01 00 04 08 04 04A1B2"), "cut short"),
        (bytes.fromhex("01 01 00 04 28 04 04A1B2C3"), "without its ATS"),
        (bytes.fromhex("01 01 03 44 20 07 04A1B2C3D4E5F6 06 757781"), "where the fields make"),
    ],
)
def test_an_answer_whose_fields_disagree_is_no_card(answer: bytes, why: str) -> None:
    problem = pn532.target_problem(answer)
    assert problem is not None and why in problem
    assert parse_target_uid(answer) == []


def test_a_14443_4_target_with_its_ats_is_read() -> None:
    desfire = bytes.fromhex("01 01 03 44 20 07 04A1B2C3D4E5F6 06 7577810280")
    assert parse_target_uid(desfire) == ["04A1B2C3D4E5F6"]


def _one_bit_pairs(answer: bytes) -> Iterator[bytes]:
    """Every answer with two bits flipped whose byte sums cancel: what the checksums pass."""
    for i in range(len(answer)):
        for j in range(i + 1, len(answer)):
            for bit in range(8):
                a, b = bytearray(answer), bytearray(answer)
                if answer[i] >> bit & 1 == 0 and answer[j] >> bit & 1 == 1:
                    a[i] |= 1 << bit
                    a[j] &= ~(1 << bit) & 0xFF
                    yield bytes(a)
                if answer[i] >> bit & 1 == 1 and answer[j] >> bit & 1 == 0:
                    b[i] &= ~(1 << bit) & 0xFF
                    b[j] |= 1 << bit
                    yield bytes(b)


def test_cancelling_flips_in_the_counts_and_lengths_never_make_a_card() -> None:
    """Two flips that cancel in the checksum, one of them in the number of targets, the target
    number or the NFCID length: always refused. Both inside the UID (the UID itself changed),
    no field can tell: that is what the confirming read is for (below)."""
    refused = 0
    for damaged in _one_bit_pairs(ONE_CARD):
        changed = {i for i, (a, b) in enumerate(zip(damaged, ONE_CARD, strict=True)) if a != b}
        out = parse_target_uid(damaged)
        if changed & {0, 1, 5}:
            assert out == [], damaged.hex()
            refused += 1
        if not changed & set(range(6, 10)):
            assert out in ([], ["04A1B2C3"]), damaged.hex()  # the UID itself was not touched
    assert refused > 50


def test_a_new_uid_needs_the_same_answer_twice() -> None:
    confirm = pn532.Confirmation()
    assert confirm.seen(["04A1B2C3"], b"answer-1") == []
    assert confirm.seen(["04A1B2C3"], b"answer-2") == []  # same UID, other fields: not yet
    assert confirm.seen(["04A1B2C3"], b"answer-2") == ["04A1B2C3"]
    assert confirm.seen(["04A1B2C3"], b"answer-3") == ["04A1B2C3"]  # held: its UID will do


@given(st.lists(st.sampled_from([[], ["04A1B2C3"], ["04A1B2C2"], ["04D5E6F7"]]), max_size=30))
def test_a_uid_is_reported_only_after_two_reads_agree(reads: list[list[str]]) -> None:
    confirm = pn532.Confirmation()
    out = [confirm.seen(read) for read in reads]
    held: list[str] = []  # the card reported last, until a read finds none
    for i, reported in enumerate(out):
        if not reads[i]:
            held = []
        if reported:
            assert reported == reads[i]
            assert (i > 0 and reads[i - 1] == reads[i]) or reported == held
            held = reported
        if i > 0 and reads[i] and reads[i] == reads[i - 1]:
            assert reported == reads[i]  # two agreeing reads always report


def test_a_new_card_is_read_twice_before_it_is_reported(
    chip: FakePn532, driver: Pn532Driver
) -> None:
    chip.present(CARD)
    assert driver.read_uids() == [CARD]
    assert chip.commands.count(pn532.IN_LIST_PASSIVE_TARGET) == 2  # the wait, then the confirm


def test_a_misread_that_passes_the_checksums_is_never_reported(
    chip: FakePn532, driver: Pn532Driver
) -> None:
    chip.misread("04A1B2C2")  # the card's first answer names a UID one bit off
    chip.present(CARD)
    seen = read_until(driver, 2)
    assert "04A1B2C2" not in seen and seen[-1] == CARD


def test_a_misread_while_a_card_lies_there_is_never_reported(
    chip: FakePn532, driver: Pn532Driver
) -> None:
    chip.present(CARD)
    assert driver.read_uids() == [CARD]
    chip.misread("04A1B2C2")
    seen = read_for(driver, 0.3)
    assert "04A1B2C2" not in seen and CARD in seen


def test_the_bench_counts_false_cards_under_noise() -> None:
    from companion.bench import figures as bench

    result = bench.pn532_false_uids(3000, rates=(1e-2,))
    assert result["pn532_noise_streams"] == 3000
    assert result["pn532_false_uids_fuzz_one_read"] > 0  # one read is fooled: the noise bites
    assert result["pn532_false_uids_fuzz_confirmed"] == 0
    assert result["pn532_false_uids_ber_0.01_confirmed"] == 0
    assert result["pn532_unconfirmed_ber_0.01"] > 0
