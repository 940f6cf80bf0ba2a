"""What the power-cut tests share: the box as `replay -` in a subprocess, to be killed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def spawn_replay(config: Path) -> subprocess.Popen[bytes]:
    """`python -m companion replay - --config CONFIG`, lines in and out unbuffered."""
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "replay", "-", "--config", str(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
