"""A newcomer plays through `trap-companion sim --web` in a real headless Chromium: the page
shows the OLED, the buttons (mouse, keyboard, long press) and the cards play the game, and every
open tab follows live."""

import json
import re
import urllib.request

import pytest
from browser_support import SKIP, chromium, sim_web

pytestmark = SKIP


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _state(url):
    with urllib.request.urlopen(url + "api/state", timeout=5) as r:
        return json.load(r)


def _words(page):
    return page.locator("#words")


def test_a_newcomer_plays_dice_with_the_mouse_and_the_display_follows(browser, tmp_path):
    from playwright.sync_api import expect

    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page()
        problems = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda err: problems.append(str(err)))
        page.goto(url)
        display = page.get_by_role("img", name="Display")
        expect(display).to_be_visible()
        expect(page.locator("#link")).to_have_text("live")
        expect(_words(page)).to_contain_text("Choose a game")
        first = display.get_attribute("src")
        page.get_by_role("button", name="OK", exact=True).click()  # Dice
        expect(_words(page)).to_contain_text("Die: d6")
        assert display.get_attribute("src") != first  # the pixels changed, pushed live
        page.get_by_role("button", name="Green", exact=True).click()  # start
        expect(_words(page)).to_contain_text("G roll")
        page.get_by_role("checkbox", name="Play sounds").check()  # Web Audio, asked for
        page.get_by_role("button", name="Green", exact=True).click()  # roll
        expect(page.locator("#sounds")).to_contain_text("roll")
        state = _state(url)
        assert state["game"] == "dice" and state["state"]["last"]
        page.screenshot(path=str(tmp_path / "dice.png"))
        assert problems == []  # no script error, nothing the CSP refused
        # the OLED is drawn pixel for pixel, scaled without smoothing
        assert display.evaluate("e => getComputedStyle(e).imageRendering") == "pixelated"
        assert display.evaluate("e => [e.naturalWidth, e.naturalHeight]") == [128, 64]


def test_keys_a_long_press_and_cards_play_trap_attack(browser, tmp_path):
    from playwright.sync_api import expect

    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("#link")).to_have_text("live")
        page.keyboard.press("j")  # down to Trap Attack, as in the terminal
        page.keyboard.press("o")
        expect(_words(page)).to_contain_text("Trap Attack")
        page.keyboard.press("g")  # start with its default options
        expect(_words(page)).to_contain_text("Who starts?")
        page.keyboard.press("g")  # the pawn dice: who starts (or a tie to roll again)
        expect(_words(page)).to_contain_text(re.compile("starts|Tie"))
        # the game's demo cards are buttons; tapping one is read by the (simulated) reader
        card = page.locator("#cards button").first
        expect(card).to_be_visible()
        card.click()
        expect(page.locator("#sounds")).to_contain_text("card")
        # a UID typed by hand: unknown, so the box offers to enrol it
        page.get_by_role("textbox", name="Card UID").fill("0A0B0C0D0E")
        page.get_by_role("button", name="Tap", exact=True).click()
        expect(_words(page)).to_contain_text("Unknown card")
        page.keyboard.press("r")  # no: back to the game
        expect(_words(page)).not_to_contain_text("Unknown card")
        # shift-click is a long press: back held asks to undo
        page.get_by_role("button", name="Back", exact=True).click(modifiers=["Shift"])
        expect(_words(page)).to_contain_text("Undo")
        page.screenshot(path=str(tmp_path / "trap-attack.png"))


def test_holding_a_button_is_a_long_press(browser, tmp_path):
    from playwright.sync_api import expect

    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("#link")).to_have_text("live")
        page.get_by_role("button", name="OK", exact=True).click()
        page.get_by_role("button", name="Green", exact=True).click()
        expect(_words(page)).to_contain_text("G roll")
        back = page.get_by_role("button", name="Back", exact=True)
        back.hover()
        page.mouse.down()
        page.wait_for_timeout(1100)  # longer than the box's hold time (1 s)
        page.mouse.up()
        expect(_words(page)).to_contain_text("nothing to undo")


def test_many_tabs_follow_the_same_box_and_any_of_them_plays(browser, tmp_path):
    """More tabs than a browser gives one site connections (six): they share one stream, so
    every tab loads, follows live and can still press."""
    from playwright.sync_api import expect

    with sim_web(tmp_path) as (url, _proc):
        context = browser.new_context()
        tabs = []
        for _ in range(8):
            tab = context.new_page()
            tab.goto(url)
            tabs.append(tab)
        for tab in tabs:
            expect(tab.locator("#link")).to_have_text("live")
            expect(tab.locator("#words")).to_contain_text("Choose a game")
        tabs[-1].get_by_role("button", name="Down", exact=True).click()
        tabs[-1].get_by_role("button", name="OK", exact=True).click()
        expect(tabs[-1].locator("#words")).to_contain_text("Trap Attack")
        expect(tabs[-1].locator("#words")).not_to_contain_text("Choose a game")
        seq = str(_state(url)["seq"])  # the options screen waits for ok: nothing moves on
        for tab in tabs:
            expect(tab.get_by_role("img", name="Display")).to_have_attribute("data-seq", seq)
        src = {t.get_by_role("img", name="Display").get_attribute("src") for t in tabs}
        assert len(src) == 1  # every tab shows the same pixels
        tabs[0].close()  # the tab that read the stream (the first) goes: another takes over
        tabs[1].get_by_role("button", name="Green", exact=True).click()
        for tab in tabs[1:]:
            expect(tab.locator("#words")).to_contain_text("Who starts?")
        context.close()


def _places(page):
    """Where each control of the page is: the buttons, the UID box."""
    return page.evaluate(
        """() => [...document.querySelectorAll('button, input')].map(e => {
            const r = e.getBoundingClientRect();
            return [e.id || e.textContent.trim(), r.x, r.y, r.width, r.height];
        })"""
    )


def _lines(page, selector):
    """How many lines the text of ``selector`` takes (whether shown whole or not)."""
    return page.evaluate(
        """s => { const r = document.createRange();
            r.selectNodeContents(document.querySelector(s));
            return new Set([...r.getClientRects()].map(c => Math.round(c.top))).size; }""",
        selector,
    )


def test_nothing_moves_when_the_caption_or_the_sounds_line_wraps(browser, tmp_path):
    from playwright.sync_api import expect

    def show(words, sounds):  # as the stream sets them: a screen's words, the last six sounds
        page.evaluate(
            """([w, s]) => { document.getElementById('words').textContent = w;
                document.getElementById('sounds').textContent = s; }""",
            [words, sounds],
        )

    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url)
        expect(page.locator("#link")).to_have_text("live")
        page.keyboard.press("j")  # Trap Attack: its demo cards are buttons too
        page.keyboard.press("o")
        page.keyboard.press("g")
        expect(_words(page)).to_contain_text("Who starts?")  # the race starts with the roll
        page.locator("#cards button").first.click()
        expect(page.locator("#sounds")).to_contain_text("card")
        show("Trap Attack  P1", "card_ok")
        assert _lines(page, "#words") == 1 and _lines(page, "#sounds") == 1
        before = _places(page)
        show(
            " · ".join(["Trap Attack  P1", "AI moves 5: 11 -> 6"] * 4),
            ", ".join(["card_unknown"] * 6),
        )
        assert _lines(page, "#words") > 1 and _lines(page, "#sounds") > 1
        page.screenshot(path=str(tmp_path / "wrapped.png"))
        assert _places(page) == before


def test_a_bad_card_uid_is_said_beside_the_box_until_the_next_tap(browser, tmp_path):
    from playwright.sync_api import expect

    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("#link")).to_have_text("live")
        uid = page.get_by_role("textbox", name="Card UID")
        uid.fill("hello")
        page.get_by_role("button", name="Tap", exact=True).click()
        error = page.locator("#uid-error")
        # in plain words, for the simulator's reader (an RDM6300 unless configured otherwise)
        expect(error).to_have_text(
            re.compile(r"^not a card UID: use [\w ,]+, e\.g\. [0-9A-F]{8,}$")
        )
        expect(uid).to_have_attribute("aria-invalid", "true")
        box, said = uid.bounding_box(), error.bounding_box()
        assert 0 <= said["y"] - (box["y"] + box["height"]) < 40  # right under the box
        page.screenshot(path=str(tmp_path / "uid-error.png"))
        uid.fill("04A1B2C3")
        page.get_by_role("button", name="Tap", exact=True).click()
        expect(error).to_be_empty()
        expect(uid).not_to_have_attribute("aria-invalid", "true")


def test_the_round_buttons_labels_are_centred(browser, tmp_path):
    with sim_web(tmp_path) as (url, _proc):
        page = browser.new_page()
        page.goto(url)
        for name in ("Green", "Red"):
            off = page.get_by_role("button", name=name, exact=True).evaluate(
                """b => { const r = document.createRange(); r.selectNodeContents(b);
                    const t = r.getBoundingClientRect(), o = b.getBoundingClientRect();
                    return [t.x + t.width / 2 - (o.x + o.width / 2),
                            t.y + t.height / 2 - (o.y + o.height / 2)]; }"""
            )
            assert abs(off[0]) <= 1.5 and abs(off[1]) <= 1.5, (name, off)
