"""`trap-companion run` as systemd runs it: READY=1 once the loop runs, STATUS= lines, WATCHDOG=1,
a clean stop on SIGTERM or Ctrl-C before systemd would kill it (the unit's TimeoutStopSec),
and exit 78 on a bad config. How long the stop takes is measured by `bench`, not asserted."""

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_damaged_state import box_config, run_until_ready


def _start(config, env):
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop_timeout() -> float:
    """The unit's TimeoutStopSec: how long systemd waits after SIGTERM before SIGKILL."""
    unit = Path(__file__).parents[1] / "systemd" / "trap-companion.service"
    found = re.search(r"^TimeoutStopSec=(\d+)$", unit.read_text(), re.MULTILINE)
    assert found, f"{unit}: no TimeoutStopSec"
    return float(found.group(1))


def _messages_until(sock, needle, limit=50):
    seen = []
    for _ in range(limit):
        msg = sock.recv(4096).decode()
        seen.append(msg)
        if needle in msg:
            return seen
    raise AssertionError(f"{needle} never came: {seen}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_ready_status_watchdog_then_a_clean_stop(daemon_env, sig):
    config, sock, env, _ = daemon_env
    proc = _start(config, env)
    try:
        seen = _messages_until(sock, "READY=1")
        assert any("STATUS=" in m for m in seen)
        ready = next(m for m in seen if "READY=1" in m)
        assert "reader" in ready and "display ok" in ready
        _messages_until(sock, "WATCHDOG=1")
        proc.send_signal(sig)
        code = proc.wait(timeout=_stop_timeout())  # TimeoutExpired: systemd would SIGKILL it
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0
    stderr = proc.stderr.read()
    assert "stopping" in stderr
    assert "Traceback" not in stderr


def test_a_config_error_exits_78_naming_the_key(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[reader]\ntype = "magic"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 78
    assert f'{config}:2: reader.type = "magic"' in proc.stderr
    assert "Traceback" not in proc.stderr


def test_no_gpio_backend_on_a_laptop_is_a_clear_hardware_error(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'[display]\ndriver = "dummy"\n[state]\ndir = "{tmp_path}"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "GPIOZERO_PIN_FACTORY": "nonexistent"},
    )
    assert proc.returncode == 69
    assert "hardware.pin_factory = 'auto'" in proc.stderr


def _sigterm_to_a_worker(proc: subprocess.Popen) -> None:
    workers = sorted(int(t) for t in os.listdir(f"/proc/{proc.pid}/task") if t != str(proc.pid))
    assert workers, "the box runs worker threads"
    os.kill(workers[-1], signal.SIGTERM)  # a thread id: the kernel tries that thread first


def test_a_sigterm_the_kernel_hands_to_another_thread_still_stops_the_box(tmp_path):
    """With no display, no reader and no watchdog the loop has no deadline to wake it: a signal
    that lands on a worker thread once left the daemon asleep until systemd killed it."""
    _, log = run_until_ready(tmp_path, box_config(tmp_path), stop=_sigterm_to_a_worker)
    assert "stopping (SIGTERM)" in log
