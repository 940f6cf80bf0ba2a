"""Pairing a phone: the code on the OLED, the limits on wrong codes, tokens kept only as hashes."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from companion.web import pairing
from companion.web.pairing import NOT_PAIRED, Pairing, parse_code, parse_token, token_hash


class Clocks:
    def __init__(self) -> None:
        self.mono = 1000.0
        self.wall = 1_700_000_000.0

    def tick(self, seconds: float) -> None:
        self.mono += seconds
        self.wall += seconds


def make(tmp_path: Path, clocks: Clocks, codes=(123456,), events=None) -> Pairing:
    queue = list(codes)
    tokens = iter(hashlib.sha256(bytes([n])).hexdigest() for n in range(1, 100))
    return Pairing(
        tmp_path,
        clock=lambda: clocks.mono,
        wall=lambda: clocks.wall,
        randbelow=lambda n: queue.pop(0) % n,
        token_hex=lambda n: next(tokens),
        on_change=(events.append if events is not None else None),
    )


# --- parsing ----------------------------------------------------------------------------


@given(st.integers(min_value=0, max_value=999_999))
def test_every_six_digit_code_parses_with_or_without_spaces(n: int) -> None:
    digits = f"{n:06d}"
    assert parse_code(digits) == digits
    assert parse_code(f" {digits[:3]} {digits[3:]} ") == digits


@given(st.text(max_size=40))
def test_parse_code_returns_six_ascii_digits_or_none(text: str) -> None:
    got = parse_code(text)
    assert got is None or (len(got) == 6 and got.isascii() and got.isdigit())
    if got is not None:
        assert "".join(text.split()) == got


def test_codes_that_are_not_six_ascii_digits_are_refused() -> None:
    for bad in ("12345", "1234567", "12345a", "١٢٣٤٥٦", "１２３４５６", "", None, 123456, "-12345"):
        assert parse_code(bad) is None, bad


@given(st.binary(min_size=32, max_size=32))
def test_a_token_of_256_bits_in_hex_parses(raw: bytes) -> None:
    assert parse_token(raw.hex()) == raw.hex()


@given(st.one_of(st.text(max_size=80), st.none(), st.integers()))
def test_parse_token_accepts_only_64_lowercase_hex(text) -> None:
    got = parse_token(text)
    if got is not None:
        assert len(got) == 64 and set(got) <= set("0123456789abcdef")


def test_tokens_with_the_wrong_shape_are_refused() -> None:
    good = "ab" * 32
    for bad in (good.upper(), good[:-1], good + "0", "zz" * 32, good + "\n", f" {good}"):
        assert parse_token(bad) is None, bad


# --- codes ------------------------------------------------------------------------------


def test_the_right_code_pairs_once_and_gives_a_256_bit_token(tmp_path: Path) -> None:
    clocks, events = Clocks(), []
    p = make(tmp_path, clocks, events=events)
    assert p.new_code() == "123456"
    first = p.attempt("123456")
    assert (first.outcome, first.status) == ("paired", 200)
    assert len(first.token) == 64 and p.allows(first.token)
    assert events == ["paired"]
    again = p.attempt("123456")
    assert (again.outcome, again.status) == ("no_code", 403)
    assert p.count() == 1


def test_codes_come_from_the_given_randomness_zero_padded(tmp_path: Path) -> None:
    p = make(tmp_path, Clocks(), codes=(42,))
    assert p.new_code() == "000042"


def test_the_default_randomness_is_secrets(tmp_path: Path) -> None:
    p = Pairing(tmp_path, clock=lambda: 0.0)
    assert p.randbelow is pairing.secrets.randbelow
    codes = {p.new_code() for _ in range(20)}
    assert all(len(c) == 6 and c.isdigit() for c in codes) and len(codes) > 1


def test_a_code_is_good_for_five_minutes(tmp_path: Path) -> None:
    clocks = Clocks()
    p = make(tmp_path, clocks, codes=(111111, 222222))
    p.new_code()
    clocks.tick(299)
    assert p.code_status()[0] == "showing"
    clocks.tick(1)
    assert p.code_status() == ("expired", 0.0)
    late = p.attempt("111111")
    assert (late.outcome, late.status, late.message) == ("no_code", 403, NOT_PAIRED.message)
    p.new_code()
    assert p.attempt("222222").outcome == "paired"


def test_no_code_shown_means_nothing_pairs(tmp_path: Path) -> None:
    p = make(tmp_path, Clocks())
    got = p.attempt("123456")
    assert (got.outcome, got.status) == ("no_code", 403)
    assert "Pair a phone" in got.message


def test_leaving_the_code_screen_ends_the_code(tmp_path: Path) -> None:
    p = make(tmp_path, Clocks())
    p.new_code()
    p.end_code()
    assert p.attempt("123456").outcome == "no_code"


def test_a_malformed_code_is_400_and_not_counted(tmp_path: Path) -> None:
    p = make(tmp_path, Clocks())
    p.new_code()
    for _ in range(20):
        assert p.attempt("12x456").status == 400
    assert p.attempt("123456").outcome == "paired"


def test_ten_wrong_codes_void_the_code_and_say_so(tmp_path: Path) -> None:
    clocks, events = Clocks(), []
    p = make(tmp_path, clocks, events=events)
    p.new_code()
    for i in range(10):  # from four addresses: one alone cannot void a code
        assert p.attempt(f"99999{i}", f"10.0.0.{i % 4}").outcome == "wrong"
    assert events[-1] == "void"
    assert p.code_status() == ("void", 0.0)
    assert p.code_deadline() is None
    right = p.attempt("123456")
    assert right.outcome == "no_code" and right.message == NOT_PAIRED.message


def test_each_code_shown_has_its_own_budget_of_ten_wrong_guesses(tmp_path: Path) -> None:
    clocks, events = Clocks(), []
    p = make(tmp_path, clocks, codes=(123456, 654321, 111111), events=events)
    for i in range(50):  # guesses while no code is shown use up nothing
        assert p.attempt(f"{i:06d}").status == 403
    p.new_code()
    for i in range(9):  # as fast as a script can: no per-minute wait for anyone
        assert p.attempt(f"99999{i}", f"10.0.0.{i // 3}").outcome == "wrong"
    assert p.wrong_guesses() == 9 and p.code_status()[0] == "showing"
    assert p.attempt("999999", "10.0.0.9").outcome == "wrong"  # the tenth: void
    assert p.code_status() == ("void", 0.0) and p.wrong_guesses() == 10
    assert events == ["wrong"] * 9 + ["void"]
    assert p.attempt("123456").outcome == "no_code"  # the right code, too late
    p.new_code()  # the owner shows a new code: a fresh budget
    assert p.wrong_guesses() == 0
    for i in range(9):
        assert p.attempt(f"00000{i}", f"10.0.0.{i // 3}").outcome == "wrong"
    assert p.attempt("654321").outcome == "paired"


def test_a_wrong_code_and_no_code_get_the_same_answer(tmp_path: Path) -> None:
    clocks = Clocks()
    p = make(tmp_path, clocks, codes=(123456, 222222, 333333))
    answers = [p.attempt("000000")]  # none shown
    p.new_code()
    answers.append(p.attempt("000000"))  # wrong
    clocks.tick(301)
    answers.append(p.attempt("000000"))  # run out
    p.new_code()
    for i in range(10):
        answers.append(p.attempt("000000", f"10.0.0.{i}"))  # wrong, then void
    answers.append(p.attempt("000000"))  # void
    p.new_code()
    p.end_code()
    answers.append(p.attempt("000000"))  # left the code screen
    assert {(a.status, a.message) for a in answers} == {(NOT_PAIRED.status, NOT_PAIRED.message)}


@given(
    st.lists(
        st.one_of(
            st.just("new"),
            st.just("end"),
            st.just("right"),
            st.integers(min_value=0, max_value=999_999),
            st.floats(min_value=0, max_value=400, allow_subnormal=False),
        ),
        max_size=60,
    )
)
def test_no_code_ever_takes_more_than_ten_wrong_guesses(steps) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clocks, n = Clocks(), iter(range(1, 10**6))
        p = Pairing(
            Path(tmp),
            clock=lambda: clocks.mono,
            wall=lambda: clocks.wall,
            randbelow=lambda _: next(n) * 7919 % 10**6,
            token_hex=lambda _: "ab" * 32,
        )
        wrong_for: dict[int, int] = {}  # each code shown (by its object) -> wrong guesses
        for step in steps:
            if step == "new":
                p.new_code()
            elif step == "end":
                p.end_code()
            elif step == "right":
                if p.code is not None:
                    p.attempt(p.code.digits)
            elif isinstance(step, float):
                clocks.tick(step)
            else:
                code = p.code
                got = p.attempt(f"{step:06d}", f"10.0.0.{step % 5}")
                if got.outcome == "paired":
                    continue
                assert (got.status, got.message) == (NOT_PAIRED.status, NOT_PAIRED.message)
                if code is not None:
                    wrong_for[id(code)] = code.wrong
                    assert all(n <= 3 for n in code.by_source.values())  # each address's share
        assert all(wrong <= 10 for wrong in wrong_for.values())


# --- tokens and the file ----------------------------------------------------------------


def test_the_state_dir_keeps_only_the_tokens_hash(tmp_path: Path) -> None:
    clocks = Clocks()
    p = make(tmp_path, clocks)
    p.new_code()
    token = p.attempt("123456").token
    text = (tmp_path / "phones.json").read_text()
    assert token not in text
    assert json.loads(text)["phones"][0]["sha256"] == token_hash(token)
    assert (tmp_path / "phones.json").stat().st_mode & 0o777 == 0o640
    again = make(tmp_path, clocks)  # a restart keeps the phone
    assert again.allows(token)


def test_a_token_lasts_twelve_hours(tmp_path: Path) -> None:
    clocks = Clocks()
    p = make(tmp_path, clocks)
    p.new_code()
    token = p.attempt("123456").token
    clocks.tick(12 * 3600 - 1)
    assert p.allows(token)
    clocks.tick(1)
    assert not p.allows(token)
    assert p.count() == 0


def test_forged_stale_and_malformed_cookies_are_refused(tmp_path: Path) -> None:
    p = make(tmp_path, Clocks())
    p.new_code()
    token = p.attempt("123456").token
    forged = ("0" if token[0] != "0" else "1") + token[1:]
    for cookie in (forged, token.upper(), "", None, token[:32], "x" * 64):
        assert not p.allows(cookie), cookie


def test_forget_phones_ends_them_all(tmp_path: Path) -> None:
    clocks, events = Clocks(), []
    p = make(tmp_path, clocks, codes=(1, 2), events=events)
    tokens = []
    for code in ("000001", "000002"):
        p.new_code()
        tokens.append(p.attempt(code).token)
    assert all(p.allows(t) for t in tokens)
    assert p.forget_all() == 2
    assert not any(p.allows(t) for t in tokens)
    assert not any(make(tmp_path, clocks).allows(t) for t in tokens)
    assert events[-1] == "forgotten"


def test_an_unreadable_phones_file_is_set_aside_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "phones.json").write_text("{not json")
    p = make(tmp_path, Clocks())
    assert "unreadable" in p.problem and p.count() == 0
    assert list(tmp_path.glob("phones.json.unreadable-*"))
    p.new_code()
    assert p.attempt("123456").outcome == "paired"


def test_a_phones_file_with_a_bad_entry_is_set_aside(tmp_path: Path) -> None:
    bad = {"version": 1, "phones": [{"sha256": "nothex", "until": 1}]}
    (tmp_path / "phones.json").write_text(json.dumps(bad))
    p = make(tmp_path, Clocks())
    assert "phone 1 has no sha256" in p.problem


# --- issue 36: a blind guesser, a wrong wall clock, storage that refuses -------------------


def test_a_blind_guesser_at_two_a_second_cannot_void_a_code_before_the_owner_types_it(
    tmp_path: Path,
) -> None:
    """One address guessing twice a second from the moment each code is shown: the owner, who
    takes 8 s to type the code from another address, pairs every time (3 of 3)."""
    clocks, events = Clocks(), []
    p = make(tmp_path, clocks, codes=(111111, 222222, 333333), events=events)
    guesses = iter(f"{n:06d}" for n in range(500_000, 600_000))
    paired = 0
    for digits in ("111111", "222222", "333333"):
        p.new_code()
        for _ in range(16):  # 8 s at 2 a second
            clocks.tick(0.5)
            assert p.attempt(next(guesses), "192.168.1.66") == NOT_PAIRED
        assert p.code_status()[0] == "showing"
        assert p.wrong_guesses() == 16  # the OLED counts them all: 3 checked, 13 not
        paired += p.attempt(digits, "192.168.1.20").outcome == "paired"
    assert paired == 3
    assert "void" not in events


def test_an_address_has_three_wrong_guesses_per_code_and_an_ipv6_64_is_one_address(
    tmp_path: Path,
) -> None:
    p = make(tmp_path, Clocks(), codes=(123456, 654321))
    p.new_code()
    for n in range(3):
        p.attempt(f"00000{n}", f"fd00::{n + 1}")  # three addresses of one /64
    assert p.code.wrong == 3
    assert p.attempt("123456", "fd00::99") == NOT_PAIRED  # its share is spent: not checked
    assert p.attempt("123456", "::ffff:10.0.0.5").outcome == "paired"  # another machine
    p.new_code()  # the next code: every address has its three again
    p.attempt("000000", "fd00::1")
    assert p.attempt("654321", "fd00::1").outcome == "paired"


def test_a_token_lives_on_time_the_box_ran_whatever_the_wall_clock_says(tmp_path: Path) -> None:
    """Paired while the wall clock said 1970 (before NTP): after a restart with the right time,
    and another with a clock years ahead, the phones are still in until their twelve hours of
    running have passed."""
    clocks = Clocks()
    clocks.wall = 86_400.0  # 2 January 1970
    p = make(tmp_path, clocks, codes=(1, 2))
    tokens = []
    for code in ("000001", "000002"):
        p.new_code()
        tokens.append(p.attempt(code).token)
        clocks.tick(3600)
    p.keep_time()  # the stop (or the periodic write) keeps their time left
    after = Clocks()  # a reboot: a new monotonic clock, the wall clock right now
    after.mono = 5.0
    q = make(tmp_path, after)
    assert all(q.allows(t) for t in tokens)
    after.tick(9 * 3600)
    q.keep_time()
    later = Clocks()
    later.mono, later.wall = 3.0, 4_102_444_800.0  # another reboot, the clock in 2100
    r = make(tmp_path, later)
    assert all(r.allows(t) for t in tokens)
    later.tick(3600 + 1)  # the first had 12 h - 2 h - 9 h = 1 h left: now ended
    assert not r.allows(tokens[0]) and r.allows(tokens[1])
    later.tick(3600)
    assert not r.allows(tokens[1])


def test_a_power_cut_gives_a_token_at_most_the_seconds_since_the_last_write(
    tmp_path: Path,
) -> None:
    clocks = Clocks()
    p = make(tmp_path, clocks)
    p.new_code()
    token = p.attempt("123456").token
    clocks.tick(11 * 3600)
    p.keep_time()
    clocks.tick(pairing.SAVE_SECONDS - 1)  # cut before the next write
    again = make(tmp_path, Clocks())
    assert again.allows(token)
    again_clock = again.clock()
    assert again.phones[token_hash(token)] - again_clock == 3600.0  # not 12 h afresh


def test_a_version_1_file_of_wall_clock_ends_is_still_read(tmp_path: Path) -> None:
    clocks = Clocks()
    digest = token_hash("ab" * 32)
    old = {"version": 1, "phones": [{"sha256": digest, "until": clocks.wall + 600}]}
    (tmp_path / "phones.json").write_text(json.dumps(old))
    p = make(tmp_path, clocks)
    assert p.allows("ab" * 32) and not p.problem
    clocks.tick(601)
    assert not p.allows("ab" * 32)


def test_a_pairing_or_forgetting_the_state_dir_refuses_changes_nothing(
    tmp_path: Path, monkeypatch
) -> None:
    import errno

    clocks, events = Clocks(), []
    p = make(tmp_path, clocks, codes=(1, 2, 3), events=events)
    p.new_code()
    first = p.attempt("000001").token
    saved = (tmp_path / "phones.json").read_bytes()

    def refuse(path, data):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(pairing, "replace_whole", refuse)
    p.new_code()
    got = p.attempt("000002")
    assert (got.outcome, got.status, got.token) == ("unsaved", 503, "")
    assert got.message == "the box cannot save pairings now: its storage is read-only"
    assert events[-1] == "unsaved:read-only" and p.code is None  # the used code is gone
    assert p.count() == 1
    try:
        p.forget_all()
    except pairing.NotSaved as err:
        assert err.condition == "read-only"
    else:
        raise AssertionError("forgetting was not refused")
    assert p.allows(first) and (tmp_path / "phones.json").read_bytes() == saved
