"""The web server of the box's faces: aiohttp in its own thread with its own asyncio loop.

The box's loop never waits on it. ``show(snapshot)`` (the Face) runs on the loop thread: it keeps
the snapshot as the newest and wakes the server's loop (``call_soon_threadsafe``) only while an
event stream is open, so with nobody watching a refresh costs the server nothing. Request
handlers only post inputs onto the box's queue (through a Controls). Each event-stream client
keeps only the newest snapshot: a slow client skips frames, it never queues them.

One part, used twice: the simulator's page (sim_routes.py) and the phones at the table
(phone_routes.py, on a socket the phones bind themselves, see phones.py). Adding routes: pass
``routes``, callables that get the ``aiohttp.web.Application`` and this server, before ``start``
(they may append a middleware of their own, after the guard's)::

    def add_my_routes(app: web.Application, server: WebServer) -> None:
        app.router.add_get("/api/thing", handler)
        app.router.add_get("/api/events", server.stream(render))   # an event stream

    server = WebServer("127.0.0.1", 8765, Guard(), routes=[add_sim_routes, add_my_routes])
    box.app.faces.add(server)
    server.start()        # PortTaken (exit status 69) if the port is used
    ...
    server.stop()         # at most about 0.5 s, open streams included

``server.latest`` is the newest snapshot, or whatever the owner shows that has a ``seq`` (the phones
show their public view); ``server.stream(render)`` makes an event-stream handler that sends
``render(snapshot)`` (a JSON-able dict) for each new one. Everything an answer goes through is in
guard.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any

from aiohttp import web

from companion.errors import PortTaken
from companion.faces.snapshot import Snapshot
from companion.web.connections import (
    ACCEPT_BURST,
    LISTEN_QUEUE,
    ConnectionBook,
    GuardedRunner,
)
from companion.web.guard import Guard
from companion.web.ratelog import RateLog

log = logging.getLogger(__name__)

SHUTDOWN_SECONDS = 0.5  # an open event stream must not hold up the box's stop
START_SECONDS = 10.0
MAX_STREAMS = 16  # open event streams at once; more answer 503
PING_SECONDS = 20.0  # a comment on an open stream, so a dead client is noticed
WRITE_SECONDS = 5.0  # an event stream's write must be taken within this, or it is closed
Routes = Callable[[web.Application, "WebServer"], None]
Render = Callable[[Any], dict[str, Any]]  # a shown snapshot (anything with ``seq``) -> JSON
Allowed = Callable[[web.Request], bool]


def _wake_once(server: Any) -> None:
    """asyncio's Server wakes its waiters once only, as CPython's fix for gh-109564 has it.
    Python 3.13 detaches a transport from its server when it is collected unclosed (a flood's,
    let go of by its handler with reading or writing paused), and once the server has closed
    and woken its waiters, such a detach woke them again: "Exception ignored ... TypeError"
    on stderr at every stop under a flood (Debian 13's 3.13.5 has it; 3.11 never detaches
    so). Only this process's own servers are guarded, and only where the bug can be."""
    wakeup = getattr(server, "_wakeup", None)
    if wakeup is None or not hasattr(server, "_waiters"):
        return

    def once() -> None:
        if server._waiters is not None:
            wakeup()

    server._wakeup = once


class WebServer:
    def __init__(
        self,
        host: str,
        port: int,
        guard: Guard | None = None,
        routes: Iterable[Routes] = (),
        sock: socket.socket | None = None,
    ) -> None:
        """``sock``: a socket already bound and listening (the phones bind theirs on the box's
        loop, to retry a taken port there); ``host`` and ``port`` then only name it."""
        self.host, self.port = host, port
        self.guard = guard or Guard()
        self.routes = list(routes)
        self.sock = sock
        self.latest: Any = None  # a Snapshot, set by the box's thread, read by the server's
        self._wake: set[asyncio.Event] = set()  # one per open event stream
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._failure: BaseException | None = None
        self.notes = RateLog(log)  # refusals and errors: a line per kind and minute
        self.book = ConnectionBook(self.notes)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def application(self) -> web.Application:
        app = web.Application(
            middlewares=[self.guard.middleware], client_max_size=self.guard.max_body
        )
        for add in self.routes:
            add(app, self)
        return app

    # --- the box's side (loop thread) ----------------------------------------------------

    def show(self, snapshot: Snapshot | Any) -> None:
        """The Face: keep the snapshot as the newest and return at once; the server's loop is
        woken only while an event stream is open to send it."""
        self.latest = snapshot  # one reference: the server's thread reads it whenever it likes
        loop = self._loop
        if loop is not None and self._wake and not self._closing:
            with contextlib.suppress(RuntimeError):  # the loop has just closed
                loop.call_soon_threadsafe(self._notify)

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serve ``application()`` on a loop run elsewhere (aiohttp's test client) instead of
        ``start``: snapshots are handed to that loop."""
        self._loop = loop

    # --- start and stop (the starter's thread) -------------------------------------------

    def start(self) -> None:
        """Listen, or raise PortTaken; returns once the port is open. After a failure it may be
        called again (a taken port tried later)."""
        self._started.clear()
        self._failure = None
        self._thread = threading.Thread(target=self._serve, name="web", daemon=True)
        self._thread.start()
        if not self._started.wait(START_SECONDS):
            raise RuntimeError("the web server did not start")
        if self._failure is not None:
            self._thread.join(timeout=1.0)
            raise self._failure

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError, TimeoutError):  # closed already, or stuck
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(
                timeout=SHUTDOWN_SECONDS + 2.0
            )
        thread.join(timeout=2.0)

    # --- the server's thread -------------------------------------------------------------

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        loop.set_exception_handler(self._loop_error)
        try:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._open())
            except OSError as err:
                taken = err.errno in (errno.EADDRINUSE, errno.EACCES)
                self._failure = (
                    PortTaken(self.host, self.port, os.strerror(err.errno or 0).lower())
                    if taken
                    else err
                )
            except BaseException as err:  # reported by start(), on the starter's thread
                self._failure = err
            if self._failure is not None:
                self._started.set()
                return
            self._loop = loop
            self._started.set()
            loop.run_forever()
        finally:
            loop.close()

    async def _open(self) -> None:
        runner = GuardedRunner(
            self.application(),
            self.book,
            access_log=None,
            keepalive_timeout=15.0,
            shutdown_timeout=SHUTDOWN_SECONDS,
            # A client that goes cancels its handler at once: an event stream frees its slot
            # then, not at the next ping.
            handler_cancellation=True,
        )
        await runner.setup()
        site: web.BaseSite
        # backlog: also how many connections asyncio takes at one wake-up; few, so the book
        # keeps or closes each before more pile up (file handles)
        if self.sock is not None:
            site = web.SockSite(runner, self.sock, backlog=ACCEPT_BURST)
        else:
            site = web.TCPSite(runner, self.host, self.port, backlog=ACCEPT_BURST)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        _wake_once(site._server)
        for listening in getattr(site._server, "sockets", None) or []:
            # the system's queue longer than the burst asyncio takes at once (same socket)
            queue = socket.socket(fileno=listening.fileno())
            queue.listen(LISTEN_QUEUE)
            queue.detach()
        if self.port == 0:  # tests: the port the system gave
            server = site._server
            sockets = getattr(server, "sockets", None) or []
            if sockets:
                self.port = sockets[0].getsockname()[1]
        log.info("web face on %s", self.url)

    async def _shutdown(self) -> None:
        self._closing = True
        for wake in self._wake:
            wake.set()
        if self._runner is not None:
            try:
                await asyncio.wait_for(self._runner.cleanup(), SHUTDOWN_SECONDS + 1.0)
            except TimeoutError:
                log.warning("the web server did not stop in time")
        asyncio.get_running_loop().call_soon(asyncio.get_running_loop().stop)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """asyncio's own errors (``socket.accept() out of system resource`` when the process
        has no file handle left): one line per kind and minute with a count, no traceback."""
        message = str(context.get("message", "error"))
        exc = context.get("exception")
        detail = f": {type(exc).__name__}: {exc}" if exc is not None else ""
        self.notes.note(f"loop-{message}", f"web: {message}{detail}")

    def _notify(self) -> None:
        for wake in self._wake:
            wake.set()

    def stream(
        self, render: Render, allowed: Allowed | None = None
    ) -> Callable[[web.Request], Any]:
        """An event-stream handler: ``render(snapshot)`` as one event per new snapshot, the
        newest at once on connecting. Each client sends only the newest it has not sent; a
        comment every PING_SECONDS finds a client that is gone. ``allowed(request)``, asked
        after every wake-up, ends the stream when it says no (a phone forgotten)."""
        cache: dict[str, Any] = {"seq": None, "text": b""}

        def encoded(snapshot: Any) -> bytes:
            if cache["seq"] != snapshot.seq:  # rendered once for every client
                data = json.dumps(render(snapshot), separators=(",", ":"), ensure_ascii=False)
                cache["seq"], cache["text"] = snapshot.seq, f"data: {data}\nid: {snapshot.seq}\n\n"
            return cache["text"].encode()

        async def handler(request: web.Request) -> web.StreamResponse:
            if len(self._wake) >= MAX_STREAMS:
                return web.json_response({"error": "too many open streams"}, status=503)
            response = web.StreamResponse(
                headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
            )
            Guard.decorate(response)
            self.book.streaming(request.protocol)  # no answer time: its writes are timed
            await response.prepare(request)
            wake = asyncio.Event()
            self._wake.add(wake)
            sent = None
            hello = b"retry: 1000\n\n"  # with the first write: the client sees the stream open

            async def write(data: bytes) -> None:
                # asyncio.timeout, not wait_for: no task made for each event a client is sent
                async with asyncio.timeout(WRITE_SECONDS):
                    await response.write(data)

            try:
                while not self._closing:
                    latest = self.latest
                    if latest is not None and latest.seq != sent:
                        sent = latest.seq
                        await write(encoded(latest) + hello)
                        hello = b""
                        continue
                    if hello:
                        await write(hello)
                        hello = b""
                    try:
                        async with asyncio.timeout(PING_SECONDS):
                            await wake.wait()
                    except TimeoutError:
                        await write(b": ping\n\n")
                    wake.clear()
                    if allowed is not None and not allowed(request):
                        break
            except ConnectionResetError:
                pass  # the tab was closed
            except TimeoutError:  # a client that does not read: its slot goes to others
                self.notes.note(
                    "stream-unread",
                    f"web: closed an event stream to {request.remote} not read for "
                    f"{WRITE_SECONDS:g} s",
                    logging.INFO,
                )
                if request.transport is not None:
                    request.transport.abort()
            finally:
                self._wake.discard(wake)
            return response

        return handler
