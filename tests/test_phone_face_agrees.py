"""The phone as a player at the table sees it (issue 30, points 12, 14, 15), in real headless
Chromium at 390x844: the turn timer in seconds beside the seat, a countdown stopped and said
while the box is out of reach, a forgotten phone showing nothing of the last game, no "Show the
cards" without cards, and the pictures' markers clear of each other."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_support import SKIP, chromium, game_in_play, phone

from tests.phones_support import live_box, pair

pytestmark = SKIP


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_the_countdown_stops_where_it_was_while_the_box_is_out_of_reach(
    browser, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    with live_box(tmp_path) as box:
        box.on_loop(
            lambda: box.app.new_game("hostage-trap", {"players": "3", "turn_seconds": "30"})
        )
        page = phone(browser, box, None)
        page.clock.install()
        page.context.add_cookies([{"name": "tc_phone", "value": pair(box), "url": box.url()}])
        page.goto(box.url())
        timer, note = page.get_by_role("timer", name="Timer"), page.locator("#timer-note")
        expect(page.get_by_label("Whose turn")).to_have_text("Seat 1")
        expect(timer).to_have_text(re.compile(r"^[0-3]?\d s$"))  # "27 s"
        box.phones.server.stop()  # the box gone from the network
        expect(note).to_have_text("stopped: box not answering")
        stopped = timer.text_content()
        page.clock.fast_forward(40_000)  # long past the turn's end on the phone's clock
        expect(timer).to_have_text(stopped)
        expect(note).not_to_have_text("time is up")
        page.screenshot(path=str(tmp_path / "phone-stopped.png"))
        page.context.close()


def test_a_forgotten_phone_drops_the_last_games_title(browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with live_box(tmp_path) as box:
        box.on_loop(lambda: box.app.new_game("trapwords", {}))
        page = phone(browser, box, pair(box))
        expect(page.locator("#title")).to_have_text("Trapwords")
        box.on_loop(lambda: box.app.phone_command("forget_phones"))
        box.controls.press("ok")  # yes, on the box: phones cannot answer this question
        expect(page.get_by_role("heading", name="Pair this phone")).to_be_visible(timeout=10_000)
        expect(page.locator("#title")).to_have_text("Trap Companion")
        assert page.title() == "Trap Companion"
        page.context.close()


def test_a_game_without_cards_offers_no_show_the_cards(browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with live_box(tmp_path) as box:
        box.on_loop(lambda: box.app.new_game("dice", {}))
        page = phone(browser, box, pair(box))
        expect(page.get_by_role("list", name="Enrolled cards")).to_contain_text("without cards")
        expect(page.get_by_role("button", name="Show the cards")).to_be_hidden()
        page.context.close()


def _boxes(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const b = e.getBBox();"
        " return {x: b.x, y: b.y, w: b.width, h: b.height}; })",
    )


def _overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["w"] <= b["x"]
        or b["x"] + b["w"] <= a["x"]
        or a["y"] + a["h"] <= b["y"]
        or b["y"] + b["h"] <= a["y"]
    )


def test_the_crystal_marker_leaves_the_boat_label_readable(browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    game_in_play(tmp_path, "trap-attack")
    with live_box(tmp_path) as box:
        page = phone(browser, box, pair(box))
        expect(page.locator(".boat-label")).to_have_count(1)
        # The AI back at the boat with the crystal: the picture as the box would send it.
        page.evaluate(
            "stream.close(); renderPicture({kind: 'track', start: 30, position: 30,"
            " crystal: true, boat: true})"
        )
        label, marker = _boxes(page, ".boat-label")[0], _boxes(page, ".crystal-marker")[0]
        assert not _overlap(label, marker), (label, marker)
        page.context.close()


def test_a_team_token_never_hides_a_badge(browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    game_in_play(tmp_path, "trapwords")
    with live_box(tmp_path) as box:
        page = phone(browser, box, pair(box))
        expect(page.get_by_role("img", name="Dungeon")).to_be_visible()
        # Both teams in the monster's cursed room, seven rooms (the smallest squares).
        page.evaluate(
            "stream.close(); renderPicture({kind: 'dungeon', rooms: [1,2,3,4,5,6,7],"
            " teams: {A: 7, B: 7},"
            " monster: 'Dragon', monster_room: 7, curse_rooms: [7], curses: [],"
            " team_rgb: {A: [0, 0.3, 1], B: [1, 0, 0.7]}})"
        )
        tokens = _boxes(page, ".team-token")
        badges = _boxes(page, ".curse-badge") + _boxes(page, ".lair-badge")
        assert len(tokens) == 2 and len(badges) == 2
        for token in tokens:
            for badge in badges:
                assert not _overlap(token, badge), (token, badge)
        fills = page.eval_on_selector_all(
            ".team-token", "els => els.map(e => e.getAttribute('fill'))"
        )
        assert fills == ["rgb(0,77,255)", "rgb(255,0,179)"]  # the LED's blue and magenta
        page.context.close()
