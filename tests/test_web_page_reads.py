"""The simulator's page as a newcomer meets it (issue 30, point 16), in real headless
Chromium: sounds by what they mean, the last tap's words gone at a new game, the documented Red,
focus rings whole, a long deck grouped by kind with every card reachable, and no sideways
scroll on a 390 px phone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_support import SKIP, chromium, game_in_play, sim_web

pytestmark = SKIP


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_sounds_by_name_and_the_tap_forgotten_at_a_new_game(browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page()
        page.goto(url)
        words = page.locator("#words")
        expect(page.locator("#link")).to_have_text("live")
        page.keyboard.press("j")  # Trap Attack
        page.keyboard.press("o")
        page.keyboard.press("g")
        expect(words).to_contain_text("Who starts?")
        page.keyboard.press("g")  # the pawn dice: who starts (or a tie to roll again)
        expect(words).to_contain_text(re.compile("starts|Tie"))
        page.locator("#cards button").first.click()
        expect(page.locator("#sounds")).to_contain_text("card accepted")
        expect(page.locator("#sounds")).not_to_contain_text("card_ok")
        said = page.locator("#said")
        expect(said).to_contain_text("tapped")
        # A new game of the same kind: back, New game, end this one, start.
        page.keyboard.press("b")
        expect(words).to_contain_text("Resume")
        for _ in range(2):
            page.keyboard.press("j")
        expect(words).to_contain_text("> New game")
        page.keyboard.press("o")
        expect(words).to_contain_text("Set aside")
        page.keyboard.press("j")
        page.keyboard.press("o")  # End it: to history
        expect(words).to_contain_text("G start")
        page.keyboard.press("g")
        expect(words).not_to_contain_text("G start")
        expect(said).to_be_empty()


def test_red_is_the_documented_red(browser, tmp_path: Path) -> None:
    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page()
        page.goto(url)
        red = page.get_by_role("button", name="Red", exact=True)
        assert red.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(179, 38, 30)"


def test_a_long_deck_by_kind_every_card_reachable_focus_rings_whole(browser, tmp_path):
    from playwright.sync_api import expect

    game_in_play(tmp_path, "deathtrap-dungeon")
    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url)
        groups = page.locator("#cards summary")
        expect(groups).to_have_text(["Set cards (60)", "Special cards (4)"])
        assert page.locator("#cards button").count() == 64
        groups.nth(1).click()  # the second group opened: its cards are there to click
        expect(page.locator("#cards details").nth(1).locator("button").first).to_be_visible()
        # The last card of the long group, scrolled to and focused: its ring (3 px, 2 px off
        # the button) lies inside the scrolled box, not cut by its edge.
        cards = page.locator("#cards details").first.locator("button")
        cards.nth(cards.count() - 2).focus()
        page.keyboard.press("Tab")  # to the last one from the keyboard: its ring shows
        last = cards.last
        expect(last).to_be_focused()
        ring = last.evaluate(
            """b => { const r = b.getBoundingClientRect(), box = b.parentElement;
                const c = box.getBoundingClientRect();
                const s = getComputedStyle(b);
                const w = parseFloat(s.outlineWidth) + parseFloat(s.outlineOffset);
                return [w, r.left - w - c.left, c.right - (r.right + w),
                        r.top - w - c.top, c.bottom - (r.bottom + w)]; }"""
        )
        assert ring[0] >= 5, ring  # a ring is drawn
        assert min(ring[1:]) >= 0, ring


def test_no_sideways_scroll_at_390_px(browser, tmp_path: Path) -> None:
    game_in_play(tmp_path, "deathtrap-dungeon")
    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(url)
        page.wait_for_selector("#cards summary")
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        page.screenshot(path=str(tmp_path / "page-390.png"), full_page=True)
        assert widths[0] <= widths[1], widths


def test_the_page_greys_while_the_box_does_not_answer(browser, tmp_path: Path) -> None:
    """Issue 30, point 14: as the phone does, the page greys what it shows when the box is
    gone, so an old picture is not taken for the box's."""
    from playwright.sync_api import expect

    with sim_web(tmp_path) as (url, proc):
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("#link")).to_have_text("live")
        opacity = "getComputedStyle(document.querySelector('main')).opacity"
        assert page.evaluate(opacity) == "1"
        proc.terminate()
        proc.wait(10)
        expect(page.locator("#link")).to_contain_text("not answering", timeout=10_000)
        expect(page.locator("body")).to_have_class("stale")
        assert float(page.evaluate(opacity)) < 0.6
        page.screenshot(path=str(tmp_path / "page-stale.png"))


def test_no_sideways_scroll_at_320_px_and_every_button_inside(browser, tmp_path: Path) -> None:
    """Issue 42, point 16: at 320 px the page scrolled sideways and Back stood past its edge."""
    game_in_play(tmp_path, "cover-your-asps")
    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page(viewport={"width": 320, "height": 700})
        page.goto(url)
        page.wait_for_selector("#cards summary")
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        page.screenshot(path=str(tmp_path / "page-320.png"), full_page=True)
        assert widths[0] <= widths[1], widths
        outside = page.evaluate(
            """() => [...document.querySelectorAll('.box .btn')]
                .filter(b => b.getBoundingClientRect().right > b.closest('.box')
                    .getBoundingClientRect().right)
                .map(b => b.textContent)"""
        )
        assert outside == []


def _cover_your_asps_counted(state_dir: Path) -> None:
    """Cover Your Asps over and counted, seats 2 and 4 tied at 21 with their planks left."""
    from browser_support import ROOT

    from companion.replay import run_script

    lines = (ROOT / "tests/scripts/cover-your-asps-four-players.txt").read_text().splitlines()
    cut = next(n for n, line in enumerate(lines) if line.startswith("do treasure player=4"))
    script = [*lines[: cut + 1], "do planks player=2 n=3", "do planks player=4 n=5"]
    out = run_script("\n".join(script) + "\n", state_dir=state_dir)
    assert out[-1]["state"]["seats"]["4"]["planks"] == 5


@pytest.mark.parametrize("width", [390, 320])
def test_the_planks_that_break_a_tie_are_seen_whole_on_a_phone(browser, tmp_path, width):
    """Issue 42, point 16: "Planks left" was clipped to "Pla" on a 390 px phone, inside a
    sideways scroll that said nothing. At 390 px the count's table fits; where a table must
    scroll (narrower), the line under it says so."""
    from browser_support import PHONE, both_faces

    from tests.phones_support import pair

    _cover_your_asps_counted(tmp_path)
    with both_faces(tmp_path) as (box, _url):
        context = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": 844}})
        context.add_cookies([{"name": "tc_phone", "value": pair(box), "url": box.url()}])
        mobile = context.new_page()
        mobile.goto(box.url())
        mobile.get_by_role("columnheader", name="Planks left").wait_for()
        mobile.screenshot(path=str(tmp_path / f"phone-{width}.png"), full_page=True)
        scroll, client = mobile.evaluate(
            "() => { const w = document.getElementById('scoreboard').parentElement;"
            " return [w.scrollWidth, w.clientWidth]; }"
        )
        hint = mobile.locator("#scoreboard-more")
        if width == 390:
            assert scroll <= client, (scroll, client)
        if scroll > client + 1:
            assert hint.is_visible()
        else:
            assert not hint.is_visible()
        context.close()
