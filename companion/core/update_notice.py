"""The notice an update leaves for the OLED when it went back (companion/release/notice.py
writes it as root): read once at the daemon's start, then removed."""

from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)

NOTICE_FILE = "update-notice.json"


def take(state_dir: Path) -> list[tuple[str, ...]]:
    """The notices left for the OLED, removed once read (the daemon's side)."""
    path = state_dir / NOTICE_FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as err:
        log.warning("the update's notice %s cannot be read: %s", path, err)
        data = {}
    try:
        path.unlink()
    except OSError as err:
        log.warning("cannot remove the update's notice %s: %s", path, err)
    lines = data.get("lines") if isinstance(data, dict) else None
    if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines) or not lines:
        return []
    return [tuple(lines)]
