"""The phones' HTTP server (aiohttp, in its own thread with its own asyncio loop).

Every request passes the same checks before any handler runs, and a failed check answers a
clear 4xx and changes nothing:

- the source: only loopback, link-local and private addresses are answered (403);
- the Host header: the box's own address on this connection, its name (and NAME.local) or
  localhost, so a web page elsewhere cannot rebind a name of its own to the box (421);
- a POST: an Origin of this very host (403), and a body of at most MAX_BODY bytes (413),
  read within BODY_SECONDS (408);
- everything under /api/ but pairing: the cookie of a paired phone (401);
- every answer: a Content-Security-Policy that allows only the box's own files, no framing.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import socket
import threading
from importlib import resources
from typing import Any

from aiohttp import web

from companion.web.pairing import COOKIE, TOKEN_SECONDS

log = logging.getLogger(__name__)

MAX_BODY = 4096
BODY_SECONDS = 5.0
MAX_STREAMS = 16  # open event streams at once; more answer 503
PING_SECONDS = 20.0  # a comment on an open stream, so a dead phone is noticed
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
STATIC = {
    "/": ("phone.html", "text/html"),
    "/phone.css": ("phone.css", "text/css"),
    "/phone.js": ("phone.js", "text/javascript"),
}
BUTTONS = ("up", "down", "ok", "back", "green", "red")


def source_allowed(remote: str | None) -> bool:
    """Loopback, link-local and private (RFC 1918, ULA) sources only."""
    if not remote:
        return False
    try:
        ip = ipaddress.ip_address(remote.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_link_local or (ip.is_private and not ip.is_unspecified)


def host_name(host: str) -> str:
    """The name part of a Host header, lower case, without the port or IPv6 brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else ""
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_allowed(host: str | None, local: str | None, names: tuple[str, ...]) -> bool:
    """Whether the Host header names this box: localhost, its own names, or the address the
    connection came in on."""
    if not host:
        return False
    name = host_name(host)
    if not name:
        return False
    allowed = {"localhost", "127.0.0.1", "::1", *names}
    if local:
        local = local.split("%")[0].lower()
        allowed.add(local)
        if local.startswith("::ffff:"):
            allowed.add(local[7:])
    return name in allowed


def own_names() -> tuple[str, ...]:
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
        app = web.Application(middlewares=[self._guard], client_max_size=MAX_BODY)
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
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            response = await self._checked(request, handler)
        except web.HTTPException as err:  # answered, not raised: the headers below apply
            response = web.Response(status=err.status, body=err.body, headers=err.headers)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Server"] = "trap-companion"
        if request.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response

    async def _checked(self, request: web.Request, handler: Any) -> web.StreamResponse:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        remote = peer[0] if peer else None
        if not source_allowed(remote):
            raise _error(web.HTTPForbidden, "only the box's own network is answered")
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        local = sockname[0] if sockname else None
        host = request.headers.get("Host")
        if not host_allowed(host, local, self.names):
            raise _error(web.HTTPMisdirectedRequest, "the Host is not this box")
        if request.method not in ("GET", "HEAD", "POST"):
            raise _error(web.HTTPMethodNotAllowed, "GET or POST", request.method, ["GET", "POST"])
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is None or origin.lower() != f"http://{host.strip().lower()}":
                raise _error(web.HTTPForbidden, "a change must come from the box's own page")
            if (request.content_length or 0) > MAX_BODY:
                raise _error(
                    web.HTTPRequestEntityTooLarge,
                    f"at most {MAX_BODY} bytes",
                    MAX_BODY,
                    request.content_length or 0,
                )
        path = request.path
        paired = self.service.pairing.allows(request.cookies.get(COOKIE))
        if path.startswith("/api/") and path != "/api/pair" and not paired:
            raise _error(web.HTTPUnauthorized, "pair this phone first")
        return await handler(request)

    async def _static(self, request: web.Request) -> web.Response:
        name, kind = STATIC[request.path]
        body = resources.files("companion.web").joinpath("static", name).read_bytes()
        return web.Response(body=body, content_type=kind, charset="utf-8")

    def _current(self) -> dict[str, Any]:
        return {"version": self.version, "view": self.view}

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
        except web.HTTPRequestEntityTooLarge:
            raise
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
