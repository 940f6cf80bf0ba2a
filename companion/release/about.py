"""Which release runs and which one is kept for going back: `trap-companion version` and the
phones' about section say the same."""

from __future__ import annotations

import time
from dataclasses import dataclass
from importlib import metadata

from companion.release import trial as trials
from companion.release.layout import Layout


@dataclass(frozen=True)
class About:
    program: str  # the version of the code answering (companion.__version__)
    running: str | None  # the release ``current`` names; None: not installed as releases
    kept: str | None  # the release ``previous`` names
    on_trial: str | None  # the release being proven, if an update is under way
    installed_at: str  # when the running release was built, as RELEASE.json says

    def lines(self, root: str) -> list[str]:
        if self.running is None:
            return [
                f"trap-companion {self.program}",
                f"no release installed under {root} (this is a development checkout)",
            ]
        said = f"running:  {self.running}"
        if self.installed_at:
            said += f" (installed {self.installed_at})"
        out = [said]
        if self.on_trial:
            out.append(f"on trial: {self.on_trial} (until it has proven it starts and stays up)")
        if self.kept:
            out.append(f"kept:     {self.kept} (sudo trap-companion update --rollback goes back)")
        else:
            out.append("kept:     none (no earlier release to go back to)")
        if self.program not in (self.running, self.on_trial):
            out.append(f"this program: {self.program} (not the installed release)")
        return out

    def as_dict(self) -> dict[str, str | None]:
        return {
            "program": self.program,
            "running": self.running,
            "kept": self.kept,
            "on_trial": self.on_trial,
            "installed_at": self.installed_at or None,
        }


def program_version(fallback: str) -> str:
    """This program's version as its installed metadata says (a release's wheel is stamped
    with the release's version, "0.1.0+g1a2b3c4d"); ``fallback`` where it has none."""
    try:
        return metadata.version("trap-companion")
    except metadata.PackageNotFoundError:
        return fallback


def about(layout: Layout, program: str) -> About:
    running = layout.current
    trial = trials.read(layout)
    installed_at = ""
    if running is not None:
        stamp = layout.info(running).get("installed_at")
        if isinstance(stamp, str):
            installed_at = stamp
        elif isinstance(stamp, (int, float)):
            installed_at = time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
    return About(
        program=program,
        running=running,
        kept=layout.previous if layout.previous != running else None,
        on_trial=trial.to_version if trial and trial.to_version == running else None,
        installed_at=installed_at,
    )
