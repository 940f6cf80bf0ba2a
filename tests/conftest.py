"""Fixtures more than one test file starts the box with."""

import socket

import pytest
from hypothesis import HealthCheck, settings

from companion.hal.readers.fake import FakeRdm6300, PtyPort

# Hypothesis checks behaviour here, never speed (speed is `trap-companion bench`'s): no
# per-example deadline, which a loaded 2-core CI machine misses at random.
settings.register_profile("box", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("box")


@pytest.fixture
def daemon_env(tmp_path):
    """`run` as systemd starts it: a config with a fake RDM6300 on a pty and the dummy OLED,
    a notify socket, and the environment naming it (watchdog every 0.2 s)."""
    with PtyPort() as port:
        device = FakeRdm6300(port)
        config = tmp_path / "config.toml"
        config.write_text(
            '[hardware]\npin_factory = "mock"\n[display]\ndriver = "dummy"\n'
            f'[reader]\nport = "{port.path}"\n[state]\ndir = "{tmp_path}/state"\n'
        )
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(tmp_path / "notify.sock"))
        sock.settimeout(120)  # a hang guard: READY=1 took up to 12 s at a Pi Zero 2 W's pace
        env = {
            "NOTIFY_SOCKET": str(tmp_path / "notify.sock"),
            "WATCHDOG_USEC": "200000",
            "PATH": "/usr/bin:/bin",
        }
        yield config, sock, env, device
        sock.close()
        device.close()
