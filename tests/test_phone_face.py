"""The phone face as a player at the table sees it, in real headless Chromium at 390x844: the
large timer at time-up and while paused, no enrolment offered for a game without cards, and the
box out of reach said plainly across the top with what is shown greyed until it is back."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from browser_support import SKIP, chromium, phone

from companion.core.events import Call
from tests.phones_support import live_box, pair

pytestmark = SKIP


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_the_large_timer_says_time_is_up_and_paused(browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with live_box(tmp_path) as box:
        box.on_loop(
            lambda: box.app.new_game("hostage-trap", {"players": "3", "turn_seconds": "30"})
        )
        token = pair(box)
        page = phone(browser, box, None)
        page.clock.install()  # the phone's own clock, moved on without waiting
        page.context.add_cookies([{"name": "tc_phone", "value": token, "url": box.url()}])
        page.goto(box.url())
        timer, note = page.get_by_role("timer", name="Timer"), page.locator("#timer-note")
        expect(timer).to_have_text(re.compile(r"^[0-3]?\d s$"))  # the box's turn timer runs
        expect(note).to_be_empty()
        # The box sends the timer each second; held busy, it sends nothing while the phone's
        # own clock is moved on past the turn's end.
        busy, free = threading.Event(), threading.Event()
        box.app.loop.post(Call(lambda: (busy.set(), free.wait(10))))
        try:
            assert busy.wait(5)
            page.wait_for_timeout(300)  # a view sent just before has arrived
            page.clock.fast_forward(31_000)  # the turn's 30 s gone on the phone
            expect(timer).to_have_text("0 s")
            expect(note).to_have_text("time is up")
            page.screenshot(path=str(tmp_path / "phone-time-up.png"))
        finally:
            free.set()
        box.controls.press("back", False)  # the box's menu pauses the turn timer
        expect(note).to_have_text("paused")
        expect(timer).not_to_have_text("0 s")
        page.screenshot(path=str(tmp_path / "phone-paused.png"))
        page.context.close()


def test_a_game_without_cards_offers_no_enrolment(browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with live_box(tmp_path) as box:
        box.on_loop(lambda: box.app.new_game("dice", {}))
        page = phone(browser, box, pair(box))
        expect(page.locator("#title")).to_have_text("Dice")
        cards = page.get_by_role("list", name="Enrolled cards")
        expect(cards).to_contain_text("played without cards")
        expect(page.get_by_role("button", name="Start enrolling")).to_be_hidden()
        expect(page.get_by_label("Card to enrol")).to_be_hidden()
        page.context.close()


def test_the_box_out_of_reach_is_said_across_the_top_until_it_is_back(
    browser, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    from companion.web.guard import Guard
    from companion.web.phone_routes import PhoneRoutes
    from companion.web.phones import PhoneView
    from companion.web.server import WebServer

    with live_box(tmp_path) as box:
        box.on_loop(lambda: box.app.new_game("dice", {}))
        page = phone(browser, box, pair(box))
        banner = page.locator("#offline")
        expect(page.locator("#link")).to_have_text("live")
        expect(banner).to_be_hidden()
        service = box.phones
        service.server.stop()  # the box gone from the network
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("not reachable")
        assert page.get_by_role("alert").filter(has_text="not reachable").count() == 1
        assert (
            float(page.evaluate("getComputedStyle(document.getElementById('box')).opacity")) < 0.6
        )
        page.screenshot(path=str(tmp_path / "phone-unreachable.png"))
        back = WebServer("127.0.0.1", box.port, Guard(), [PhoneRoutes(service)])
        back.show(PhoneView(service.seq, service.view))
        back.start()
        service.server = back
        try:
            expect(page.locator("#link")).to_have_text("live", timeout=10_000)
            expect(banner).to_be_hidden()
            assert page.evaluate("getComputedStyle(document.getElementById('box')).opacity") == "1"
        finally:
            page.context.close()
