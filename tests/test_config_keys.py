"""A config that is not valid TOML names the file, the line and the key that line shows, for
each of the ways an owner's editor (or a stranger) breaks it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from companion.core import config as configuration
from companion.errors import ConfigError

GOOD = b"[buzzer]\nvolume = 0.5\n[state]\n"
BROKEN = {
    "an unclosed string": (GOOD + b'dir = "/var/lib/x\n', 4, "state.dir"),
    "a missing value": (GOOD + b"dir =\n", 4, "state.dir"),
    "a duplicate key": (b"[buzzer]\nvolume = 0.5\nvolume = 0.6\n", 3, "buzzer.volume"),
    "a 5000-digit number": (b"[buzzer]\nvolume = " + b"9" * 5000 + b"\n", 2, "buzzer.volume"),
    "bytes that are not UTF-8": (GOOD + b'dir = "caf\xe9"\n', 4, "state.dir"),
    "deep nesting": (GOOD + b"dir = " + b"[" * 5000 + b"\n", 4, "state.dir"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_config_names_the_line_and_its_key(tmp_path, case):
    data, line, key = BROKEN[case]
    path = tmp_path / "config.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as err:
        configuration.load(path)
    assert str(err.value).startswith(f"{path}:{line}: {key}: "), str(err.value)
    assert "\n" not in str(err.value)


def test_the_daemon_says_it_in_one_line_and_exits_78(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(BROKEN["a duplicate key"][0])
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 78
    assert proc.stderr.splitlines() == [
        f"trap-companion: {path}:3: buzzer.volume: not valid TOML "
        "(Cannot overwrite a value (at line 3, column 13))"
    ]
