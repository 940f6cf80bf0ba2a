"""An update and a rollback by hand: build beside, check, mark, switch, restart, prove or go back.

Each step is named (STEPS) and announced through ``step(name)`` once it is done and durable, so
the systest can cut the power right after any of them and check the boot that follows
(tools/systest/systest.py, "update-cut"). What a cut after each step leaves:

  bundle-checked, built, release-checked   current unchanged, no marker: the old release boots
                                           (an unfinished build is removed by the next update)
  marked, kept, switched, restarted        a marker from an earlier boot: the guard puts
                                           current back on the old release before the unit starts
  proven                                   the same (proven, but not committed yet)
  committed, pruned                        no marker: the new release boots
  undo-switched                            current already back, the marker still there: the
                                           guard finishes going back
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from companion.release import trial as trials
from companion.release.layout import CURRENT, PREVIOUS, Layout

log = logging.getLogger(__name__)

STEPS = (
    "bundle-checked",
    "built",
    "release-checked",
    "marked",
    "kept",
    "switched",
    "restarted",
    "proven",
    "committed",
    "pruned",
)
UNDO_STEPS = ("undo-switched", "undone")
clock = time.monotonic  # the figures' clock (ready_seconds, back_seconds)
PROVE_SECONDS = 60.0  # how long a new release must stay up after READY


class Service(Protocol):
    """The box's unit, as the update sees it (companion/release/systemd.py; fakes in tests)."""

    def restart(self) -> None: ...

    def prove(self, stay_seconds: float) -> str | None:
        """Wait for READY within the start timeout, then ``stay_seconds`` up with the same
        process. None when proven, else why not, in a few words."""
        ...


class ReleaseRefused(Exception):
    """The new release failed its check before anything was switched."""


class TrialFailed(Exception):
    """The release on trial did not prove itself; the box is back on the old one."""

    def __init__(self, message: str, back_ready: str | None, back_seconds: float) -> None:
        super().__init__(message)
        self.message = message
        self.back_ready = back_ready  # None: the old release is READY again; else why not
        self.back_seconds = back_seconds  # from seeing the failure to the old one READY


@dataclass(frozen=True)
class Outcome:
    version: str
    kept: str | None
    removed: tuple[str, ...]
    ready_seconds: float = 0.0  # from the switch to READY (the restart)


Step = Callable[[str], None]
Notify = Callable[[str], None]  # the failure's one line, for the OLED and the journal


def _no_step(name: str) -> None:
    pass


def update(
    layout: Layout,
    service: Service,
    bundle: Path,
    check_bundle: Callable[[Path], object],
    install_release: Callable[[Path, Path], Path],
    check_release: Callable[[Path], None],
    notify: Notify,
    stay_seconds: float = PROVE_SECONDS,
    step: Step = _no_step,
) -> Outcome:
    """The whole update from a bundle file. Raises the bundle's own error before anything is
    touched, ReleaseRefused when the new release fails its check (nothing switched), and
    TrialFailed when it did not prove itself (back on the old one)."""
    manifest = check_bundle(bundle)
    step("bundle-checked")
    # What a cut left: an unfinished build, or one built but never switched to (but one of the
    # bundle's version: install_release reuses it).
    for version in layout.prune(keep=(getattr(manifest, "version", None),)):
        log.info("removed the leftover release %s", version)
    path = install_release(bundle, layout.root)
    version = path.name
    step("built")
    try:
        check_release(path)
    except ReleaseRefused:
        if version not in (layout.current, layout.previous):
            layout.remove(version)
        raise
    step("release-checked")
    return prove(layout, service, trials.UPDATE, version, notify, stay_seconds, step)


def rollback(
    layout: Layout,
    service: Service,
    notify: Notify,
    stay_seconds: float = PROVE_SECONDS,
    step: Step = _no_step,
) -> Outcome:
    """Back to the release kept for going back, proven like an update; the one left becomes
    the kept one (so going back can be undone the same way)."""
    kept = layout.previous
    if kept is None or not layout.finished(kept):
        raise FileNotFoundError("no release is kept for going back")
    return prove(layout, service, trials.ROLLBACK, kept, notify, stay_seconds, step)


def prove(
    layout: Layout,
    service: Service,
    kind: str,
    version: str,
    notify: Notify,
    stay_seconds: float,
    step: Step = _no_step,
) -> Outcome:
    trial = trials.begin(layout, kind, version)
    trials.write(layout, trial)
    step("marked")
    layout.point(PREVIOUS, trial.from_version)  # the guard runs from the proven one
    step("kept")
    layout.point(CURRENT, version)
    step("switched")
    switched = clock()
    ready_seconds = 0.0
    try:
        service.restart()
        ready_seconds = clock() - switched
        step("restarted")
        why = service.prove(stay_seconds)
    except KeyboardInterrupt:
        why = "interrupted"
    except OSError as err:
        why = f"cannot restart it: {err}"
    if why is not None:
        message = trial.failed_message(why)
        log.info("%s", message)  # said by notify (the journal) and by the caller
        seen = clock()
        back_ready = undo(layout, service, trial, message, notify, stay_seconds=0.0, step=step)
        raise TrialFailed(message, back_ready, clock() - seen)
    step("proven")
    trials.clear(layout)
    step("committed")
    removed = tuple(layout.prune())
    step("pruned")
    return Outcome(version, layout.previous, removed, ready_seconds)


def undo(
    layout: Layout,
    service: Service,
    trial: trials.Trial,
    message: str,
    notify: Notify,
    stay_seconds: float = 0.0,
    step: Step = _no_step,
) -> str | None:
    """Go back and restart on the old release; None once it is READY again, else why not."""

    def current_back() -> None:
        step("undo-switched")
        notify(message)

    trials.go_back(layout, trial, current_back)
    step("undone")
    try:
        service.restart()
        return service.prove(stay_seconds)
    except OSError as err:
        return f"cannot restart it: {err}"
