"""Real headless Chromium for the web tests: Debian's /usr/bin/chromium driven by Playwright
(from PyPI; never `playwright install`). Without that browser the tests are skipped, and the
reason says so in the summary."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("TRAP_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SIM_WEB = [sys.executable, "-m", "companion", "sim", "--web", "--display", "none", "--port", "0"]
SKIP = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"browser tests skipped: no Chromium at {CHROMIUM} (apt-get install chromium)",
)


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """A headless Chromium browser (Playwright's Browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def sim_web(state_dir: Path, *extra: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """`trap-companion sim --web --display none` on a free port: (its URL, the process)."""
    proc = subprocess.Popen(
        [*SIM_WEB, "--state-dir", str(state_dir), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        found = re.search(r"http://\S+/", line)
        if not found:
            proc.kill()
            raise AssertionError(f"no URL printed: {line!r} {proc.stderr.read()!r}")
        yield found.group(0), proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stdout.close()
        proc.stderr.close()


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
ROOT = Path(__file__).resolve().parents[1]
# A game in play for each game: the first part of a script that plays it.
IN_PLAY = {
    "dice": ("examples/dice.txt", 7),
    "trap-attack": ("tests/scripts/trap-attack-solo-to-boat.txt", 49),
    "trapwords": ("tests/scripts/trapwords-round.txt", 9),
    "cover-your-asps": ("tests/scripts/cover-your-asps-four-players.txt", 134),
    "hostage-trap": ("tests/scripts/hostage-trap-three-players.txt", 26),
    "deathtrap-dungeon": ("tests/scripts/deathtrap-dungeon-four-players.txt", 58),
}


def game_in_play(state_dir: Path, game: str) -> None:
    """Leave ``game`` in play, part way through, in the state dir a box resumes."""
    from companion.replay import run_script

    script, lines = IN_PLAY[game]
    text = "\n".join((ROOT / script).read_text(encoding="utf-8").splitlines()[:lines]) + "\n"
    assert run_script(text, state_dir=state_dir)[-1]["game"] == game


@contextlib.contextmanager
def both_faces(state_dir: Path) -> Iterator[tuple[object, str]]:
    """A simulated box on the real clock with both web faces, in this process: the phones' (on
    ``box.url()``) and the simulator's page (on the URL given)."""
    from companion.sim.web import serve
    from tests.phones_support import live_box

    with live_box(state_dir) as box:
        page = serve(box.box, box.controls, 0)
        try:
            box.on_loop(lambda: None)  # a refresh: the page has its first frame
            yield box, page.url
        finally:
            page.stop()


def phone(browser: object, box: object, token: str | None, scheme: str = "light") -> object:
    """A phone's page (390x844, touch) on the box's phone face, paired when a token is given."""
    context = browser.new_context(**PHONE, color_scheme=scheme)
    if token:
        context.add_cookies([{"name": "tc_phone", "value": token, "url": box.url()}])
    page = context.new_page()
    page.goto(box.url())
    return page
