"""A phone at the table, in real headless Chromium beside the simulator's page: it pairs with the
code read off the OLED, sees the scoreboard of a Deathtrap Dungeon game in play, uses the
remote, and enrols a deck with the box (the count follows each copy tapped on the box)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest
from browser_support import PHONE, SKIP, chromium, sim_web

from companion.replay import run_script
from tests.phones_support import free_port

pytestmark = SKIP

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def deathtrap_in_round_three(state_dir: Path) -> None:
    """A Deathtrap Dungeon game two rounds in, saved in the state dir the simulator resumes."""
    script = (ROOT / "tests" / "scripts" / "deathtrap-dungeon-four-players.txt").read_text()
    lines = script.splitlines()[:70]  # round 3 under way: seat 4 on turn
    out = run_script("\n".join(lines) + "\n", state_dir=state_dir)
    assert out[-1]["state"]["round"] == 3 and len(out[-1]["state"]["history"]) == 2


def sim_screen(url: str) -> list[str]:
    with urllib.request.urlopen(url + "api/state", timeout=5) as answer:
        return json.load(answer)["screen"]


def keys(page, *steps: tuple[str, str]) -> None:
    """Keys on the simulator's page, each waited for (a key repeated faster than a finger
    could press is dropped, as on the terminal)."""
    from playwright.sync_api import expect

    for key, then in steps:
        page.keyboard.press(key)
        expect(page.locator("#words")).to_contain_text(then)


def test_a_phone_pairs_follows_deathtrap_and_enrols_a_deck(browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    deathtrap_in_round_three(tmp_path)
    port = free_port()
    with sim_web(tmp_path, "--phones", str(port)) as (url, _proc):
        box = browser.new_page()
        box.goto(url)
        words = box.locator("#words")
        expect(box.locator("#link")).to_have_text("live")
        expect(words).to_contain_text("Deathtrap")

        phone_context = browser.new_context(**PHONE)
        phone = phone_context.new_page()
        phone_url = f"http://127.0.0.1:{port}/"
        phone.goto(phone_url)
        expect(phone.get_by_role("heading", name="Pair this phone")).to_be_visible()
        phone.screenshot(path=str(tmp_path / "phone-pair.png"))

        # On the box: back, then up twice to "Pair a phone" (the menu wraps), ok.
        keys(box, ("b", "Resume"), ("k", "> Forget phones"), ("k", "> Pair a phone"))
        box.keyboard.press("o")
        expect(words).to_contain_text("min")
        shown = " ".join(sim_screen(url))
        code = re.search(r"\b(\d{3}) (\d{3})\b", shown)
        assert code, shown

        # A wrong code first: refused, and the box still shows the code.
        phone.get_by_label("Pairing code").fill("000000" if code.group(0) != "000 000" else "1")
        phone.get_by_role("button", name="Pair").click()
        expect(phone.get_by_role("alert").first).to_contain_text("wrong code")
        phone.get_by_label("Pairing code").fill(code.group(1) + code.group(2))
        phone.get_by_role("button", name="Pair").click()
        phone.screenshot(path=str(tmp_path / "phone-after-pair.png"))
        expect(phone.locator("#link")).to_have_text("live")
        expect(words).to_contain_text("Phone paired")
        cookie = next(c for c in phone_context.cookies() if c["name"] == "tc_phone")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"

        # The game in play: whose turn, large; the scoreboard round by round; the chart.
        # The box's own presses reach it in their time: each is seen on the box before the next
        # (and before the phone's press below), or the phone's red could close the game menu.
        box.keyboard.press("b")  # the notice away, back to the game menu: resume
        expect(words).to_contain_text("Resume")
        box.keyboard.press("o")
        expect(words).not_to_contain_text("Resume")
        expect(phone.locator("#title")).to_have_text("Deathtrap Dungeon")
        expect(phone.get_by_label("Whose turn")).to_have_text("Seat 4")
        board = phone.get_by_role("table", name="Scoreboard")
        expect(board).to_contain_text("R1")
        expect(board).to_contain_text("R2")
        expect(board.locator("tr", has_text="Seat 1")).to_contain_text("6")  # 2 + 4 points
        expect(phone.get_by_role("img", name="Points by round")).to_be_visible()
        phone.screenshot(path=str(tmp_path / "phone-deathtrap.png"), full_page=True)

        # The remote: seat 4 passes with red from the phone; the turn moves on for everyone.
        phone.get_by_role("button", name="Red", exact=True).click()
        expect(phone.get_by_label("Whose turn")).not_to_have_text("Seat 4")

        # Enrol a deck: Goblins of value 1, started on the phone, tapped on the box.
        phone.get_by_label("Card to enrol").select_option(label="Goblin")
        phone.get_by_label("value").fill("1")
        phone.get_by_role("button", name="Start enrolling").click()
        run = phone.get_by_role("status", name="Enrolment run")
        expect(run).to_contain_text("Goblin: 0 copies enrolled")
        expect(words).to_contain_text("Goblin")
        uid_box = box.get_by_role("textbox", name="Card UID")
        for n, uid in enumerate(("0A0B0C0D01", "0A0B0C0D02", "0A0B0C0D03"), start=1):
            uid_box.fill(uid)
            box.get_by_role("button", name="Tap", exact=True).click()
            expect(run).to_contain_text(f"{n} cop")
            box.wait_for_timeout(400)  # the card lifted before the next goes down
        phone.screenshot(path=str(tmp_path / "phone-enrol.png"), full_page=True)
        phone.get_by_role("button", name="Back", exact=True).click()  # the run ends
        expect(phone.locator("#enrol-run")).to_be_empty()
        phone.get_by_role("button", name="Show the cards").click()
        cards = phone.get_by_role("list", name="Enrolled cards")
        expect(cards).to_contain_text("0A0B0C0D03")

        # Forget one card from the phone.
        phone.once("dialog", lambda dialog: dialog.accept())
        phone.get_by_role("button", name="Forget Goblin 0A0B0C0D02").click()
        expect(cards).not_to_contain_text("0A0B0C0D02")
        expect(cards).to_contain_text("0A0B0C0D01")

        # Forget phones on the box: the phone is asked to pair again.
        keys(box, ("b", "Resume"), ("k", "> Forget phones"), ("o", "Forget phones?"))
        box.keyboard.press("o")
        expect(words).to_contain_text("forgotten")
        expect(phone.get_by_role("heading", name="Pair this phone")).to_be_visible()
        phone_context.close()
