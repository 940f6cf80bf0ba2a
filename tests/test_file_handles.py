"""The box under a flood of slow connections from its network: it never depends on a free file
handle after start (fonts in memory, a frame that could not be drawn drawn again), and the web
server caps its connections well below the process's limit, closes idle and slow ones, and logs
refusals a line a minute. Loopback only, and every loop bounded."""

from __future__ import annotations

import errno
import logging
import os
import resource
import time
from pathlib import Path

import pytest

from companion.bench.phones import SLOW_CLIENTS, drip, slow_clients
from companion.core.config import Config
from companion.sim.box import SimulatedBox
from companion.ui import fonts
from companion.ui.render import render
from companion.ui.screen import Screen
from companion.web import connections
from companion.web.connections import MAX_CONNECTIONS, MAX_PER_SOURCE
from tests.phones_support import live_box, pair, request
from tests.test_phone_server import log_lines
from tests.test_systemd_unit import one

SLOW = SLOW_CLIENTS  # 2,000 slow connections held against the phones' face


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


class FileLimit:
    """The process's soft limit on open files, set for a test and put back after."""

    def __init__(self) -> None:
        self.soft, self.hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    def set(self, soft: int) -> None:
        if self.hard != resource.RLIM_INFINITY and soft > self.hard:
            pytest.skip(f"this machine's hard limit of {self.hard} files is below {soft}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, self.hard))

    def restore(self) -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.soft, self.hard))


@pytest.fixture
def file_limit():
    limit = FileLimit()
    try:
        yield limit
    finally:
        limit.restore()


# --- drawing needs no file handle after start --------------------------------------------------


def test_a_frame_in_a_new_size_draws_with_no_file_handle_left(file_limit) -> None:
    fonts.preload()  # what the display does at start
    fonts.font.cache_clear()  # every size is new: made now, with no file handle to spare
    fonts.ink.cache_clear()
    fonts.band.cache_clear()
    fonts.advance.cache_clear()
    screen = Screen("Handles", ("every one", "is taken"), big="12 34")
    file_limit.set(open_files() - 1)  # the count itself had one open
    try:
        image = render(screen)
    finally:
        file_limit.restore()
    assert image.getbbox() is not None
    assert image.tobytes() == render(screen).tobytes()


def test_a_frame_that_could_not_be_drawn_is_drawn_again(tmp_path: Path, caplog) -> None:
    box = SimulatedBox(Config(), state_dir=tmp_path)
    try:
        box.app.start()
        box.loop.drain()
        box.app.new_game("dice", {})
        box.loop.drain()
        display = box.app.display
        real_show, failures = display.show, [2]

        def show(screen: Screen) -> bool:
            if failures[0]:
                failures[0] -= 1
                raise OSError(errno.EMFILE, "Too many open files")
            return real_show(screen)

        display.show = show
        box.press("down")  # a new die: the title changes
        wanted = box.app.current()[0]
        assert display.screen != wanted  # not drawn yet
        box.advance(2.0)
        assert display.screen == wanted and display.image.tobytes() == render(wanted).tobytes()
        assert box.app.shown[0] == wanted
        warnings = [r for r in caplog.records if "could not be drawn" in r.getMessage()]
        assert len(warnings) == 1  # once per outage, not per try
    finally:
        box.close()


def test_the_unit_leaves_room_for_every_connection_the_server_holds() -> None:
    limit = int(one("Service", "LimitNOFILE"))
    assert limit >= 4096 and limit >= MAX_CONNECTIONS * 8
    assert MAX_PER_SOURCE < MAX_CONNECTIONS < 1024 // 4  # well below even systemd's default


# --- the server's caps -------------------------------------------------------------------------


def press_as_a_phone(box, token: str) -> tuple[int, dict[str, str], object]:
    """A press from the phone's page; a connection closed under it is tried again, as the
    person would press again (at most three times)."""
    for attempt in range(3):
        try:
            return request(box, "POST", "/api/press/down", cookie=token)
        except ConnectionError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def test_two_thousand_slow_connections_leave_the_box_playing(
    tmp_path: Path, file_limit, caplog, monkeypatch
) -> None:
    monkeypatch.setattr(connections, "IDLE_SECONDS", 1.0)  # what a test can wait for
    caplog.set_level(logging.INFO)
    with live_box(tmp_path) as box:
        token = pair(box)
        box.on_loop(lambda: box.app.new_game("dice", {}))
        end = time.monotonic() + 10.0  # the "Phone paired" notice goes: a press is play then
        while box.on_loop(lambda: box.app.toast) is not None and time.monotonic() < end:
            time.sleep(0.1)
        # Room for the slow clients' own ends and the box, not for a server end per client:
        # systemd's default of 1,024 files against ~1,000 connections, as found on the LAN.
        file_limit.set(open_files() + SLOW + 500)
        caplog.clear()
        slow = slow_clients(box.port, SLOW)
        try:
            assert len(slow) == SLOW  # every one reached the box
            server = box.phones.server
            assert len(server.book) <= MAX_CONNECTIONS
            display = box.app.display
            for n in range(5):  # presses from the paired phone draw their frame at once
                before = display.image.tobytes()
                status, _, body = press_as_a_phone(box, token)
                assert status == 200 and body["pressed"] == "down"
                end = time.monotonic() + 5.0
                while display.image.tobytes() == before and time.monotonic() < end:
                    time.sleep(0.01)
                assert display.image.tobytes() != before, f"press {n + 1} drew no frame"
                drip(slow)
            assert len(server.book) <= MAX_CONNECTIONS
            wanted = box.on_loop(lambda: box.app.current()[0])
            assert box.on_loop(lambda: display.screen) == wanted
            steps = box.on_loop(lambda: [s.action.name for s in box.app.session.steps if s.action])
            assert steps.count("choose") == 5
            journal = (box.app.config.state_dir() / "journal.jsonl").read_text()
            assert journal.count('"choose"') == 5  # every action journaled
            time.sleep(1.0)  # the idle limit passes: the slow ones still held are closed
            drip(slow)
            end = time.monotonic() + 5.0
            while len(server.book) > 0 and time.monotonic() < end:
                time.sleep(0.05)
            assert len(server.book) == 0
        finally:
            for s in slow:
                s.close()
        assert request(box, "GET", "/api/state", cookie=token)[0] == 200
    lines = log_lines(caplog)
    assert lines < 100, lines


class FakeTransport:
    """What the book needs of a connection: its peer, and being cut off."""

    def __init__(self, source: str) -> None:
        self.source, self.aborted = source, False

    def get_extra_info(self, name: str):
        return (self.source, 40000) if name == "peername" else None

    def abort(self) -> None:
        self.aborted = True


def test_the_book_caps_in_all_and_per_address_closing_the_oldest_idle() -> None:
    import asyncio

    from companion.web.connections import ConnectionBook
    from companion.web.ratelog import RateLog

    async def run() -> None:
        book = ConnectionBook(
            RateLog(logging.getLogger("test")), max_total=4, max_per_source=2, phone_share=0
        )
        t = {k: FakeTransport(src) for k, src in enumerate(["10.0.0.1", "10.0.0.1", "10.0.0.2"])}
        for key, transport in t.items():
            assert book.admit(key, transport)
        book.busy(1)  # answering a request: an idle one goes first for a newcomer
        t[3] = FakeTransport("10.0.0.1")  # a third from one address: its oldest idle goes
        assert book.admit(3, t[3]) and t[0].aborted and not t[1].aborted
        book.gone(0)
        t[4] = FakeTransport("10.0.0.3")
        assert book.admit(4, t[4]) and len(book) == 4
        t[5] = FakeTransport("10.0.0.4")  # over the cap for all: the oldest idle of all goes
        assert book.admit(5, t[5]) and t[2].aborted and len(book) == 4
        book.gone(2)
        for key in (3, 4, 5):
            book.busy(key)
        # All busy (issue 36: a client that never reads holds its answer): the newcomer
        # takes the oldest slot of the address holding the most, not nothing.
        t[6] = FakeTransport("10.0.0.5")
        assert book.admit(6, t[6]) and t[1].aborted and len(book) == 4
        assert not any(t[k].aborted for k in (3, 4, 5, 6))

    asyncio.run(run())


def test_paired_phones_keep_their_share_and_a_newcomer_takes_from_the_biggest() -> None:
    import asyncio

    from companion.web.connections import ConnectionBook
    from companion.web.ratelog import RateLog

    async def run() -> None:
        book = ConnectionBook(
            RateLog(logging.getLogger("test")), max_total=12, max_per_source=4, phone_share=4
        )
        book.mark_phone("10.0.0.50")
        flood = {}
        for n in range(20):  # five addresses, every connection busy (never read)
            flood[n] = FakeTransport(f"10.0.0.{1 + n % 5}")
            book.admit(("flood", n), flood[n])
            book.busy(("flood", n))
        assert len(book) == 8  # all but the phones' share
        phone = [FakeTransport("10.0.0.50") for _ in range(4)]
        for n, transport in enumerate(phone):
            assert book.admit(("phone", n), transport)
            book.busy(("phone", n))
        assert len(book) == 12 and not any(p.aborted for p in phone)
        newcomer = FakeTransport("10.0.0.60")  # a phone not paired yet, pairing
        assert book.admit("new", newcomer)
        assert not any(p.aborted for p in phone)  # taken from the flood, not the phones
        book.busy("new")
        for n in range(20, 40):  # the flood comes back for more
            flood[n] = FakeTransport(f"10.0.0.{1 + n % 5}")
            book.admit(("flood", n), flood[n])
            book.busy(("flood", n))
        assert not newcomer.aborted and not any(p.aborted for p in phone)

    asyncio.run(run())


def test_every_slot_is_freed_by_time_whatever_the_client_does() -> None:
    """Busy past its limit (an answer not taken, more requests pipelined meanwhile), and a
    connection reading just fast enough past its life: both closed; an event stream is not."""
    import asyncio

    from companion.web.connections import ConnectionBook
    from companion.web.ratelog import RateLog

    async def run() -> None:
        book = ConnectionBook(RateLog(logging.getLogger("test")))
        book.busy_seconds, book.life_seconds = 0.2, 0.5
        stuck, reader, stream = (FakeTransport("10.0.0.1") for _ in range(3))
        for key, transport in (("stuck", stuck), ("reader", reader), ("stream", stream)):
            assert book.admit(key, transport)
            book.busy(key)
        book.streaming("stream")
        for _ in range(5):  # more pipelined heads arrive: the limit does not move
            await asyncio.sleep(0.03)
            book.busy("stuck")
        await asyncio.sleep(0.1)
        assert stuck.aborted and "stuck" not in book.open
        for _ in range(6):  # answers taken every 0.1 s: busy never too long, but life ends
            book.idle("reader")
            await asyncio.sleep(0.05)
            book.busy("reader")
            await asyncio.sleep(0.05)
        book.idle("reader")
        assert reader.aborted and "reader" not in book.open
        assert not stream.aborted and "stream" in book.open

    asyncio.run(run())


def test_a_kind_of_trouble_is_logged_once_a_minute_with_a_count(caplog) -> None:
    from companion.web.ratelog import RateLog

    now = [100.0]
    notes = RateLog(logging.getLogger("test.ratelog"), clock=lambda: now[0])
    caplog.set_level(logging.INFO, "test.ratelog")
    for _ in range(5000):  # a flood within one second
        notes.note("refused", "refused a connection")
    notes.note("accept", "accept failed")
    assert [r.getMessage() for r in caplog.records] == [
        "refused a connection (the first)",
        "accept failed (the first)",
    ]
    now[0] += 59.0
    notes.note("refused", "refused a connection")
    assert len(caplog.records) == 2  # not yet a minute
    now[0] += 1.0
    notes.note("refused", "refused a connection")
    assert caplog.records[-1].getMessage() == "refused a connection (5001 since the last such line)"
    assert all(r.exc_info is None for r in caplog.records)  # never a traceback
