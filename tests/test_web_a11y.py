"""Both web faces checked by axe-core (bundled by axe-playwright-python: nothing is downloaded
when the tests run) in real headless Chromium: the simulator's page and the phone face, the
phone unpaired and paired, a game in play of every game, in the light and the dark scheme. Any
violation of impact serious or critical fails. The phone's touch targets are measured at
390x844 (44x44 CSS px at least), and neither face asks for anything that is not there (no
favicon 404). Screenshots of every screen are left in the test's directory (and in
``$TRAP_SHOTS`` when set), to be looked at."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from browser_support import IN_PLAY, SKIP, both_faces, chromium, game_in_play, phone

from tests.phones_support import live_box, pair

pytestmark = SKIP

SCHEMES = ("light", "dark")
SERIOUS = ("serious", "critical")
TOUCH = 44  # CSS px, each way
TITLES = {
    "dice": "Dice",
    "trap-attack": "Trap Attack",
    "trapwords": "Trapwords",
    "cover-your-asps": "Cover Your Asps",
    "hostage-trap": "Hostage Trap!",
    "deathtrap-dungeon": "Deathtrap Dungeon",
}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def serious_violations(page) -> list[str]:
    """axe-core's violations of impact serious or critical on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in found
        if v["impact"] in SERIOUS
    ]


def shot(page, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if os.environ.get("TRAP_SHOTS"):
        Path(os.environ["TRAP_SHOTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(os.environ["TRAP_SHOTS"]) / path.name)


def watch(page) -> list[str]:
    """What goes wrong while the page is open: answers of 400 and more (a missing favicon),
    script errors, anything the CSP refused."""
    problems: list[str] = []
    page.on(
        "response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None
    )
    page.on(  # (a failed load is said by its answer above, with its URL)
        "console",
        lambda m: (
            problems.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.on("pageerror", lambda err: problems.append(str(err)))
    return problems


@pytest.mark.parametrize("game", list(IN_PLAY))
def test_axe_finds_nothing_serious_on_either_face_in_either_scheme(browser, tmp_path, game):
    from playwright.sync_api import expect

    game_in_play(tmp_path, game)
    with both_faces(tmp_path) as (box, page_url):
        token = pair(box)
        for scheme in SCHEMES:
            context = browser.new_context(
                color_scheme=scheme, viewport={"width": 1280, "height": 900}
            )
            page = context.new_page()
            problems = watch(page)
            page.goto(page_url)
            expect(page.locator("#link")).to_have_text("live")
            expect(page.locator("#cards")).not_to_contain_text("Start a game")  # its deck
            expect(page.locator("#words")).not_to_contain_text("paired", timeout=10_000)
            assert serious_violations(page) == [], (game, scheme, "page")
            shot(page, tmp_path, f"page-{game}-{scheme}")
            assert problems == []
            context.close()

            mobile = phone(browser, box, token, scheme)
            problems = watch(mobile)
            mobile.reload()
            expect(mobile.locator("#title")).to_have_text(TITLES[game])
            expect(mobile.locator("#link")).to_have_text("live")
            assert serious_violations(mobile) == [], (game, scheme, "phone")
            shot(mobile, tmp_path, f"phone-{game}-{scheme}")
            assert problems == []
            mobile.context.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_nothing_serious_before_pairing(browser, tmp_path, scheme):
    from playwright.sync_api import expect

    with live_box(tmp_path) as box:
        mobile = phone(browser, box, None, scheme)
        problems = watch(mobile)
        mobile.reload()
        expect(mobile.get_by_role("heading", name="Pair this phone")).to_be_visible()
        assert serious_violations(mobile) == []
        mobile.get_by_label("Pairing code").fill("000000")
        mobile.get_by_role("button", name="Pair").click()
        expect(mobile.locator("#pair-error")).not_to_be_empty()  # the alert's colours too
        assert serious_violations(mobile) == []
        shot(mobile, tmp_path, f"phone-unpaired-{scheme}")
        assert [p for p in problems if "/api/" not in p] == []  # 401 and 403 are the answers
        mobile.context.close()


def small_targets(page) -> list[str]:
    """Every visible thing a finger can press, smaller than TOUCH x TOUCH CSS px."""
    return page.evaluate(
        """size => [...document.querySelectorAll(
                'button, input, select, textarea, a[href], [role=button], summary')]
            .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
            .map(e => [e, e.getBoundingClientRect()])
            .filter(([e, r]) => r.width < size || r.height < size)
            .map(([e, r]) => `${e.tagName.toLowerCase()}#${e.id} ${e.getAttribute('aria-label')
                || e.textContent.trim()}: ${r.width.toFixed(1)}x${r.height.toFixed(1)}`)""",
        TOUCH,
    )


def test_every_touch_target_on_the_phone_is_44_px_each_way(browser, tmp_path):
    from playwright.sync_api import expect

    from companion.core.registry import Card

    game_in_play(tmp_path, "deathtrap-dungeon")
    with live_box(tmp_path) as box:
        mobile = phone(browser, box, None)
        expect(mobile.get_by_role("heading", name="Pair this phone")).to_be_visible()
        assert small_targets(mobile) == []
        goblin = Card("0A0B0C0D01", "deathtrap-dungeon", "goblin", "Goblin", {"value": 1})
        box.on_loop(lambda: box.app.registry.enrol(goblin))
        mobile.context.close()

        mobile = phone(browser, box, pair(box))
        expect(mobile.locator("#title")).to_have_text("Deathtrap Dungeon")
        expect(mobile.get_by_role("button", name="Forget Goblin 0A0B0C0D01")).to_be_visible()
        expect(mobile.get_by_label("Card to enrol")).to_be_visible()
        assert small_targets(mobile) == []
        shot(mobile, tmp_path, "phone-touch-targets")
        mobile.context.close()
