"""The phones' HTTP server (aiohttp, on its own thread with its own asyncio loop).

Every request first passes companion/web/guard.py, as the simulator's page does: only
loopback, link-local and private sources; a Host that names this box (no DNS rebinding); a
POST only with this very page's Origin and a small body; a time limit; a Content-Security-Policy
on every answer. Then everything under /api/ but pairing needs the cookie of a paired phone
(401 otherwise). A refused request changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
from importlib import resources
from typing import Any

from aiohttp import web

from companion.web.guard import CSP, Guard
from companion.web.pairing import COOKIE, TOKEN_SECONDS

log = logging.getLogger(__name__)

BODY_SECONDS = 3.0  # a body must arrive within this (the guard's limit is for the handler)
MAX_STREAMS = 16  # open event streams at once; more answer 503
PING_SECONDS = 20.0  # a comment on an open stream, so a dead phone is noticed
STATIC = {
    "/": ("phone.html", "text/html"),
    "/phone.css": ("phone.css", "text/css"),
    "/phone.js": ("phone.js", "text/javascript"),
}
BUTTONS = ("up", "down", "ok", "back", "green", "red")


def own_names() -> tuple[str, ...]:
    """The box's host name and NAME.local (mDNS), besides localhost and its addresses."""
    name = socket.gethostname().lower()
    return (name, f"{name}.local") if name else ()


class PhoneServer:
    def __init__(self, service: Any, sock: socket.socket) -> None:
        self.service = service
        self.sock = sock
        self.names = own_names()
        self.view: dict[str, Any] | None = None
        self.version = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self.changed: asyncio.Event | None = None  # set (and replaced) when a view is new
        self.streams = 0
        self.runner: web.AppRunner | None = None
        self._stop: asyncio.Event | None = None
        self.stopping = threading.Event()

    def run(self, ready: threading.Event) -> None:
        """Serve on this thread until ``stop``; ``ready`` is set once requests are answered."""
        asyncio.run(self._serve(ready))

    # --- any thread --------------------------------------------------------------------------

    def publish(self, view: dict[str, Any]) -> None:
        """From the box's loop: the newest view. The server's thread is woken only when a
        stream is open to send it: with no phone watching, a refresh costs it nothing."""
        self.view = view
        self.version += 1
        loop = self.loop
        if loop is not None and self.streams:
            with contextlib.suppress(RuntimeError):  # the server is stopping
                loop.call_soon_threadsafe(self._wake)

    def stop(self) -> None:
        """Ask the server's thread to finish (whoever started it joins it)."""
        self.stopping.set()
        loop, stop = self.loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)

    # --- the server's thread -----------------------------------------------------------------

    def _wake(self) -> None:
        """Every open stream looks at the newest view (the server's thread)."""
        if self.changed is not None:
            old, self.changed = self.changed, asyncio.Event()
            old.set()

    async def _serve(self, ready: threading.Event) -> None:
        self.changed = asyncio.Event()
        self._stop = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        if self.stopping.is_set():  # stopped before it began
            return
        guard = Guard.for_names(self.names)
        app = web.Application(
            middlewares=[guard.middleware, self._paired], client_max_size=guard.max_body
        )
        app.router.add_get("/", self._static)
        app.router.add_get("/phone.css", self._static)
        app.router.add_get("/phone.js", self._static)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/events", self._events)
        app.router.add_post("/api/pair", self._pair)
        app.router.add_post("/api/press/{button}", self._press)
        app.router.add_get("/api/cards", self._cards)
        app.router.add_post("/api/cards/{uid}/forget", self._forget)
        app.router.add_post("/api/enrol", self._enrol)
        self.runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=0.5
        )
        await self.runner.setup()
        site = web.SockSite(self.runner, self.sock)
        await site.start()
        ready.set()
        await self._stop.wait()
        self._wake()  # open streams end
        await self.runner.cleanup()

    @web.middleware
    async def _paired(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """After the guard: the API answers paired phones only (the page itself and pairing
        are open, so a phone can pair)."""
        path = request.path
        paired = self.service.pairing.allows(request.cookies.get(COOKIE))
        try:
            if path.startswith("/api/") and path != "/api/pair" and not paired:
                raise _error(web.HTTPUnauthorized, "pair this phone first")
            response = await handler(request)
        except web.HTTPException as err:  # answered, not raised: the guard's headers apply
            response = web.Response(status=err.status, body=err.body, headers=err.headers)
        if not response.prepared:
            response.headers["X-Frame-Options"] = "DENY"
            response.headers["Server"] = "trap-companion"
        return response

    async def _static(self, request: web.Request) -> web.Response:
        name, kind = STATIC[request.path]
        body = resources.files("companion.web").joinpath("static", name).read_bytes()
        return web.Response(body=body, content_type=kind, charset="utf-8")

    def _current(self) -> dict[str, Any]:
        return {"version": self.version, **(self.view or {})}

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self._current())

    async def _events(self, request: web.Request) -> web.StreamResponse:
        if self.streams >= MAX_STREAMS:
            raise _error(web.HTTPServiceUnavailable, "too many open phones")
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
        )
        response.headers["Content-Security-Policy"] = CSP
        await response.prepare(request)
        self.streams += 1
        sent = -1
        try:
            while not self._stop.is_set():
                changed = self.changed
                if self.version != sent:
                    sent = self.version
                    data = json.dumps(self._current(), separators=(",", ":"))
                    await response.write(f"data: {data}\n\n".encode())
                    if self.version != sent:
                        continue  # newer already: send that, not wait for the next
                try:
                    await asyncio.wait_for(changed.wait(), PING_SECONDS)
                except TimeoutError:
                    await response.write(b": ping\n\n")
                if not self.service.pairing.allows(request.cookies.get(COOKIE)):
                    break  # forgotten: the stream ends, the page asks to pair again
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.streams -= 1
        return response

    async def _form(self, request: web.Request) -> dict[str, str]:
        try:
            async with asyncio.timeout(BODY_SECONDS):
                body = await request.read()
        except TimeoutError:
            raise _error(web.HTTPRequestTimeout, "the request took too long") from None
        kind = request.content_type
        try:
            if kind == "application/json":
                data = json.loads(body or b"{}")
                if not isinstance(data, dict):
                    raise ValueError("not an object")
                return {str(k): str(v) for k, v in data.items()}
            if kind in ("application/x-www-form-urlencoded", ""):
                from urllib.parse import parse_qsl

                return dict(parse_qsl(body.decode("utf-8"), max_num_fields=20))
        except (ValueError, UnicodeDecodeError):
            raise _error(web.HTTPBadRequest, "the body is not valid") from None
        raise _error(web.HTTPUnsupportedMediaType, "send a form or JSON")

    async def _pair(self, request: web.Request) -> web.Response:
        form = await self._form(request)
        attempt = self.service.pairing.attempt(form.get("code"))
        if attempt.outcome != "paired":
            headers = {"Retry-After": str(attempt.retry_after)} if attempt.retry_after else None
            return web.json_response(
                {"error": attempt.message}, status=attempt.status, headers=headers
            )
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
        taken = self.service.controls.press(button, long)
        return web.json_response({"pressed": button, "long": long, "taken": bool(taken)})

    async def _ask(self, fn: Any) -> Any:
        try:
            return await asyncio.to_thread(self.service.ask, fn)
        except TimeoutError:
            raise _error(web.HTTPServiceUnavailable, "the box is busy; try again") from None
        except LookupError as err:
            raise _error(web.HTTPNotFound, str(err).strip("'\"")) from None
        except PermissionError as err:
            raise _error(web.HTTPConflict, str(err)) from None
        except ValueError as err:
            raise _error(web.HTTPBadRequest, str(err)) from None

    async def _cards(self, request: web.Request) -> web.Response:
        return web.json_response(await self._ask(self.service.cards))

    async def _forget(self, request: web.Request) -> web.Response:
        uid = request.match_info["uid"]
        if not (0 < len(uid) <= 32 and uid.isascii() and uid.isalnum()):
            raise _error(web.HTTPBadRequest, "a card UID is hex digits")
        await self._form(request)
        return web.json_response(await self._ask(lambda: self.service.forget_card(uid.upper())))

    async def _enrol(self, request: web.Request) -> web.Response:
        form = await self._form(request)
        kind = form.pop("card", "")
        if not kind:
            raise _error(web.HTTPBadRequest, "name the card to enrol (card=...)")
        return web.json_response(await self._ask(lambda: self.service.start_enrol(kind, form)))


def _error(cls: type[web.HTTPException], text: str, *args: Any) -> web.HTTPException:
    """An HTTP error whose body says why, as JSON: {"error": "..."}."""
    return cls(
        *args, text=json.dumps({"error": text or cls.__name__}), content_type="application/json"
    )
