"""Card UIDs as users type them, and choosing a driver by reader kind."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.hal.readers.base import canonical_uid, make_driver
from companion.hal.readers.pn532 import Pn532Driver
from companion.hal.readers.rdm6300 import Rdm6300Driver


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("8ec793", "rdm6300", "00008EC793"),
        ("14:00:8E:C7:93", "rdm6300", "14008EC793"),
        ("14008ec793", "rdm6300", "14008EC793"),
        ("04 a1 b2 c3", "pn532", "04A1B2C3"),
        ("4a1b2c3", "pn532", "04A1B2C3"),
        ("04-A1-B2-C3-D4-E5-F6", "pn532", "04A1B2C3D4E5F6"),
        (" 04.a1.b2.c3 ", "pn532", "04A1B2C3"),
    ],
)
def test_canonical_uid_examples(text: str, kind: str, expected: str) -> None:
    assert canonical_uid(text, kind) == expected


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("", "rdm6300", "empty"),
        (" : ", "pn532", "empty"),
        ("8ec7g3", "rdm6300", "not hexadecimal"),
        ("0x8ec793", "rdm6300", "not hexadecimal"),
        ("14008EC7931", "rdm6300", "at most 10"),
        ("a1b2c3", "pn532", "3 bytes"),
        ("00" * 11, "pn532", "11 bytes"),
        ("0A0B0C0D0E", "pn532", "5 bytes; an NFC card UID is 4, 7 or 10 bytes"),
        ("8ec793", "mifare", "unknown card reader type"),
    ],
)
def test_canonical_uid_rejects_bad_input_naming_it(text: str, kind: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        canonical_uid(text, kind)
    named = kind if message == "unknown card reader type" else text
    assert repr(named) in str(caught.value)


def _spell(data: bytes, separator: str, lower: bool) -> str:
    return separator.join(f"{b:02x}" if lower else f"{b:02X}" for b in data)


@given(
    st.sampled_from([4, 7, 10]).flatmap(lambda n: st.binary(min_size=n, max_size=n)),
    st.sampled_from(["", ":", " ", "-"]),
    st.booleans(),
)
def test_pn532_uid_spellings_agree(data: bytes, separator: str, lower: bool) -> None:
    uid = canonical_uid(_spell(data, separator, lower), "pn532")
    assert uid == data.hex().upper()
    assert canonical_uid(uid, "pn532") == uid


@given(st.integers(0, 2**40 - 1), st.booleans())
def test_rdm6300_uid_is_ten_digits_without_leading_zeros_needed(number: int, lower: bool) -> None:
    text = f"{number:x}" if lower else f"{number:X}"
    uid = canonical_uid(text, "rdm6300")
    assert uid == f"{number:010X}"
    assert canonical_uid(uid, "rdm6300") == uid


@given(st.text(max_size=24))
def test_canonical_uid_only_returns_uppercase_hex_or_raises(text: str) -> None:
    for kind in ("rdm6300", "pn532"):
        try:
            uid = canonical_uid(text, kind)
        except ValueError as exc:
            assert str(exc)
        else:
            assert set(uid) <= set("0123456789ABCDEF")
            if kind == "rdm6300":
                assert len(uid) == 10
            else:
                assert len(uid) % 2 == 0
                assert 8 <= len(uid) <= 20


def test_make_driver_picks_the_driver_for_the_kind() -> None:
    rdm = make_driver("rdm6300", "/dev/ttyFAKE0")
    pn = make_driver("pn532", "/dev/ttyFAKE1")
    assert isinstance(rdm, Rdm6300Driver)
    assert rdm.kind == "rdm6300"
    assert isinstance(pn, Pn532Driver)
    assert pn.kind == "pn532"


def test_make_driver_rejects_an_unknown_kind() -> None:
    with pytest.raises(ValueError, match="'acr122'"):
        make_driver("acr122", "/dev/ttyUSB0")
