"""`make sim`'s first run is quiet (issue 30, point 18): the editable install of the project
prints no setuptools warning box, and it stays editable. The Makefile's own install line is
run (its environment and options), into a scratch folder rather than the venv in use."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _install_line() -> tuple[dict[str, str], list[str]]:
    """The environment and pip options of the Makefile's editable install."""
    for line in (ROOT / "Makefile").read_text().splitlines():
        if "pip install" in line and " -e " in line:
            words = shlex.split(line.strip().lstrip("@"))
            env = dict(w.split("=", 1) for w in words if re.fullmatch(r"[A-Z_]+=.*", w))
            options = words[words.index("install") + 1 :]
            return env, [o for o in options if o not in ("-e", ".[dev]", "--prefer-binary")]
    raise AssertionError("no editable install in the Makefile")


def test_the_editable_install_prints_no_warning_box(tmp_path: Path) -> None:
    env, options = _install_line()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            *options,
            "--no-deps",
            "-e",
            ".",
            "--target",
            str(tmp_path),
        ],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "Editable installation" not in said and "****" not in said, said
    assert list(tmp_path.glob("__editable__*.pth"))  # still an editable install
