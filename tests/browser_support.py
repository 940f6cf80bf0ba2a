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
