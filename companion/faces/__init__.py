"""Faces of the box: the terminal simulator, the web page and the phones all see the box the same
way, through one small interface.

- snapshot.py: ``Snapshot``, what the box shows after a refresh (frozen; safe on any thread).
- face.py: ``Face`` (``show(snapshot)``, called on the loop thread, never blocking) and
  ``Controls`` (``press``/``tap``, which only post onto the loop's queue).
- hub.py: ``Hub``, the App's list of faces; it publishes a Snapshot after every refresh.

A face needs nothing else from the App: it is handed a Controls and registered with the hub.
Nothing here imports a web library; the web faces live in companion/web/.
"""

from companion.faces.face import Controls, Face
from companion.faces.hub import Hub
from companion.faces.snapshot import Snapshot

__all__ = ["Controls", "Face", "Hub", "Snapshot"]
