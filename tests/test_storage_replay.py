"""`replay` on a state dir that takes no writes (full, read-only) exits 73 with one line
naming the directory, never 70 and a traceback: what it prints must be what the box keeps."""

from __future__ import annotations

import subprocess
import sys

import pytest
from storage_support import fill, remount, small_disk

SCRIPT = "game dice\npress green\npress green\n"


def _replay(config, env=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "replay", "-", "--config", str(config)],
        input=SCRIPT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


@pytest.mark.parametrize("how", ["full", "read-only"])
def test_replay_on_a_state_dir_that_takes_no_writes_exits_73_naming_it(tmp_path, how):
    config = tmp_path / "config.toml"
    with small_disk(tmp_path / "state", "64k") as state:
        config.write_text(f'[state]\ndir = "{state}"\n')
        if how == "full":
            fill(state)
        else:
            remount(state, read_only=True)
        proc = _replay(config)
    assert proc.returncode == 73, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"trap-companion: {state}: the state directory takes no writes")
    remedy = "free some space" if how == "full" else "mount it writable"
    assert remedy in lines[0], lines[0]
    assert proc.stdout == ""
