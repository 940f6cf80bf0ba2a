"""The web server's connections: how many, from whom, and how long each may hold its slot.

A LAN neighbour can open connections far faster than the box has file handles (systemd's soft
limit is 1,024 files). So the server never holds more than ``MAX_CONNECTIONS`` in all nor
``MAX_PER_SOURCE`` from one address, well below the process's limit, and every slot is freed
by time, whatever the client does:

- idle (from its start, and again after each answer) until the head of its next request has
  arrived: after ``IDLE_SECONDS`` it is closed, so a client that sends its headers slower than
  any phone would (a line every few seconds) holds nothing for long;
- busy (a request's head has come): its answer must be handed to the system within
  ``BUSY_SECONDS``; more requests sent meanwhile (pipelined) do not extend it, so a client that
  never reads what it asked for is closed then;
- in all, a connection answers requests for ``LIFE_SECONDS`` and is closed at its next idle
  moment after, so one that reads just fast enough cannot keep its slot for ever either;
- an event stream is exempt from the last two (a phone watches the box for hours): its writes
  must be taken within ``WRITE_SECONDS`` instead (server.py), and there are at most 16.

A new connection over a cap closes one to make room: an idle one first (the oldest), else the
oldest of the address holding the most. Addresses a paired phone was seen at lately
(``mark_phone``) keep ``PHONE_SHARE`` slots the others cannot fill, so a flood from a few
addresses never keeps a phone's page from loading, nor a new phone from pairing (it takes
slots from the biggest holder, not from itself). A slow body is cut off by the handlers' own
limits (guard.py, phone_routes.py).

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
BUSY_SECONDS = 8.0  # a request's answer handed to the system within this (5 s to make it)
LIFE_SECONDS = 60.0  # a connection (not an event stream) is closed once idle after this
PHONE_SHARE = 32  # slots only addresses of paired phones may take
PHONE_SECONDS = 3600.0  # an address stays a phone's this long after its last paired request
ACCEPT_BURST = 8  # connections asyncio takes per wake-up: each is kept or closed before many
# more come, so a phone's new connection has its request read before 31 newer ones arrive
LISTEN_QUEUE = 128  # the system's queue of connections not yet taken


@dataclass
class _Connection:
    transport: asyncio.Transport
    source: str
    idle_since: float | None  # None while a request is being answered
    opened: float = 0.0
    timer: asyncio.TimerHandle | None = None  # the idle or the busy limit, whichever applies
    streaming: bool = False  # an event stream: its writes are timed instead


class ConnectionBook:
    """The open connections of one server (its loop's thread only)."""

    def __init__(
        self,
        notes: RateLog,
        max_total: int = MAX_CONNECTIONS,
        max_per_source: int = MAX_PER_SOURCE,
        idle_seconds: float | None = None,
        phone_share: int = PHONE_SHARE,
    ) -> None:
        self.notes = notes
        self.max_total, self.max_per_source = max_total, max_per_source
        self.idle_seconds = IDLE_SECONDS if idle_seconds is None else idle_seconds
        self.busy_seconds = BUSY_SECONDS
        self.life_seconds = LIFE_SECONDS
        self.phone_share = phone_share
        self.open: dict[object, _Connection] = {}
        self.phones: dict[str, float] = {}  # address -> until when it counts as a phone's

    def __len__(self) -> int:
        return len(self.open)

    def mark_phone(self, source: str) -> None:
        """A paired phone's request came from ``source``: it gets the phones' share."""
        loop = asyncio.get_running_loop()
        if len(self.phones) > 4 * self.max_total:  # a flood of addresses: keep the live ones
            now = loop.time()
            self.phones = {s: t for s, t in self.phones.items() if t > now}
        self.phones[source] = loop.time() + PHONE_SECONDS

    def is_phone(self, source: str) -> bool:
        until = self.phones.get(source)
        return until is not None and until > asyncio.get_running_loop().time()

    def admit(self, key: object, transport: asyncio.Transport) -> bool:
        """A new connection: room is made by closing an idle one, else the oldest of the
        address holding the most (never a phone's for another's); else it is refused."""
        peer = transport.get_extra_info("peername")
        source = str(peer[0]) if peer else "?"
        same = [k for k, c in self.open.items() if c.source == source]
        if len(same) >= self.max_per_source and not self._make_room(
            same, "over the limit for one address"
        ):
            self.notes.note(
                "refused-source",
                f"web: refused connections from {source}: {self.max_per_source} are open",
            )
            return False
        phone = self.is_phone(source)
        others = [k for k, c in self.open.items() if not self.is_phone(c.source)]
        crowded = not phone and len(others) >= self.max_total - self.phone_share
        if crowded and not self._make_room(others, "over the limit for all but phones"):
            self.notes.note("refused-others", f"web: refused connections: {len(others)} are open")
            return False
        if len(self.open) >= self.max_total:
            others = [k for k, c in self.open.items() if not self.is_phone(c.source)]
            if not self._make_room(others or list(self.open), "over the limit for all"):
                self.notes.note(
                    "refused-all", f"web: refused connections: {self.max_total} are open"
                )
                return False
        now = asyncio.get_running_loop().time()
        self.open[key] = _Connection(transport, source, None, opened=now)
        self.idle(key)
        return True

    def busy(self, key: object) -> None:
        """The head of a request arrived: its answer must be handed on within BUSY_SECONDS.
        More requests arriving meanwhile (pipelined) do not move that limit."""
        conn = self.open.get(key)
        if conn is None or conn.idle_since is None:
            return
        conn.idle_since = None
        self._timer(key, conn, self.busy_seconds, self._busy_over)

    def streaming(self, key: object) -> None:
        """The request is an event stream: no busy limit (its writes are timed instead)."""
        conn = self.open.get(key)
        if conn is not None:
            conn.streaming = True
            if conn.timer is not None:
                conn.timer.cancel()
                conn.timer = None

    def idle(self, key: object) -> None:
        """Answered (or just opened): the next request's head must come within the limit;
        a connection past its life is closed now."""
        conn = self.open.get(key)
        if conn is None:
            return
        loop = asyncio.get_running_loop()
        conn.idle_since, conn.streaming = loop.time(), False
        if conn.idle_since - conn.opened >= self.life_seconds:
            self.notes.note(
                "life",
                f"web: closed a connection from {conn.source} after "
                f"{self.life_seconds:g} s of requests",
                logging.INFO,
            )
            self._close(key)
            return
        self._timer(key, conn, self.idle_seconds, self._idle_over)

    def _timer(self, key: object, conn: _Connection, seconds: float, then) -> None:
        if conn.timer is not None:
            conn.timer.cancel()
        loop = asyncio.get_running_loop()
        conn.timer = loop.call_at(loop.time() + seconds, then, key)

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

    def _busy_over(self, key: object) -> None:
        conn = self.open.get(key)
        if conn is None or conn.idle_since is not None or conn.streaming:
            return
        self.notes.note(
            "busy",
            f"web: closed a connection from {conn.source} whose answer was not taken "
            f"within {self.busy_seconds:g} s",
            logging.INFO,
        )
        self._close(key)

    def _make_room(self, keys: list[object], why: str) -> bool:
        """Close one of ``keys``: the oldest idle, else the oldest of the address holding the
        most of them (an event stream is never closed for room)."""
        idle = [k for k in keys if self.open[k].idle_since is not None]
        if idle:
            victim = min(idle, key=lambda k: self.open[k].idle_since or 0.0)
        else:
            busy = [k for k in keys if not self.open[k].streaming]
            if not busy:
                return False
            held: dict[str, int] = {}
            for k in busy:
                held[self.open[k].source] = held.get(self.open[k].source, 0) + 1
            most = max(held.values())
            victim = min(
                (k for k in busy if held[self.open[k].source] == most),
                key=lambda k: self.open[k].opened,
            )
        self.notes.note(f"evicted-{why}", f"web: closed a connection, {why}", logging.INFO)
        self._close(victim)
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
