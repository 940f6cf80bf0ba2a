"""The one WebServer both web faces use (the simulator's page, the phones): what it adds for the
phones holds for any routes: a socket bound elsewhere, no wake-up without a stream, a stream
ended when no longer allowed, a cap on open streams, raised errors answered with the headers."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
from dataclasses import dataclass

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from companion.web.guard import CSP, Guard
from companion.web.server import MAX_STREAMS, WebServer


@dataclass(frozen=True)
class Shown:
    seq: int
    text: str


class Routes:
    """An event stream of ``Shown`` that only lets clients on while ``open`` is true."""

    def __init__(self) -> None:
        self.open = True

    def __call__(self, app: web.Application, server: WebServer) -> None:
        async def fail(request: web.Request) -> web.Response:
            raise web.HTTPConflict(text="busy")

        app.router.add_get("/api/events", server.stream(self.render, lambda r: self.open))
        app.router.add_get("/fail", fail)

    @staticmethod
    def render(shown: Shown) -> dict[str, object]:
        return {"seq": shown.seq, "text": shown.text}


async def next_data(stream) -> dict:
    while True:
        line = await asyncio.wait_for(stream.content.readline(), 5)
        assert line, "the stream ended"
        if line.startswith(b"data: "):
            return json.loads(line[6:])


def run(body) -> None:
    async def main() -> None:
        routes = Routes()
        server = WebServer("127.0.0.1", 0, Guard(), [routes])
        server.bind_loop(asyncio.get_running_loop())
        client = TestClient(TestServer(server.application(), host="127.0.0.1"))
        await client.start_server()
        try:
            await body(server, routes, client)
        finally:
            await client.close()

    asyncio.run(main())


def test_show_wakes_the_server_only_while_a_stream_is_open() -> None:
    calls: list[object] = []

    class Loop:
        def call_soon_threadsafe(self, fn, *args) -> None:
            calls.append(fn)

    server = WebServer("127.0.0.1", 0)
    server.bind_loop(Loop())  # type: ignore[arg-type]
    server.show(Shown(1, "a"))
    assert server.latest == Shown(1, "a") and calls == []  # nobody watches: no wake-up
    server._wake.add(asyncio.Event())  # a stream is open
    server.show(Shown(2, "b"))
    assert server.latest == Shown(2, "b") and len(calls) == 1


def test_a_stream_sends_data_first_then_ends_when_no_longer_allowed() -> None:
    async def body(server, routes, client) -> None:
        server.show(Shown(1, "first"))
        stream = await client.get("/api/events")
        assert stream.headers["Content-Security-Policy"] == CSP
        assert (await stream.content.readline()).startswith(b"data: ")
        server.show(Shown(2, "second"))
        assert (await next_data(stream)) == {"seq": 2, "text": "second"}
        routes.open = False
        server.show(Shown(3, "third"))  # the wake-up asks allowed(): the stream ends
        rest = await asyncio.wait_for(stream.content.read(), 5)
        assert b'"third"' not in rest

    run(body)


def test_more_streams_than_the_cap_are_refused_and_errors_carry_the_headers() -> None:
    async def body(server, routes, client) -> None:
        server.show(Shown(1, "x"))
        streams = [await client.get("/api/events") for _ in range(MAX_STREAMS)]
        for stream in streams:
            assert stream.status == 200
            await next_data(stream)
        extra = await client.get("/api/events")
        assert extra.status == 503 and "too many" in (await extra.json())["error"]
        assert extra.headers["Content-Security-Policy"] == CSP
        for stream in streams:
            stream.close()
        for path, status in (("/fail", 409), ("/nowhere", 404)):
            answer = await client.get(path)
            assert answer.status == status, path
            assert answer.headers["Content-Security-Policy"] == CSP  # answered by the guard
            assert answer.headers["X-Frame-Options"] == "DENY"

    run(body)


def test_a_socket_bound_elsewhere_is_served_and_stopped() -> None:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.setblocking(False)
    port = sock.getsockname()[1]
    server = WebServer("127.0.0.1", port, Guard(), [Routes()], sock=sock)
    server.show(Shown(7, "bound"))
    server.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/events", headers={"Host": f"127.0.0.1:{port}"})
        answer = conn.getresponse()
        assert answer.status == 200
        assert json.loads(answer.readline()[6:]) == {"seq": 7, "text": "bound"}
        conn.close()
    finally:
        server.stop()
    assert sock.fileno() == -1  # closed with the server


def test_the_servers_waiters_are_woken_once_whatever_detaches_after() -> None:
    """gh-109564 (Python 3.13, Debian 13's 3.13.5): a transport collected unclosed after its
    server closed woke the server's waiters a second time, a TypeError at every stop under a
    flood. The box's servers wake them once: a second wake-up is nothing, the first still wakes
    whoever waits for the server to close."""
    from companion.web.server import _wake_once

    async def main() -> bool:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        _wake_once(server)
        closed = asyncio.ensure_future(server.wait_closed())
        await asyncio.sleep(0)
        server.close()  # no client: it wakes its waiters now
        await asyncio.wait_for(closed, 5)
        server._wakeup()  # what a late detach does: nothing now
        return closed.done()

    assert asyncio.run(main())
    _wake_once(object())  # something that is not asyncio's Server is left alone
