"""What a paired phone asks the box about players and plays (issue 48), answered on the box's
loop (phones.py hands these asks here; the phones' own process sends them over the link):

    seats        the game in play's seats, each with its player, and the names known
                 (recent first, "guest" last)
    name_seats   ``names``: {seat: name} as typed ("" leaves the seat unnamed)
    export       ``format`` csv or bgstats and ``part``: the export in parts of ``PART``
                 characters (a link line is at most 256 KiB), ``more`` while parts follow;
                 ``wait`` while it is being made (on a thread of its own, not the loop)

    records      ``game`` ("" all), ``a`` and ``b`` (two players, head to head): the records
                 and plots' numbers (core/play_stats.py), the games and players to choose;
                 ``wait`` while they are being made (off the loop, as an export)
    player       ``verb`` rename, merge or forget, ``old``, ``new`` (not for forget) and
                 ``confirm``: a merge or a forget not confirmed changes nothing and answers
                 ``ask``, the question in words; done, ``done`` says what was done
                 (core/player_changes.py) and ``players`` lists the names as they are now
    add_names    ``names``, one a line (a BG Stats file's, read by the page): the ones the box
                 did not know kept to pick from; ``added``, ``refused`` (each with why)

A bad name or seat is a ValueError (400), with no game a LookupError (404)."""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from companion.core import player_changes
from companion.core.events import Call
from companion.core.players import BadName, clean
from companion.games import played
from companion.plays_export import FORMATS, export
from companion.ui import names as on_screen

log = logging.getLogger(__name__)

ASKS = ("seats", "name_seats", "export", "records", "player", "add_names")
PART = 32 * 1024  # characters: escaped as JSON, at most 6 bytes each, under a link line


def _label(seat: object) -> str:
    return f"Team {seat}" if isinstance(seat, str) else f"Seat {seat}"


def named(view: Any, app: Any) -> Any:
    """The phone's view with the named seats' names where its words name a seat ("Seat 2 won"
    reads "Bob won"), as the OLED does (ui/names.py); as it is with no seat named."""
    session = app.session
    names = app.seat_names() if session is not None else None
    if not names or not any(names):
        return view
    seat_ids = played.named_seats(session.name, session.options)
    mapping = {s: n for s, n in zip(seat_ids, names, strict=False) if n}

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return on_screen.line(value, mapping)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return walk(view)


def seats(app: Any) -> dict[str, Any]:
    session = app.session
    known = app.players.choices()
    if session is None:
        return {"game": None, "seats": [], "known": known}
    shown = app.seat_names() or []
    seat_ids = played.named_seats(session.name, session.options)
    return {
        "game": session.name,
        "seats": [
            {"seat": str(s), "label": _label(s), "player": n}
            for s, n in zip(seat_ids, shown, strict=True)
        ],
        "known": known,
    }


def name_seats(app: Any, names: Mapping[str, Any]) -> dict[str, Any]:
    session = app.session
    if session is None:
        raise LookupError("no game is being played: start one on the box first")
    seat_ids = [str(s) for s in played.named_seats(session.name, session.options)]
    unknown = [k for k in names if k not in seat_ids]
    if unknown:
        raise ValueError(f"no seat {unknown[0]!r} in {session.name} ({', '.join(seat_ids)})")
    current = app.seat_names() or []
    chosen = [
        (str(names[s]).strip() or None) if s in names else current[i]
        for i, s in enumerate(seat_ids)
    ]
    app.name_seats(chosen)  # BadName is a ValueError
    app.note("seats named from a phone")
    return seats(app)


def on_loop(app: Any, fn: Callable[[], Any], seconds: float) -> Any:
    """Run ``fn`` on the box's loop (a call posted to its queue for remotes, behind the box's
    own inputs) and wait at most ``seconds`` for its answer; TimeoutError when the queue is
    full or the box does not answer in time."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def run() -> None:
        try:
            future.set_result(fn())
        except Exception as err:  # handed back to the request, which answers 4xx/5xx
            future.set_exception(err)
        finally:
            app.refresh()

    if not app.loop.post_remote(Call(run)):  # the queue for remotes is full
        raise TimeoutError("the box is busy")
    return future.result(timeout=seconds)


# plays -> what -> (revision, made): by the Plays themselves, not their id (a box's plays let
# go of and another's made at the same address must not find the first's records)
_cache: weakref.WeakKeyDictionary[Any, dict[str, tuple[int, Any]]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()
KEPT_MADE = 8  # exports and records kept made (asked again, they are not made again)


def _made(plays: Any, what: str, make: Callable[[list[dict[str, Any]]], Any]) -> Any:
    """``make(plays)`` of the plays as they stand, made once (again only once the plays
    change), on a thread of its own: the box's loop only takes the list (a press never waits
    for an export or the records of a thousand plays). None while it is being made."""
    with _lock:
        cache = _cache.setdefault(plays, {})
        kept = cache.get(what)
        if kept is not None and kept[0] == plays.revision:
            return kept[1]
        for old in [k for k, (rev, _) in cache.items() if rev != plays.revision]:
            del cache[old]
        cache[what] = (plays.revision, None)
        while len(cache) > KEPT_MADE:
            del cache[next(iter(cache))]
    revision, items = plays.revision, plays.plays  # the plays are never changed in place

    def run() -> None:
        try:
            done = make(items)
        except Exception:  # a bug: said in the log; the next ask makes it again
            log.exception("plays: %s could not be made", what.split("\0")[0])
            with _lock:
                cache.pop(what, None)
            return
        with _lock:
            if cache.get(what, (None,))[0] == revision:
                cache[what] = (revision, done)

    threading.Thread(target=run, name="plays-made", daemon=True).start()
    return None


def export_part(app: Any, form: str, part: int) -> dict[str, Any]:
    if form not in FORMATS:
        raise ValueError(f"no export format {form!r} ({', '.join(FORMATS)})")
    done = _made(app.plays, form, lambda items: export(items, form))
    if done is None:
        return {"wait": True}
    start = part * PART
    return {
        "text": done.text[start : start + PART],
        "more": start + PART < len(done.text),
        "left_out": done.left_out,
    }


def request_fn(app: Any, what: str, args: Mapping[str, Any]) -> Callable[[], Any]:
    """The ask as a function for the loop thread; its checks run there too, so a bad ask is
    answered as one (ValueError) whichever way it came."""
    if what == "seats":
        return lambda: seats(app)
    if what == "name_seats":

        def named() -> dict[str, Any]:
            names = args.get("names")
            if not isinstance(names, dict):
                raise ValueError("names: a table of seat -> name")
            return name_seats(app, names)

        return named
    if what == "export":

        def part() -> dict[str, Any]:
            n = args.get("part", 0)
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < 10_000:
                raise ValueError("part: a whole number")
            return export_part(app, str(args.get("format", "")), n)

        return part
    if what == "records":
        return lambda: records(app, args)
    if what == "player":
        return lambda: change_player(app, args)
    if what == "add_names":
        return lambda: add_names(app, str(args.get("names", "")))
    raise ValueError(f"no request {what!r}")


def records(app: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """The records asked for, made off the loop (``_made``); ``wait`` while they are made."""
    game = str(args.get("game") or "") or None
    a, b = str(args.get("a") or ""), str(args.get("b") or "")
    made = _made(app.plays, f"records\0{game}\0{a}\0{b}", lambda items: _records(items, game, a, b))
    if made is None:
        return {"wait": True}
    names = app.players.names()  # then those only the plays name (the names' file lost them)
    kept = set(names)
    names += [n for n in made["choices"]["named"] if n not in kept]
    return {**made, "choices": {"games": made["choices"]["games"], "players": names}}


def _records(plays: list[dict[str, Any]], game: str | None, a: str, b: str) -> dict[str, Any]:
    from companion.core import play_stats
    from companion.games import registry

    out = play_stats.records(plays, game)
    kinds = sorted({p["game"] for p in plays})
    named = {s["player"] for p in plays for s in p["seats"] if s["player"]}
    out["choices"] = {"games": kinds, "named": sorted(named, key=str.casefold)}
    out["titles"] = {g: registry.title(g) for g in kinds}
    if a and b and a != b:
        of_game = [p for p in plays if game is None or p["game"] == game]
        out["head_to_head"] = play_stats.head_to_head(of_game, a, b)
    else:
        out["head_to_head"] = None
    return out


def change_player(app: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    verb, old = str(args.get("verb", "")), str(args.get("old", ""))
    new = None if verb == "forget" else str(args.get("new", ""))
    change = player_changes.checked(app.players, app.plays, verb, old, new)  # BadName: 400
    if verb in ("merge", "forget") and not args.get("confirm"):
        return {"ask": player_changes.what_it_does(app.plays, change)}
    try:
        said = app.change_player(change)
    except OSError:  # said on the box too; answered as a refusal (409), nothing changed
        raise PermissionError("not saved: the box's card refused the change") from None
    return {"done": said, "players": app.players.names()}


def add_names(app: Any, text: str) -> dict[str, Any]:
    good, refused = [], []
    for name in (n for n in text.splitlines() if n.strip()):
        try:
            good.append(clean(name))
        except BadName as err:
            refused.append(str(err))
    try:
        added = app.add_player_names(good)
    except OSError:  # said on the box too; answered as a refusal (409), nothing changed
        raise PermissionError("not saved: the box's card refused the names") from None
    return {"added": added, "refused": refused, "players": app.players.names()}
