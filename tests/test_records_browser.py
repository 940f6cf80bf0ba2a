"""Issue 48, point 3: the players' records on a paired phone (390 px, headless Chromium): tables
and plots drawn with the uPlot the box serves itself (nothing from the network), each plot with
its numbers as a table; axe-core finds nothing serious in either colour scheme; every control
is a 44 px touch target. Screenshots are left in the test's directory (and ``$TRAP_SHOTS``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from browser_support import SKIP, chromium, phone
from test_web_a11y import serious_violations

from companion.replay import run_script
from tests.phones_support import live_box, pair

pytestmark = SKIP
SCRIPTS = Path(__file__).parent / "scripts"
CLAIM = "do claim player={} hostages=red,green,blue\n"


def _plays(state: Path) -> None:
    run_script((SCRIPTS / "deathtrap-dungeon-named-players.txt").read_text(), state_dir=state)
    tables = ((2, "Ann Bob Cy"), (1, "Bob Ann Cy"), (3, "Dee Bob Ann"), (2, "Ann Dee Bob"))
    for winner, names in tables:
        script = f"game hostage-trap players=3\nnames {names}\n" + CLAIM.format(winner)
        run_script(script, state_dir=state)


def _shot(page, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if os.environ.get("TRAP_SHOTS"):
        Path(os.environ["TRAP_SHOTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(os.environ["TRAP_SHOTS"]) / path.name)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_records_read_on_a_phone_with_plots_and_their_tables(tmp_path: Path, scheme: str):
    state = tmp_path / "state"
    _plays(state)
    requests: list[str] = []
    with chromium() as browser, live_box(state) as box:
        token = pair(box)
        page = phone(browser, box, token, scheme)
        page.on("request", lambda r: requests.append(r.url))
        page.wait_for_selector("#stats", state="attached")
        assert not [u for u in requests if "uplot" in u or "records.js" in u]  # not before
        page.click("#stats summary")
        page.wait_for_selector("#stats-body table")
        page.wait_for_selector(".plot canvas")
        captions = page.locator(".plot figcaption").all_inner_texts()
        assert captions == ["Wins per player", "Scores over time"]
        first = page.locator("#stats-body table").first
        assert "Ann" in first.inner_text() and "Win rate" in first.inner_text()
        assert page.locator(".plot details table").count() == 2  # every plot has its numbers
        assert all(u.startswith(box.url()) for u in requests)  # nothing from the network
        page.select_option("#stats-game", "deathtrap-dungeon")
        page.locator(".plot").nth(2).wait_for()
        page.select_option("#h2h-a", "Ann")
        page.select_option("#h2h-b", "Bob")
        together = page.locator("#stats-body p", has_text="Ann and Bob played 1 time(s)")
        together.wait_for()
        assert "Ann won 1, Bob won 0" in together.inner_text()
        page.evaluate("document.querySelectorAll('.plot details').forEach(d => d.open = true)")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways at 390 px ({width})"
        _shot(page, tmp_path, f"records-{scheme}")
        assert serious_violations(page) == []
        controls = "#stats summary, #stats select, #exports a, #seats input"
        small = page.evaluate(
            "(sel) => [...document.querySelectorAll(sel)].filter(e => {"
            " const r = e.getBoundingClientRect(); return r.width && r.height < 44; })"
            ".map(e => e.outerHTML.slice(0, 60))",
            controls,
        )
        assert small == []
