"""The releases on disk: which are finished, which one runs, which one is kept for going back.

A release is a directory releases/<version>/ with RELEASE.json written last (by rename): a
directory without it is unfinished (a build a power cut stopped) and is never pointed at.
``current`` and ``previous`` are symlinks replaced by rename, then the directory is fsync'ed, so
a power cut leaves either the old link or the new one, never none.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from companion.core.durable import fsync_dir as sync_dir  # the box's own, for its links

log = logging.getLogger(__name__)

OPT_DIR = Path("/opt/trap-companion")
RELEASE_FILE = "RELEASE.json"
CURRENT, PREVIOUS = "current", "previous"


@dataclass(frozen=True)
class Layout:
    """/opt/trap-companion (or a test's temp dir)."""

    root: Path = OPT_DIR

    @property
    def releases(self) -> Path:
        return self.root / "releases"

    def release(self, version: str) -> Path:
        return self.releases / version

    def finished(self, version: str) -> bool:
        return (self.release(version) / RELEASE_FILE).is_file()

    def info(self, version: str) -> dict[str, object]:
        """RELEASE.json of a finished release; {} when it cannot be read."""
        try:
            data = json.loads((self.release(version) / RELEASE_FILE).read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def link(self, name: str) -> str | None:
        """The version ``current`` or ``previous`` names; None without the link."""
        try:
            target = os.readlink(self.root / name)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            log.warning("cannot read %s: %s", self.root / name, err)
            return None
        return Path(target).name or None

    @property
    def current(self) -> str | None:
        return self.link(CURRENT)

    @property
    def previous(self) -> str | None:
        return self.link(PREVIOUS)

    def installed(self) -> bool:
        """Installed as releases (install.sh --bundle), not as the older single venv."""
        return self.current is not None

    def point(self, name: str, version: str | None) -> None:
        """Make ``name`` name releases/<version> (None: remove it), atomically and durably."""
        path = self.root / name
        if version is None:
            if path.is_symlink():
                path.unlink()
                sync_dir(self.root)
            return
        if not self.finished(version):
            raise FileNotFoundError(f"{self.release(version)} is not a finished release")
        new = self.root / f".{name}.new"
        if new.is_symlink() or new.exists():
            new.unlink()
        new.symlink_to(Path("releases") / version)
        os.replace(new, path)
        sync_dir(self.root)

    def versions(self) -> list[str]:
        """Every finished release, oldest first (by install time)."""
        if not self.releases.is_dir():
            return []
        found = [d.name for d in self.releases.iterdir() if d.is_dir() and self.finished(d.name)]
        return sorted(found, key=lambda v: ((self.release(v) / RELEASE_FILE).stat().st_mtime, v))

    def unfinished(self) -> list[str]:
        if not self.releases.is_dir():
            return []
        return sorted(
            d.name for d in self.releases.iterdir() if d.is_dir() and not self.finished(d.name)
        )

    def remove(self, version: str) -> None:
        """Remove releases/<version>, unless a link names it."""
        if version in (self.current, self.previous):
            raise ValueError(f"release {version} is in use; not removed")
        path = self.release(version)
        # Unfinished first: a cut in the middle of the removal leaves a dir the next update
        # removes, never one that looks finished but lacks files.
        (path / RELEASE_FILE).unlink(missing_ok=True)
        shutil.rmtree(path, ignore_errors=True)
        log.info("removed release %s", version)

    def prune(self, keep: tuple[str | None, ...] = ()) -> list[str]:
        """Remove every release but current, previous and ``keep``; unfinished ones too."""
        keeping = {self.current, self.previous, *keep} - {None}
        gone = [v for v in [*self.versions(), *self.unfinished()] if v not in keeping]
        for version in gone:
            self.remove(version)
        return gone


def write_durably(path: Path, text: str, mode: int = 0o644) -> None:
    """Write by a temp file renamed into place, fsync'ed: the old file or the new, whole."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    sync_dir(path.parent)


def pin_release(argv: list[str]) -> None:
    """Run on from the release's own directory, not through ``current`` or ``previous``, which
    this process is about to switch: a module imported after the switch would otherwise come
    from the other release. Re-executes ``python -m ARGV`` from the resolved venv once."""
    exe = Path(sys.executable)
    real = Path(os.path.realpath(exe.parent)) / exe.name
    if real.parent == exe.parent or os.environ.get("TRAP_COMPANION_PINNED"):
        return
    os.environ["TRAP_COMPANION_PINNED"] = "1"
    os.execv(real, [str(real), "-m", *argv])
