"""The players and plays' routes (issue 48), the same on both faces: the paired phones'
(phone_routes.py, paired phones only) and the simulator's page (sim_routes.py):

    GET  /api/seats                      the game's seats, their players, the names known
    POST /api/seats                      {seat: name} typed ("" unnamed): the seats named
    GET  /api/export/{csv|bgstats}       the plays kept, as a file to download
    GET  /api/records[?game=&a=&b=]      the players' records, the plots' numbers, head to head
    POST /api/players/{rename|merge|forget}   ``old`` (``new`` but for forget): a player changed
                                         in players.json and the plays (core/player_changes.py);
                                         a merge or a forget first answers ``ask`` (the question
                                         in words, nothing changed) until sent with ``confirm=1``
    POST /api/players/import             ``names``, one a line: names to pick from (the page
                                         reads them from a BG Stats export, in bodies the guard
                                         takes)

What they answer is asked on the box's loop (players_api.py) through ``request(what, args)``:
the phones' service, or for the page ``LoopAsk`` (a call posted onto the box's queue). The
page's static files (players_face.js, players_face.css, records.js, uPlot) are served by each
face under its own paths (``STATIC``, with the face's prefix)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

from companion.core.nesting import json_too_deep
from companion.web import players_api
from companion.web.guard import MAX_NESTING

BODY_SECONDS = 3.0  # a body must arrive within this (the guard's limit is for the handler)
ANSWER_SECONDS = 2.0  # how long the page's ask waits for the loop to answer
EXPORT_SECONDS = 60.0  # a Pi Zero makes the BG Stats file of 1,000 plays in a few seconds
EXPORTS = {"csv": ("text/csv", "csv"), "bgstats": ("application/json", "json")}
STATIC = {  # name in static/ -> content type; each face serves them under its own prefix
    "players_face.js": "text/javascript",
    "players_face.css": "text/css",
    "records.js": "text/javascript",
    "uplot.min.js": "text/javascript",
    "uplot.min.css": "text/css",
}
Request = Callable[[str, dict[str, Any]], Awaitable[Any]]


def static(prefix: str) -> dict[str, tuple[str, str]]:
    """The shared files as a face's StaticFiles table, under ``prefix`` ("/" or "/static/")."""
    return {f"{prefix}{name}": (name, kind) for name, kind in STATIC.items()}


def error(
    cls: type[web.HTTPException], text: str, headers: dict[str, str] | None = None
) -> web.HTTPException:
    """An HTTP error whose body says why, as JSON: {"error": "..."} (the guard answers it)."""
    return cls(text=json.dumps({"error": text}), content_type="application/json", headers=headers)


async def read_form(request: web.Request) -> dict[str, str]:
    """A request's body, a form or JSON, as a table of words; 400, 408 or 415 otherwise."""
    try:
        async with asyncio.timeout(BODY_SECONDS):
            body = await request.read()
    except TimeoutError:
        raise error(web.HTTPRequestTimeout, "the request took too long") from None
    kind = request.content_type
    try:
        if kind == "application/json":
            if json_too_deep(body, MAX_NESTING):
                raise ValueError("nested too deep")
            data = json.loads(body or b"{}")
            if not isinstance(data, dict):
                raise ValueError("not an object")
            return {str(k): str(v) for k, v in data.items()}
        if kind in ("application/x-www-form-urlencoded", ""):
            return dict(parse_qsl(body.decode("utf-8"), max_num_fields=20))
    except (ValueError, UnicodeDecodeError):
        raise error(web.HTTPBadRequest, "the body is not valid") from None
    raise error(web.HTTPUnsupportedMediaType, "send a form or JSON")


async def answered(asked: Awaitable[Any]) -> Any:
    """The box's answer, or the HTTP error that says why there is none."""
    try:
        return await asked
    except TimeoutError:
        raise error(web.HTTPServiceUnavailable, "the box is busy; try again") from None
    except LookupError as err:
        raise error(web.HTTPNotFound, str(err).strip("'\"")) from None
    except PermissionError as err:
        raise error(web.HTTPConflict, str(err)) from None
    except ValueError as err:
        raise error(web.HTTPBadRequest, str(err)) from None


class LoopAsk:
    """``request`` for a face in the box's own process with no service of its own (the
    simulator's page): the players' asks answered on the box's loop."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, what: str, args: dict[str, Any]) -> Any:
        fn = players_api.request_fn(self.app, what, args)
        return await asyncio.to_thread(players_api.on_loop, self.app, fn, ANSWER_SECONDS)


class PlayersRoutes:
    def __init__(self, request: Request) -> None:
        self.request = request

    def add(self, app: web.Application) -> None:
        r = app.router
        r.add_get("/api/seats", self._seats)
        r.add_post("/api/seats", self._name_seats)
        r.add_get("/api/export/{format}", self._export)
        r.add_get("/api/records", self._records)
        r.add_post("/api/players/{verb}", self._player)

    async def _ask(self, what: str, args: dict[str, Any]) -> Any:
        return await answered(self.request(what, args))

    async def _seats(self, request: web.Request) -> web.Response:
        return web.json_response(await self._ask("seats", {}))

    async def _name_seats(self, request: web.Request) -> web.Response:
        form = await read_form(request)
        return web.json_response(await self._ask("name_seats", {"names": form}))

    async def _records(self, request: web.Request) -> web.Response:
        q = request.query
        args = {k: q.get(k, "")[:64] for k in ("game", "a", "b")}
        return web.json_response(await self._made("records", args))

    async def _made(self, what: str, args: dict[str, Any]) -> Any:
        """An ask the box answers ``wait`` to while it makes the answer off its loop."""
        deadline = asyncio.get_running_loop().time() + EXPORT_SECONDS
        while True:
            answer = await self._ask(what, args)
            if not answer.get("wait"):
                return answer
            if asyncio.get_running_loop().time() > deadline:
                raise error(web.HTTPServiceUnavailable, "the box is busy; try again")
            await asyncio.sleep(0.05)

    async def _player(self, request: web.Request) -> web.Response:
        verb = request.match_info["verb"]
        if verb == "import":  # names to pick from, one a line (a BG Stats file's, read here)
            form = await read_form(request)
            return web.json_response(await self._ask("add_names", {"names": form.get("names", "")}))
        if verb not in ("rename", "merge", "forget"):
            raise error(web.HTTPNotFound, f"no change {verb!r}: rename, merge, forget or import")
        form = await read_form(request)
        args: dict[str, Any] = {
            "verb": verb,
            "old": form.get("old", ""),
            "new": form.get("new", ""),
            "confirm": form.get("confirm", "") in ("1", "true", "yes"),
        }
        return web.json_response(await self._ask("player", args))

    async def _export(self, request: web.Request) -> web.Response:
        """The plays, asked for in parts (a link line is bounded), sent as one file."""
        form = request.match_info["format"]
        if form not in EXPORTS:
            raise error(web.HTTPNotFound, f"no export {form!r}: {', '.join(EXPORTS)}")
        parts, part = [], 0
        while True:
            answer = await self._made("export", {"format": form, "part": part})
            parts.append(answer["text"])
            if not answer["more"]:
                break
            part += 1
        kind, ext = EXPORTS[form]
        name = f"trap-companion-plays{'-bgstats' if form == 'bgstats' else ''}.{ext}"
        return web.Response(
            text="".join(parts),
            content_type=kind,
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )
