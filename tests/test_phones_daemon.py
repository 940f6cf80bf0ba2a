"""`trap-companion run` with the phones off imports nothing of the web and listens nowhere;
with them on, the phones' server answers, and the box is READY whatever the port does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.phones_support import free_port

# Runs the real `run` command; once READY, it reports what was imported and asks for a stop.
PROBE = r"""
import json, socket, sys, threading, time, urllib.error, urllib.request
from companion.daemon import Daemon
ready = Daemon.ready
answer = {}
def probe(self):
    ready(self)
    def check():
        try:
            port = self.config.phones.port
            for _ in range(2400):  # the phones start just after READY (guard: 120 s)
                if self.phones is not None or not self.config.phones.enabled:
                    break
                time.sleep(0.05)
            if self.phones is not None:
                self.phones.ready.wait(120)  # a hang guard: 16-36 s under QEMU, loaded
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5)
                except urllib.error.HTTPError as err:
                    answer["status"] = err.code
            answer["modules"] = sorted(
                m for m in sys.modules
                if m.split(".")[0] == "aiohttp" or m.startswith("companion.web")
            )
            answer["listening"] = [s for s in self.app.status_line().split("; ") if "phones" in s]
        except Exception as err:  # the probe says what went wrong instead of hanging the box
            answer["error"] = repr(err)
        finally:
            self.stop("probe done")
    threading.Thread(target=check).start()
Daemon.ready = probe
from companion.cli import main
code = main(["run", "--config", sys.argv[1]])
print(json.dumps({**answer, "code": code}))
"""


def run_probe(tmp_path: Path, phones: str) -> dict:
    config = tmp_path / "config.toml"
    config.write_text(
        '[hardware]\npin_factory = "mock"\n[display]\ndriver = "dummy"\n[reader]\ntype = "none"\n'
        f'[state]\ndir = "{tmp_path}/state"\n{phones}'
    )
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(config)],
        capture_output=True,
        text=True,
        timeout=240,  # a guard against a hang: the probe stops the box whatever it finds
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def probe_on_a_free_port(tmp_path: Path, extra: str = "") -> tuple[int, dict]:
    """The probe with the phones on a port free when chosen; another test may take it before
    the box binds it (the box then plays on without phones and says so): a new port then."""
    for _ in range(3):
        port = free_port()
        got = run_probe(tmp_path, f"[phones]\nenabled = true\nport = {port}\n{extra}")
        if "status" in got:
            return port, got
    return port, got


def test_with_phones_off_nothing_of_the_web_is_imported(tmp_path: Path) -> None:
    got = run_probe(tmp_path, "")
    assert got == {"modules": [], "listening": [], "code": 0}
    got = run_probe(tmp_path, "[phones]\nenabled = false\nport = 8081\n")
    assert got["modules"] == []


def test_with_phones_on_the_server_answers_from_a_process_of_its_own(tmp_path: Path) -> None:
    """Issue 33: by default the phones' server is a child process: the box's own process never
    loads aiohttp nor the routes, and says the phones are on once the child has linked."""
    port, got = probe_on_a_free_port(tmp_path)
    assert got["status"] == 401  # unpaired
    assert "aiohttp" not in got["modules"] and "companion.web.phone_routes" not in got["modules"]
    assert "companion.web.link_box" in got["modules"]
    assert got["listening"] == [f"phones on port {port}"]
    assert got["code"] == 0


def test_with_the_server_in_the_box_s_process_it_answers_too(tmp_path: Path) -> None:
    port, got = probe_on_a_free_port(tmp_path, 'server = "thread"\n')
    assert got["status"] == 401  # unpaired
    assert "aiohttp" in got["modules"] and "companion.web.phone_routes" in got["modules"]
    assert got["listening"] == [f"phones on port {port}"]
    assert got["code"] == 0
