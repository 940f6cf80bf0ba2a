"""The trial of a release: the marker written before the switch, and the way back.

Like RAUC's or Nerves' "mark good": ``trial.json`` is written (fsync'ed) before ``current`` is
switched and removed only once the new release has proven it starts and stays up. While it is
there the box is on trial, and whoever finds it with nobody proving (the guard at boot after a
power cut, or after the unit failed) goes back to the release it names as ``from``. Going back
points ``current`` first, then ``previous``, and removes the marker last: a cut anywhere in it
leaves a marker that says the same thing again.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from companion.release.layout import CURRENT, PREVIOUS, Layout, sync_dir, write_durably

log = logging.getLogger(__name__)

MARKER = "trial.json"
FORMAT = 1
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
UPDATE, ROLLBACK = "update", "rollback"


@dataclass(frozen=True)
class Trial:
    kind: str  # UPDATE (a new release) or ROLLBACK (the kept one, by hand)
    from_version: str  # the proven release it goes back to
    to_version: str  # the one on trial
    previous_before: str | None  # what ``previous`` named before, restored on the way back
    boot_id: str  # the boot it began in: found in a later boot, it was interrupted
    started: float

    def failed_message(self, why: str) -> str:
        what = "update" if self.kind == UPDATE else "going back"
        return f"{what} to {self.to_version} failed ({why}): back on {self.from_version}"


def boot_id() -> str:
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        return ""


def marker_path(layout: Layout) -> Path:
    return layout.root / MARKER


def read(layout: Layout) -> Trial | None:
    """The trial under way, or None. A marker that cannot be read is named in the log and
    treated as none: without it nothing says where to go back to (current was proven)."""
    path = marker_path(layout)
    try:
        data = json.loads(path.read_text())
        return Trial(
            kind=str(data["kind"]),
            from_version=str(data["from"]),
            to_version=str(data["to"]),
            previous_before=data.get("previous_before"),
            boot_id=str(data.get("boot_id", "")),
            started=float(data.get("started", 0)),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as err:
        log.error("%s cannot be read (%s): ignored", path, err)
        return None


def write(layout: Layout, trial: Trial) -> None:
    data = asdict(trial)
    data = {
        "format": FORMAT,
        "kind": data["kind"],
        "from": data["from_version"],
        "to": data["to_version"],
        "previous_before": data["previous_before"],
        "boot_id": data["boot_id"],
        "started": data["started"],
    }
    write_durably(marker_path(layout), json.dumps(data, indent=1) + "\n")


def clear(layout: Layout) -> None:
    """The commit point: the trial is over (proven, or gone back)."""
    path = marker_path(layout)
    if path.exists():
        path.unlink()
        sync_dir(layout.root)


def begin(layout: Layout, kind: str, to_version: str) -> Trial:
    current = layout.current
    if current is None:
        raise FileNotFoundError(f"no {layout.root / CURRENT}: nothing runs to come back to")
    return Trial(
        kind=kind,
        from_version=current,
        to_version=to_version,
        previous_before=layout.previous,
        boot_id=boot_id(),
        started=time.time(),
    )


def go_back(
    layout: Layout,
    trial: Trial,
    current_back: Callable[[], None] = lambda: None,
    remove_failed: bool = True,
) -> None:
    """``current`` back on ``from`` (then ``current_back()``: the notice), ``previous`` as it
    was, the failed new release removed (``remove_failed``; one a power cut interrupted is
    kept for the next update of that version to reuse), the marker last. Safe to run again
    after a cut at any point of it: the marker still says the same."""
    if layout.current != trial.from_version:
        layout.point(CURRENT, trial.from_version)
    current_back()
    before = trial.previous_before
    if before == trial.from_version or (before and not layout.finished(before)):
        before = None
    if layout.previous != before:
        layout.point(PREVIOUS, before)
    unused = trial.to_version not in (layout.current, layout.previous)
    if remove_failed and trial.kind == UPDATE and unused:
        layout.remove(trial.to_version)
    clear(layout)
