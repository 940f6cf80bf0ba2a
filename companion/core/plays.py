"""Every finished game, kept as a play (issue 48): the game, its options, the day (undated while
the clock is not known, dated once it is, as the records are), how long it took, each seat's
player, score and place, the winners, and the game's own detail.

The app keeps a play when a game ends (``Plays.sync``), keeps it in line while it changes after
the end (scores entered, seats named), and withdraws it when an undo takes the game back past
its end. Each play belongs to one game (``key``, as the records' results do). ``plays.json`` in
the state directory is written whole with a format version (wholefile.py): a power cut, a full
or read-only card (the write fails, the app says so and syncs again once the card takes writes)
or an update (the version) leaves the plays kept."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from companion.core import statefile
from companion.core.wholefile import WholeFile

log = logging.getLogger(__name__)

KEEP = 5000  # plays kept in all; past it the oldest go (years of a weekly table)
FIELDS = ("key", "game", "options", "date", "seconds", "seats", "winners", "detail")


def check(item: Mapping[str, Any]) -> dict[str, Any]:
    """A play as stored, checked (ValueError naming the field)."""
    for name, kind in (("key", str), ("game", str), ("date", str), ("options", dict)):
        if not isinstance(item.get(name), kind):
            raise ValueError(f"{name!r} must be a {kind.__name__}")
    seconds = item.get("seconds")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
        raise ValueError("'seconds' must be a number >= 0")
    seats = item.get("seats")
    if not isinstance(seats, list):
        raise ValueError("'seats' must be a list")
    for seat in seats:
        if not isinstance(seat, dict) or "seat" not in seat:
            raise ValueError("each seat needs a 'seat'")
        player = seat.get("player")
        if player is not None and not isinstance(player, str):
            raise ValueError("a seat's 'player' must be a name or null")
    if not isinstance(item.get("winners"), list):
        raise ValueError("'winners' must be a list")
    detail = item.get("detail", {})
    if not isinstance(detail, dict):
        raise ValueError("'detail' must be a table")
    return {name: item.get(name, {}) if name == "detail" else item[name] for name in FIELDS}


def make(
    key: str,
    game: str,
    options: Mapping[str, Any],
    report: Mapping[str, Any],
    names: list[str | None],
    date: str,
    seconds: float,
) -> dict[str, Any]:
    """A play from a game's report (games/played.py) and the seats' names (seat order, the
    named seats only: a trailing seat such as Trap Attack's AI has none)."""
    seats = []
    for i, seat in enumerate(report["seats"]):
        player = names[i] if i < len(names) and seat.get("named", True) else None
        seats.append(
            {
                "seat": seat["seat"],
                "player": player,
                "score": seat.get("score"),
                "place": seat.get("place"),
            }
        )
    return check(
        {
            "key": key,
            "game": game,
            "options": {k: _option(v) for k, v in options.items()},
            "date": date,
            "seconds": round(max(0.0, seconds), 1),
            "seats": seats,
            "winners": list(report["winners"]),
            "detail": dict(report.get("detail", {})),
        }
    )


def _option(value: Any) -> Any:
    """An option as JSON keeps it: a word or number as it is, a list of them comma-joined."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def shown(play: Mapping[str, Any]) -> dict[str, Any]:
    """The play as replay's ``plays`` key shows it (the replay contract)."""
    return {"game": play["game"], "seats": play["seats"], "winners": play["winners"]}


class Plays(WholeFile):
    KEPT = statefile.PLAYS
    LIST = "plays"
    WHAT = "plays"

    def _empty(self) -> None:
        self.by_key: dict[str, dict[str, Any]] = {}  # in the order they were kept
        self.undated = False  # some play waits for the clock to be known
        self.revision = 0  # goes up with every change written (what was made of them is stale)

    def _item(self, item: dict[str, Any]) -> None:
        play = check(item)
        self.by_key[play["key"]] = play
        self.undated = self.undated or not play["date"]

    def _data(self) -> dict[str, Any]:
        return {"plays": list(self.by_key.values())}

    @property
    def plays(self) -> list[dict[str, Any]]:
        return list(self.by_key.values())

    def get(self, key: str) -> dict[str, Any] | None:
        return self.by_key.get(key)

    def sync(self, key: str, play: dict[str, Any] | None, date: str) -> dict[str, Any] | None:
        """Make the plays agree with a game: keep or update its play, or withdraw it (None: the
        game is not finished). A known ``date`` dates the undated plays. Returns the play when
        it is new (the game has just ended). Writes only when something changed; OSError when
        the file cannot be written (the plays in memory stay as they were)."""
        if play is None and key not in self.by_key and not (date and self.undated):
            return None  # a press in a game not finished: nothing to look through
        before = dict(self.by_key)
        if date and self.undated:
            self.by_key = {k: p if p["date"] else {**p, "date": date} for k, p in before.items()}
        old = self.by_key.get(key)
        new = None
        if play is None:
            self.by_key.pop(key, None)
        else:
            if old is not None:  # kept already: its day and length stay the first ones
                play = {**play, "date": old["date"] or play["date"], "seconds": old["seconds"]}
            else:
                new = play
            self.by_key[key] = play
            while len(self.by_key) > KEEP:
                self.by_key.pop(next(iter(self.by_key)))
        if self.by_key == before:
            return None
        try:
            self._save_or_restore(before)
        finally:
            self.undated = any(not p["date"] for p in self.by_key.values())
        return new

    def rename(self, old: str, new: str | None) -> int:
        """Every seat of ``old`` becomes ``new`` (a rename or a merge), or unnamed (None: the
        player forgotten, the seat and its score kept). Returns the plays changed."""
        before = dict(self.by_key)
        changed = 0
        for key, play in before.items():
            if any(s["player"] == old for s in play["seats"]):
                seats = [{**s, "player": new} if s["player"] == old else s for s in play["seats"]]
                self.by_key[key] = {**play, "seats": seats}
                changed += 1
        if changed:
            self._save_or_restore(before)
        return changed

    def put_back(self, before: dict[str, dict[str, Any]]) -> None:
        """The plays as ``before`` (taken from ``by_key``) held them, written whole again."""
        if self.by_key != before:
            current = dict(self.by_key)
            self.by_key = before
            self._save_or_restore(current)

    def _save_or_restore(self, before: dict[str, dict[str, Any]]) -> None:
        """Written whole, or the plays as they were: what is kept and what is held agree."""
        try:
            self.save()
            self.revision += 1
        except OSError:
            self.by_key = before
            raise


def wins(plays: list[dict[str, Any]], game: str) -> list[tuple[str, int, int]]:
    """The named players of ``game``'s plays: (name, wins, plays), most wins first, then fewest
    plays (the better rate), then the name. A player who sat in two seats of one play (a
    guest) counts once."""
    tally: dict[str, list[int]] = {}
    for play in plays:
        if play["game"] != game:
            continue
        seen: dict[str, bool] = {}
        for seat in play["seats"]:
            name = seat["player"]
            if name:
                seen[name] = seen.get(name, False) or seat["seat"] in play["winners"]
        for name, won in seen.items():
            counts = tally.setdefault(name, [0, 0])
            counts[0] += won
            counts[1] += 1
    return sorted(
        ((n, w, p) for n, (w, p) in tally.items()), key=lambda t: (-t[1], t[2], t[0].casefold())
    )
