"""The players the box knows by name, and which seat of which game each sat in (issue 48).

``players.json`` in the state directory, written whole with a format version (wholefile.py):
the names, each with when it was last used (a counter: the box's pick list shows the recent ones
first), and the seating of the last games (a game's key, as the plays and the records name it,
and a name or null per seat, seat order). A seat may stay unnamed. The plays keep their own
copy of the names once a game ends, so the seating of old games can go.

"guest" is always offered and never kept as a player: it names a seat without a person."""

from __future__ import annotations

import unicodedata
from typing import Any

from companion.core import statefile
from companion.core.wholefile import WholeFile

GUEST = "guest"
MAX_NAME = 24  # characters of a name
SHORT = 8  # what the OLED shows of a name too long for its place
SEATINGS_KEPT = 50  # the last games' seating; their plays keep the names for good
MAX_PLAYERS = 500


class BadName(ValueError):
    """A name the box does not take: the message says why."""


def clean(text: str) -> str:
    """A name as kept: spaces trimmed and single; BadName if empty, too long or holding a
    control character."""
    name = " ".join(text.split())
    if not name:
        raise BadName("a name needs at least one letter")
    if len(name) > MAX_NAME:
        raise BadName(f"{name!r} is longer than {MAX_NAME} characters")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise BadName(f"{name!r} holds a control character")
    return name


def short(name: str, room: int = SHORT) -> str:
    """The name in at most ``room`` characters: as it is when it fits, else its first word,
    cut, so "Alexandra Smith" is "Alexandr"."""
    if len(name) <= room:
        return name
    first = name.split(" ")[0]
    return first if len(first) <= room else first[:room]


class Players(WholeFile):
    KEPT = statefile.PLAYERS
    LIST = "players"
    WHAT = "players"

    def _empty(self) -> None:
        self.used: dict[str, int] = {}  # name -> when last used (a counter, higher is later)
        self.seating: dict[str, list[str | None]] = {}  # game key -> a name per seat

    def _item(self, item: dict[str, Any]) -> None:
        name, used = item["name"], item.get("used", 0)
        if not isinstance(name, str) or not isinstance(used, int) or isinstance(used, bool):
            raise ValueError("a player needs a 'name' and a whole 'used'")
        self.used[clean(name)] = used

    def _more(self, data: dict[str, Any], where: str) -> None:
        seating = data.get("seating", [])
        if not isinstance(seating, list):
            raise ValueError("'seating' must be a list")
        for item in seating:
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                raise ValueError("a seating needs a 'key'")
            names = item.get("names")
            if not isinstance(names, list) or not all(
                n is None or isinstance(n, str) for n in names
            ):
                raise ValueError("a seating's 'names' must be a list of names or nulls")
            self.seating[item["key"]] = list(names)

    def _data(self) -> dict[str, Any]:
        return {
            "players": [{"name": n, "used": u} for n, u in self.used.items()],
            "seating": [{"key": k, "names": v} for k, v in self.seating.items()],
        }

    # --- reading ---------------------------------------------------------------------------

    def names(self) -> list[str]:
        """The known names, the most recently used first."""
        return sorted(self.used, key=lambda n: (-self.used[n], n.casefold()))

    def choices(self) -> list[str]:
        """What the box offers to pick: the known names, recent first, then "guest"."""
        return [*self.names(), GUEST]

    def seated(self, key: str, seats: int) -> list[str | None]:
        """The names of a game's seats (None: unnamed), ``seats`` long."""
        names = self.seating.get(key, [])
        return [names[i] if i < len(names) else None for i in range(seats)]

    # --- changes (each writes the file whole; OSError leaves memory as it was) --------------

    def seat(self, key: str, names: list[str | None]) -> None:
        """Name a game's seats (seat order; None leaves a seat unnamed)."""
        checked = [None if n is None else clean(n) for n in names]
        stamp = max(self.used.values(), default=0) + 1
        used = dict(self.used)
        for name in checked:
            if name is not None and name != GUEST:
                used.pop(name, None)
                used[name] = stamp
        seating = {k: v for k, v in self.seating.items() if k != key}
        seating[key] = checked
        while len(seating) > SEATINGS_KEPT:
            seating.pop(next(iter(seating)))
        while len(used) > MAX_PLAYERS:
            used.pop(min(used, key=lambda n: used[n]))
        self._change(used, seating)

    def add(self, name: str) -> str:
        """A name to pick from later (typed on a page, or imported)."""
        name = clean(name)
        if name != GUEST and name not in self.used:
            used = dict(self.used)
            used[name] = 0
            self._change(used, self.seating)
        return name

    def add_all(self, names: list[str]) -> list[str]:
        """Names to pick from later (imported): the ones the box did not know, written at once
        (BadName before anything is written if one is not taken)."""
        checked = [clean(n) for n in names]
        used = dict(self.used)
        added = []
        for name in checked:
            if name != GUEST and name not in used and len(used) < MAX_PLAYERS:
                used[name] = 0
                added.append(name)
        if added:
            self._change(used, self.seating)
        return added

    def rename(self, old: str, new: str) -> None:
        """``old`` is called ``new`` from now on; if ``new`` is known already, the two are one
        player (a merge)."""
        new = clean(new)
        if old not in self.used:
            raise BadName(f"no player is called {old!r}")
        used = dict(self.used)
        stamp = used.pop(old)
        used[new] = max(stamp, used.get(new, 0))
        seating = {k: [new if n == old else n for n in v] for k, v in self.seating.items()}
        self._change(used, seating)

    def forget(self, name: str) -> None:
        """The name goes; the seats it sat in stay, unnamed."""
        if name not in self.used:
            raise BadName(f"no player is called {name!r}")
        used = {n: u for n, u in self.used.items() if n != name}
        seating = {k: [None if n == name else n for n in v] for k, v in self.seating.items()}
        self._change(used, seating)

    def _change(self, used: dict[str, int], seating: dict[str, list[str | None]]) -> None:
        before = (self.used, self.seating)
        self.used, self.seating = used, seating
        try:
            self.save()
        except OSError:
            self.used, self.seating = before
            raise
