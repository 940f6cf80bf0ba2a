"""Issue 48's figure at a Pi's pace: the players' records first painted on a phone (headless
Chromium at 390 px, on this machine, as a phone beside the box) against the box served from the
Pi's CPU under QEMU (the container shares this machine's network), with 1,000 plays kept and
with none; the box's memory (resident set) with each; and a move's cost with each
(tools/plays_bench.py, run there). ``make pibench`` runs it after `trap-companion bench
--pi-class` (pitest.py's hook); ``pitest.py --bench --records`` runs it alone. Here too, for
reference: ``.venv/bin/python tools/pitest/records_paint.py`` (this machine's CPU).

The records are the page's "Players' records" (the same routes and files on the paired phone's
page and the simulator's, companion/web/players_routes.py); the box is `trap-companion sim --web`
with the plays in its state dir. First paint: from the click that opens them to the frame after
the first plot's canvas and the tables are in the page (records.js, uPlot and /api/records
fetched, the records made on the box's loop), in a fresh browser each time (nothing cached)."""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
RUNS = 5
PLAYS = (0, 1000)
OPEN_RECORDS = """async () => {
  const t0 = performance.now();
  document.querySelector('#stats summary').click();
  await new Promise((done) => {
    const look = () => (document.querySelector('.plot canvas') || document.querySelector(
      '#stats-body p')) && document.querySelector('#stats-body table, #stats-body p')
      ? requestAnimationFrame(() => done()) : requestAnimationFrame(look);
    look();
  });
  return performance.now() - t0;
}"""


def free_port() -> int:
    """A port free here (the container shares this machine's network)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_up(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url + "api/state", timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def paint(url: str, runs: int = RUNS) -> dict[str, float]:
    """The page's first contentful paint (ms, the median of ``runs`` fresh browsers); the
    records' first paint in the first browser (the box makes them: "cold") and the median of
    the others (the box has them made already, as for a second phone); /api/records alone, a
    head to head asked for the first time each run (made by the box each time: ms, median)."""
    from playwright.sync_api import sync_playwright

    pages, records, api = [], [], []
    with sync_playwright() as p:
        for _ in range(runs):
            browser = p.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--headless", "--disable-gpu"]
            )
            try:
                page = browser.new_context(**PHONE).new_page()
                page.goto(url)
                page.wait_for_selector("#stats summary")
                pages.append(
                    page.evaluate(
                        "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0"
                    )
                )
                records.append(page.evaluate(OPEN_RECORDS))
            finally:
                browser.close()
            started = time.perf_counter()
            fresh = f"api/records?a=Player+1&b=Player+{len(api) + 2}"  # not made before
            with urllib.request.urlopen(url + fresh, timeout=60) as r:
                r.read()
            api.append((time.perf_counter() - started) * 1000)
    return {
        "page_first_paint_ms": round(statistics.median(pages)),
        "records_first_paint_cold_ms": round(records[0]),
        "records_first_paint_ms": round(statistics.median(records[1:] or records)),
        "api_records_ms": round(statistics.median(api)),
    }


def figures(
    sh: Callable[[str], subprocess.CompletedProcess[str]],
    python: str,
    box_cmd: str,
    clone: str,
    start_seconds: float,
) -> dict[str, Any]:
    """The figures with ``sh`` running a shell script where the box runs (the container, or
    here); ``python`` and ``box_cmd`` are its venv's python and trap-companion."""
    out: dict[str, Any] = {}
    for n in PLAYS:
        state = f"/var/tmp/records-paint-{n}"
        made = sh(
            f"rm -rf {state} && mkdir -p {state} && "
            f"{python} {clone}/tools/plays_bench.py --plays {n} --write {state}/plays.json"
        )
        if made.returncode != 0:
            raise RuntimeError(f"plays not written: {made.stderr[-400:]}")
        port = free_port()
        started = sh(
            f"nohup {box_cmd} sim --web --display none --port {port} --state-dir {state} "
            f"> {state}/out 2>&1 & echo $!"
        )
        pid = started.stdout.strip().splitlines()[-1]
        try:
            url = f"http://127.0.0.1:{port}/"
            wait_up(url, start_seconds)
            rss_start = _rss(sh, pid)
            out[f"{n}_plays"] = {**paint(url), "rss_start_kib": rss_start}
            out[f"{n}_plays"]["rss_after_kib"] = _rss(sh, pid)
        finally:
            sh(f"kill {pid}; sleep 1; kill -9 {pid} 2>/dev/null; true")
    moves = sh(f"cd {clone} && {python} tools/plays_bench.py --plays 1000 --moves 100")
    if moves.returncode == 0:
        figures_ = json.loads(moves.stdout)
        out["move_ms"] = {k: v for k, v in figures_.items() if k.startswith("move_ms")}
        out["plays_memory_kib"] = figures_["plays_memory_kib"]
    return out


def _rss(sh: Callable[[str], subprocess.CompletedProcess[str]], pid: str) -> int:
    found = sh(f"grep VmRSS /proc/{pid}/status").stdout.split()
    return int(found[1]) if len(found) > 1 else 0


def in_container(box: Any, venv: str, clone: str, pace: float = 10.0) -> dict[str, Any]:
    """pitest's hook: the figures with the box on the emulated CPU (its start given at least
    five minutes: a busy machine under QEMU)."""
    return figures(
        lambda script: box.sh(script, timeout=1800),
        f"{venv}/bin/python",
        f"{venv}/bin/trap-companion",
        clone,
        max(300.0, 60 * pace),
    )


def here() -> dict[str, Any]:
    """The same figures with the box on this machine's CPU."""

    def sh(script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=REPO)

    venv = REPO / ".venv" / "bin"
    return figures(sh, str(venv / "python"), str(venv / "trap-companion"), str(REPO), 60)


def lines(arch: str, emulated: dict[str, Any], native: dict[str, Any] | None) -> list[str]:
    """The figures as pitest says them."""
    out = []
    for n in PLAYS:
        for name, f in ((arch, emulated), ("here", native)):
            if not f:
                continue
            e = f[f"{n}_plays"]
            out.append(
                f"pitest: records ({name}, {n} plays kept): page first paint "
                f"{e['page_first_paint_ms']} ms, records first paint "
                f"{e['records_first_paint_cold_ms']} ms (made), {e['records_first_paint_ms']} ms "
                f"(made already), /api/records {e['api_records_ms']} ms, box's memory "
                f"{e['rss_start_kib'] // 1024} MiB at start, {e['rss_after_kib'] // 1024} MiB after"
            )
    for name, f in ((arch, emulated), ("here", native)):
        if f and "move_ms" in f:
            out.append(f"pitest: a move ({name}): {json.dumps(f['move_ms'])} ms")
    return out


def main() -> int:
    with tempfile.TemporaryDirectory():
        print(json.dumps(here(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
