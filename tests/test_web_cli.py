"""`sim --web` from the command line: its URL, a taken port (exit 69 naming it), options that
need --web; and a box without a web face never imports aiohttp."""

import socket
import subprocess
import sys
import urllib.request

from browser_support import sim_web


def _sim(*args, timeout=30):
    return subprocess.run(
        [sys.executable, "-m", "companion", "sim", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_sim_web_prints_its_url_on_127_0_0_1_and_serves_the_page(tmp_path):
    with sim_web(tmp_path) as (url, proc):
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=5) as r:
            assert b'alt="Display"' in r.read()
        proc.terminate()
        assert proc.wait(timeout=5) == 0


def test_a_taken_port_exits_69_naming_it(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = _sim("--web", "--display", "none", "--port", str(port), "--state-dir", str(tmp_path))
    assert out.returncode == 69
    assert f"port {port}" in out.stderr and "taken" in out.stderr
    assert "Traceback" not in out.stderr


def test_web_options_without_web_are_usage_errors(tmp_path):
    out = _sim("--port", "9000", "--state-dir", str(tmp_path))
    assert out.returncode == 2 and "--web" in out.stderr
    out = _sim("--display", "none", "--state-dir", str(tmp_path))
    assert out.returncode == 2 and "--web" in out.stderr
    out = _sim("--web", "--display", "none", "--port", "http", "--state-dir", str(tmp_path))
    assert out.returncode == 2 and "'http' is not a port" in out.stderr


def test_run_without_a_web_face_imports_no_aiohttp(daemon_env):
    """The daemon started and stopped under -X importtime: every module it imported is listed."""
    config, _, env, _ = daemon_env
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "companion", "-v", "run", "--config", config],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "ready" in line.lower() and "import time" not in line:
                break
        proc.terminate()
        _, rest = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    imported = "".join(lines) + rest
    assert "companion.app" in imported  # the box really started
    assert "aiohttp" not in imported
    assert "companion.web" not in imported


def test_a_server_whose_port_was_taken_starts_once_the_port_is_free():
    import pytest

    from companion.errors import PortTaken
    from companion.web.server import WebServer

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = WebServer("127.0.0.1", port)
        with pytest.raises(PortTaken, match=f"port {port}"):
            server.start()
    server.start()  # the other program has gone: the same server tries again
    try:
        assert server.url == f"http://127.0.0.1:{port}/"
    finally:
        server.stop()
