"""The phones' page and API, served by the same WebServer as the simulator's page.

    GET  /, /phone.css, /phone.js        the page (static/phone.*), open so a phone can pair;
                                         compressed, cacheable by version (static_files.py)
    POST /api/pair                       ``code`` (a form or JSON): the cookie of a paired phone
    GET  /api/state                      what a phone may see now (``version`` and the public view)
    GET  /api/events                     the same, pushed as Server-Sent Events
    POST /api/press/{button}[?long=1]    the six buttons as a remote, at a person's pace (429
                                         beyond it, pace.py; 503 while the box's queue for
                                         phones is full); 200 once the box has handled it
                                         (journaled and drawn), 202 if still queued after 2 s
    GET  /api/cards                      the game's enrolled cards and the kinds to enrol
    POST /api/cards/{uid}/forget         forget one enrolled card
    POST /api/enrol                      ``card`` and its fields: an enrolment run on the box
    GET, POST /api/seats, /api/records, /api/export/..., /api/players/...
                                         the players and plays, as the simulator's page has
                                         them (players_routes.py)
    GET  /api/about                      the running release and the one kept for going back
                                         (companion/release/about.py, as `trap-companion version`)

Every request first passes guard.py, as the simulator's page does; then everything under /api/
but pairing needs the cookie of a paired phone (401 otherwise; 503 in the phones' own process
until the box has said which phones are paired). A refused request changes
nothing. What needs the box's data is asked on the box's loop (companion/web/phones.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import Any

from aiohttp import web

from companion.faces.face import BUTTONS
from companion.web.pairing import COOKIE, TOKEN_SECONDS, token_hash
from companion.web.players_routes import PlayersRoutes, answered, read_form, static
from companion.web.players_routes import error as _error
from companion.web.server import WebServer
from companion.web.static_files import StaticFiles

PRESS_SECONDS = 2.0  # a press answered 200 once handled within this, else 202 (still queued)
STATIC = {
    "/": ("phone.html", "text/html"),
    "/phone.css": ("phone.css", "text/css"),
    "/phone.js": ("phone.js", "text/javascript"),
    **static("/"),  # players_face.js and the records (players_routes.py)
}


def render(shown: Any) -> dict[str, Any]:
    """What /api/state and each event answer: the view the phones showed, and its number."""
    return {"version": shown.seq, **shown.view}


class PhoneRoutes:
    def __init__(self, service: Any) -> None:
        # companion.web.phones.PhoneService, or in the phones' own process phones_process.py's
        # RemoteService: pairing.allows, pace, press, pair and request, nothing else
        self.service = service
        self.server: WebServer | None = None

    def __call__(self, app: web.Application, server: WebServer) -> None:
        self.server = server
        app.middlewares.append(self._paired)  # after the guard's
        r = app.router
        StaticFiles(STATIC).add(app)
        r.add_get("/api/state", self._state)
        r.add_get("/api/events", server.stream(render, self._allowed))
        r.add_post("/api/pair", self._pair)
        r.add_post("/api/press/{button}", self._press)
        r.add_get("/api/cards", self._cards)
        r.add_post("/api/cards/{uid}/forget", self._forget)
        r.add_post("/api/enrol", self._enrol)
        r.add_get("/api/about", self._about)
        PlayersRoutes(self.service.request).add(app)

    def _allowed(self, request: web.Request) -> bool:
        return bool(self.service.pairing.allows(request.cookies.get(COOKIE)))

    @web.middleware
    async def _paired(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """After the guard: the API answers paired phones only (the page itself and pairing
        are open, so a phone can pair)."""
        path = request.path
        paired = self._allowed(request)
        if paired and self.server is not None and request.remote:
            self.server.book.mark_phone(request.remote)  # the phones' share of connections
        if path.startswith("/api/") and path != "/api/pair" and not paired:
            if request.cookies.get(COOKIE) and not self.service.pairing.known:
                # the phones' own process before its link to the box first came up: whether
                # this phone is paired is not known yet
                raise _error(
                    web.HTTPServiceUnavailable, "the box is busy; try again", {"Retry-After": "1"}
                )
            raise _error(web.HTTPUnauthorized, "pair this phone first")
        return await handler(request)

    async def _about(self, request: web.Request) -> web.Response:
        """Read from /opt/trap-companion's links: a few small reads, no box data."""
        from companion import __version__
        from companion.release.about import about, program_version
        from companion.release.layout import Layout

        return web.json_response(about(Layout(), program_version(__version__)).as_dict())

    async def _state(self, request: web.Request) -> web.Response:
        shown = self.server.latest if self.server else None
        return web.json_response(render(shown) if shown is not None else {"version": 0})

    async def _pair(self, request: web.Request) -> web.Response:
        form = await read_form(request)
        attempt = await self.service.pair(form.get("code"), request.remote)
        if attempt.outcome != "paired":
            return web.json_response({"error": attempt.message}, status=attempt.status)
        if self.server is not None and request.remote:
            self.server.book.mark_phone(request.remote)
        response = web.json_response({"paired": True})
        response.set_cookie(
            COOKIE,
            attempt.token,
            max_age=TOKEN_SECONDS,
            httponly=True,
            samesite="Strict",
            path="/",
        )
        return response

    async def _press(self, request: web.Request) -> web.Response:
        button = request.match_info["button"]
        if button not in BUTTONS:
            raise _error(web.HTTPNotFound, f"no button {button!r}: {', '.join(BUTTONS)}")
        long = request.query.get("long", "0") in ("1", "true", "yes")
        phone = token_hash(request.cookies.get(COOKIE, ""))  # paired: the middleware saw it
        service = self.service
        if not service.pace.allow(phone):
            self._note("press-pace", "phones: presses refused, faster than a person presses")
            wait = max(1, math.ceil(service.pace.wait(phone)))
            raise _error(
                web.HTTPTooManyRequests,
                f"too many presses: at most {service.pace.rate:g} a second",
                {"Retry-After": str(wait)},
            )
        loop = asyncio.get_running_loop()
        handled: asyncio.Future[None] = loop.create_future()

        def settle() -> None:  # the box's loop thread, once the press was handled
            with contextlib.suppress(RuntimeError):  # the server has stopped
                loop.call_soon_threadsafe(lambda: handled.done() or handled.set_result(None))

        if not service.press(button, long, settle):
            self._note("press-queue", "phones: presses refused, the box's queue for phones is full")
            raise _error(
                web.HTTPServiceUnavailable, "the box is busy; press again", {"Retry-After": "1"}
            )
        try:  # 200: the box has taken it; 202: queued, not handled yet (the box is busy)
            await asyncio.wait_for(asyncio.shield(handled), PRESS_SECONDS)
        except TimeoutError:
            return web.json_response({"pressed": button, "long": long, "taken": False}, status=202)
        return web.json_response({"pressed": button, "long": long, "taken": True})

    def _note(self, kind: str, text: str) -> None:
        """A refusal a phone can cause at will: a log line a minute with the count."""
        if self.server is not None:
            self.server.notes.note(kind, text)

    async def _ask(self, what: str, args: dict[str, Any]) -> Any:
        return await answered(self.service.request(what, args))

    async def _cards(self, request: web.Request) -> web.Response:
        return web.json_response(await self._ask("cards", {}))

    async def _forget(self, request: web.Request) -> web.Response:
        uid = request.match_info["uid"]
        if not (0 < len(uid) <= 32 and uid.isascii() and uid.isalnum()):
            raise _error(web.HTTPBadRequest, "a card UID is hex digits")
        await read_form(request)
        return web.json_response(await self._ask("forget", {"uid": uid.upper()}))

    async def _enrol(self, request: web.Request) -> web.Response:
        form = await read_form(request)
        kind = form.pop("card", "")
        if not kind:
            raise _error(web.HTTPBadRequest, "name the card to enrol (card=...)")
        return web.json_response(await self._ask("enrol", {"card": kind, "values": form}))
