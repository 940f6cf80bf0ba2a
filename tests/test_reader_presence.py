"""Presence: reads become one tap per arrival and one removal per departure, on the app's clock."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.hal.readers.runner import Presence

A = "14008EC793"
B = "0A1B2C3D4E"


def test_arrival_is_one_tap_and_silence_is_removal() -> None:
    p = Presence(silence=0.5)
    assert p.deadline() is None
    assert p.seen(A, 0.0) == [("tap", A)]
    assert p.seen(A, 0.3) == []
    assert p.deadline() == pytest.approx(0.8)
    assert p.expire(0.79) == []
    assert p.expire(0.8) == [("removed", A)]
    assert p.current is None
    assert p.deadline() is None
    assert p.expire(5.0) == []


def test_a_card_left_on_the_reader_never_taps_again() -> None:
    p = Presence(silence=0.5)
    events = []
    for step in range(600):
        now = step * 0.1
        events += p.expire(now)
        events += p.seen(A, now)
    assert events == [("tap", A)]


def test_a_different_card_replaces_the_present_one() -> None:
    p = Presence()
    p.seen(A, 0.0)
    assert p.seen(B, 0.1) == [("removed", A), ("tap", B)]
    assert p.current == B
    assert p.deadline() == pytest.approx(0.6)


def test_same_card_after_the_silence_is_a_new_tap_even_without_expire() -> None:
    p = Presence(silence=0.5)
    p.seen(A, 0.0)
    assert p.seen(A, 0.5) == [("removed", A), ("tap", A)]


def test_silence_must_be_positive() -> None:
    with pytest.raises(ValueError, match="silence"):
        Presence(silence=0)


steps = st.lists(
    st.tuples(
        st.sampled_from(["seen", "expire"]),
        st.sampled_from([A, B, "04A1B2C3"]),
        st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.49, 0.5, 0.51, 2.0]),
    ),
    max_size=60,
)


@given(steps)
def test_presence_state_machine(script: list[tuple[str, str, float]]) -> None:
    silence = 0.5
    p = Presence(silence=silence)
    now = 0.0
    present: str | None = None
    for op, uid, dt in script:
        now += dt
        before_uid, before_deadline = p.current, p.deadline()
        assert before_uid == present
        events = p.seen(uid, now) if op == "seen" else p.expire(now)
        for kind, card in events:
            if kind == "tap":
                assert present is None, "a tap only when the reader is free"
                present = card
            else:
                assert kind == "removed"
                assert card == present, "only the present card is removed"
                present = None
        assert p.current == present
        overdue = before_deadline is not None and now >= before_deadline
        if op == "seen":
            arrives = before_uid != uid or overdue
            assert (("tap", uid) in events) == arrives
            assert events.count(("tap", uid)) <= 1
            assert p.current == uid
            assert p.deadline() == pytest.approx(now + silence)
        else:
            assert events == ([("removed", before_uid)] if overdue else [])
            if not overdue:
                assert p.deadline() == before_deadline
