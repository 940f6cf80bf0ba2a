"""The App's faces: after every refresh, one Snapshot to each (on the loop thread).

With no face registered the hub costs the App one truth test per refresh: no snapshot is made.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from companion.faces.face import Face
from companion.faces.snapshot import Snapshot

log = logging.getLogger(__name__)


class Hub:
    def __init__(self) -> None:
        self._faces: tuple[Face, ...] = ()  # replaced whole: read without a lock
        self._lock = threading.Lock()
        self.seq = 0
        self.latest: Snapshot | None = None

    def __bool__(self) -> bool:
        return bool(self._faces)

    def add(self, face: Face) -> None:
        with self._lock:
            self._faces = (*self._faces, face)

    def remove(self, face: Face) -> None:
        with self._lock:
            self._faces = tuple(f for f in self._faces if f is not face)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def publish(self, make: Callable[[int], Snapshot]) -> Snapshot | None:
        """Build the snapshot (only if a face is there to see it) and show it to each face.
        A face that fails is logged and kept; the others still see the snapshot."""
        faces = self._faces
        if not faces:
            return None
        snapshot = make(self.next_seq())
        self.latest = snapshot
        for face in faces:
            try:
                face.show(snapshot)
            except Exception:
                log.exception("face %r failed to show a snapshot", face)
        return snapshot
