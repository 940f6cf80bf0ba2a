"""Keys come faster than fingers: a held key's repeat must not queue presses for long after
it is let go, while keys typed at a person's pace all count, in order."""

from hypothesis import given
from hypothesis import strategies as st

from companion.sim.keys import FINGER_INTERVAL, MAX_AHEAD, Pacer, split_keys

SHORT = 0.08


def test_a_held_key_presses_at_most_a_fingers_pace_and_stops_soon_after():
    pacer = Pacer()
    starts = [pacer.admit(i * 1.1 / 200, SHORT) for i in range(200)]  # 200 in 1.1 s
    kept = [s for s in starts if s is not None]
    assert len(kept) <= (1.1 + MAX_AHEAD) / FINGER_INTERVAL + 1
    assert max(kept) <= 1.1 + MAX_AHEAD  # nothing runs on long after the key is let go
    assert pacer.dropped == 200 - len(kept)


def test_keys_at_a_persons_pace_all_count_in_order():
    pacer = Pacer()
    starts = [pacer.admit(i * 0.2, SHORT) for i in range(20)]
    assert None not in starts and starts == sorted(starts)


def test_two_keys_typed_together_both_count():
    pacer = Pacer()
    assert pacer.admit(0.0, SHORT) == 0.0
    assert pacer.admit(0.001, SHORT) == FINGER_INTERVAL


@given(st.lists(st.floats(min_value=0, max_value=0.5, allow_subnormal=False), max_size=300))
def test_presses_never_overlap_nor_wait_long(gaps):
    pacer, now, last_end = Pacer(), 0.0, 0.0
    for gap in gaps:
        now += gap
        start = pacer.admit(now, SHORT)
        if start is not None:
            assert start >= last_end and start <= now + MAX_AHEAD  # as admit adds them
            last_end = start + SHORT


def test_arrow_keys_stay_whole():
    assert split_keys("\x1b[Ag\x1bOBq") == ["\x1b[A", "g", "\x1bOB", "q"]
