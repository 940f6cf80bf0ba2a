"""`make sim` on a fresh clone: every step of the first-run setup says what it is doing, so
half a minute of installing never looks like a hang."""

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_first_run_setup_announces_each_step(tmp_path):
    # A stand-in python: `-m venv DIR` makes DIR/bin/python, which accepts any pip call.
    stub = _script(tmp_path / "venv-python", "#!/bin/sh\nexit 0\n")
    fake = _script(
        tmp_path / "python3",
        f'#!/bin/sh\nmkdir -p "$3/bin" && cp {stub} "$3/bin/python"\n',
    )
    venv = tmp_path / "venv"
    proc = subprocess.run(
        ["make", "-C", str(ROOT), f"PYTHON={fake}", f"VENV={venv}", f"{venv}/.installed"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, MAKEFLAGS=""),
    )
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stdout.splitlines() if not line.startswith("make")]
    assert said == [
        f"==> setting up {venv} (first run only; about half a minute)",
        f"==> creating the virtual environment {venv}",
        "==> updating pip",
        "==> installing trap-companion and its libraries "
        "(Pillow, luma, gpiozero, pyserial, aiohttp, pytest, playwright, ruff)",
        "==> ready",
    ]
