"""The guard's units beside the box's: written by the update before a trial begins.

trap-companion-update-guard.service runs at boot before the box while a trial marker is there;
trap-companion-update-rollback.service runs when the box's unit fails (its OnFailure=, in the
drop-in update.conf). Both are no-ops without the marker. The texts are in companion/data/.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from companion.release.systemd import UNIT, UNIT_DIR

log = logging.getLogger(__name__)

GUARD = "trap-companion-update-guard.service"
ROLLBACK = "trap-companion-update-rollback.service"
FILES = {  # where, from which data file
    GUARD: "update-guard.service",
    ROLLBACK: "update-rollback.service",
    f"{UNIT}.d/update.conf": "systemd-update.conf",
}


def install(run: Callable[[list[str]], object], unit_dir: Path = UNIT_DIR) -> bool:
    """Write what is missing or different, reload systemd and enable the guard; True if
    anything changed."""
    changed = False
    data = resources.files("companion") / "data"
    for where, name in FILES.items():
        text = (data / name).read_text()
        path = unit_dir / where
        if path.is_file() and path.read_text() == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text)
        tmp.chmod(0o644)
        tmp.replace(path)
        log.info("wrote %s", path)
        changed = True
    if changed:
        run(["systemctl", "daemon-reload"])
    wants = unit_dir / "multi-user.target.wants" / GUARD
    if not wants.is_symlink():
        run(["systemctl", "enable", GUARD])
        changed = True
    return changed
