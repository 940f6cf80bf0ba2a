"""The web server's connections: how many, from whom, and how long each waits idle.

A LAN neighbour can open connections far faster than the box has file handles (systemd's soft
limit is 1,024 files). So the server never holds more than ``MAX_CONNECTIONS`` in all nor
``MAX_PER_SOURCE`` from one address, well below the process's limit; a connection over either
cap closes the oldest idle one (of that address, or of all) or, with none idle, is closed at
once. A connection is idle from its start, and again after each answer, until the head of its
next request has arrived: after ``IDLE_SECONDS`` it is closed, so a client that sends its
headers slower than any phone would (a line every few seconds) holds nothing for long. A slow
body is cut off by the handlers' own limits (guard.py, phone_routes.py).

``GuardedServer`` is aiohttp's low-level server with these rules, handing out
``GuardedHandler`` protocols: its error answers (a request aiohttp cannot parse) are the
guard's short plain-text 4xx with the guard's headers and no version, and every kind of refusal
or error is logged at most once a minute with a count (ratelog.py). This uses aiohttp's
RequestHandler hooks (connection_made, connection_lost, _handle_request, handle_error).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from companion.web.guard import Guard
from companion.web.ratelog import RateLog

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 128  # in all: systemd's soft limit is 1,024 files, the unit's 4,096
MAX_PER_SOURCE = 32  # from one address (a phone's browser opens at most six)
IDLE_SECONDS = 5.0  # a request's head must arrive within this; an idle keep-alive ends then
ACCEPT_BURST = 8  # connections asyncio takes per wake-up: each is kept or closed before many
# more come, so a phone's new connection has its request read before 31 newer ones arrive
LISTEN_QUEUE = 128  # the system's queue of connections not yet taken


@dataclass
class _Connection:
    transport: asyncio.Transport
    source: str
    idle_since: float | None  # None while a request is being answered
    timer: asyncio.TimerHandle | None = None


class ConnectionBook:
    """The open connections of one server (its loop's thread only)."""

    def __init__(
        self,
        notes: RateLog,
        max_total: int = MAX_CONNECTIONS,
        max_per_source: int = MAX_PER_SOURCE,
        idle_seconds: float | None = None,
    ) -> None:
        self.notes = notes
        self.max_total, self.max_per_source = max_total, max_per_source
        self.idle_seconds = IDLE_SECONDS if idle_seconds is None else idle_seconds
        self.open: dict[object, _Connection] = {}

    def __len__(self) -> int:
        return len(self.open)

    def admit(self, key: object, transport: asyncio.Transport) -> bool:
        """A new connection: room is made by closing the oldest idle one, else it is refused."""
        peer = transport.get_extra_info("peername")
        source = str(peer[0]) if peer else "?"
        same = [k for k, c in self.open.items() if c.source == source]
        full = len(same) >= self.max_per_source
        if full and not self._close_oldest_idle(same, "over the limit for one address"):
            self.notes.note(
                "refused-source",
                f"web: refused connections from {source}: {self.max_per_source} are open",
            )
            return False
        full = len(self.open) >= self.max_total
        if full and not self._close_oldest_idle(list(self.open), "over the limit for all"):
            self.notes.note("refused-all", f"web: refused connections: {self.max_total} are open")
            return False
        self.open[key] = _Connection(transport, source, None)
        self.idle(key)
        return True

    def busy(self, key: object) -> None:
        """The head of a request arrived: it is answered, however long that takes."""
        conn = self.open.get(key)
        if conn is not None:
            conn.idle_since = None
            if conn.timer is not None:
                conn.timer.cancel()
                conn.timer = None

    def idle(self, key: object) -> None:
        """Answered (or just opened): the next request's head must come within the limit."""
        conn = self.open.get(key)
        if conn is None:
            return
        loop = asyncio.get_running_loop()
        conn.idle_since = loop.time()
        if conn.timer is not None:
            conn.timer.cancel()
        conn.timer = loop.call_at(conn.idle_since + self.idle_seconds, self._idle_over, key)

    def gone(self, key: object) -> None:
        conn = self.open.pop(key, None)
        if conn is not None and conn.timer is not None:
            conn.timer.cancel()

    def _idle_over(self, key: object) -> None:
        conn = self.open.get(key)
        if conn is None or conn.idle_since is None:
            return
        self.notes.note(
            "idle",
            f"web: closed a connection from {conn.source} idle or sending its request "
            f"too slowly ({self.idle_seconds:g} s)",
            logging.INFO,
        )
        self._close(key)

    def _close_oldest_idle(self, keys: list[object], why: str) -> bool:
        idle = [k for k in keys if self.open[k].idle_since is not None]
        if not idle:
            return False
        oldest = min(idle, key=lambda k: self.open[k].idle_since or 0.0)
        self.notes.note(
            f"evicted-{why}", f"web: closed the oldest idle connection, {why}", logging.INFO
        )
        self._close(oldest)
        return True

    def _close(self, key: object) -> None:
        conn = self.open.pop(key)
        if conn.timer is not None:
            conn.timer.cancel()
        conn.transport.abort()  # the file handle is free now, not after a goodbye


class GuardedHandler(RequestHandler):
    """aiohttp's protocol for one connection, kept in the book and answering its own errors
    as the guard would."""

    refused = False

    @property
    def book(self) -> ConnectionBook:
        return self._manager.book  # type: ignore[union-attr]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not self.book.admit(self, transport):  # type: ignore[arg-type]
            self.refused = True
            transport.abort()  # type: ignore[attr-defined]
            return
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self.refused:
            return
        if self._manager is not None:
            self.book.gone(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._messages:  # a whole head has come: busy from now, never the oldest idle
            self.book.busy(self)

    async def _handle_request(self, request: Any, start_time: Any, request_handler: Any) -> Any:
        book = self.book
        book.busy(self)
        try:
            return await super()._handle_request(request, start_time, request_handler)
        finally:
            book.idle(self)

    def handle_error(
        self,
        request: Any,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """A request aiohttp could not take (a malformed head, a NUL in a header): a short
        plain answer with the guard's headers, and a line in the log at most once a minute."""
        what = getattr(exc, "message", None) or message or (type(exc).__name__ if exc else "")
        what = str(what).splitlines()[0][:120] if what else "an error"
        self.book.notes.note(
            f"error-{status}",
            f"web: answered {status} to a request from {request.remote}: {what}",
            logging.INFO,
        )
        if request.writer.output_size > 0:  # an answer is on its way: only closing is left
            raise ConnectionError("the answer had begun")
        text = "bad request" if status < 500 else "the box could not answer this request"
        response = web.Response(status=status, text=text + "\n")
        Guard.decorate(response)
        response.force_close()
        return response

    def log_exception(self, *args: Any, **kw: Any) -> None:
        """aiohttp's own "Unhandled exception" lines: one short line at most once a minute."""
        exc = kw.get("exc_info")
        self.book.notes.note(
            f"exception-{type(exc).__name__}",
            f"web: {args[0] if args else 'error'}: {type(exc).__name__}: {exc}",
        )


class GuardedServer(web.Server):
    """aiohttp's low-level server, handing out GuardedHandlers that share one book."""

    def __init__(self, plain: web.Server, book: ConnectionBook) -> None:
        super().__init__(
            plain.request_handler,
            request_factory=plain.request_factory,
            handler_cancellation=plain.handler_cancellation,
            loop=plain._loop,
            **plain._kwargs,
        )
        self.book = book

    def __call__(self) -> RequestHandler:
        return GuardedHandler(self, loop=self._loop, **self._kwargs)


class GuardedRunner(web.AppRunner):
    """aiohttp's AppRunner serving through a GuardedServer."""

    def __init__(self, app: web.Application, book: ConnectionBook, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.book = book

    async def _make_server(self) -> web.Server:
        return GuardedServer(await super()._make_server(), self.book)
