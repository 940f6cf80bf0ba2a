"""The phones' server in a process of its own: the same WebServer and PhoneRoutes as in the
box's process, with a ``RemoteService`` that asks the game's process over the link (link.py)
instead of calling it.

    python -m companion.web.phones_process [--link PATH] [--port N | --config FILE] [--host H]
        [--with-parent]

It binds the phones' port itself, connects to the game's process on ``PATH`` (again every
second while it cannot), and answers phones 503 ("the box is busy") while the link is down.
Paired phones are known from the game's ``phones`` table (their tokens' hashes and time left),
so a request is authorised here without a round trip; presses, pairing tries and asks are
requests on the link, at most ``link.MAX_WAITING`` unanswered. ``--with-parent``: started as a
child of the game's process, it ends when its standard input closes (the parent has gone).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.web import link
from companion.web.link import Lines, LinkError
from companion.web.pace import Pace
from companion.web.pairing import Attempt, parse_token, token_hash

log = logging.getLogger(__name__)

UNIT_LINK = "/run/trap-companion/phones.sock"  # the main unit's RuntimeDirectory=
ANSWER_SECONDS = 2.0  # as the in-process service: a request waits this long for its answer
RECONNECT_SECONDS = 1.0
ERRORS: dict[str, type[Exception]] = {
    "lookup": LookupError,
    "permission": PermissionError,
    "value": ValueError,
    "busy": TimeoutError,
}


class RemotePairing:
    """Which cookies belong to paired phones, as the game's process last said. ``known`` is
    False until it first said: a cookie unknown then may well be paired (answered 503, not
    401, which would send a paired phone's page back to pairing)."""

    def __init__(self) -> None:
        self.until: dict[str, float] = {}
        self.known = False

    def update(self, left: dict[str, float]) -> None:
        now = time.monotonic()
        self.until = {str(h): now + float(s) for h, s in left.items()}
        self.known = True

    def allows(self, cookie: Any) -> bool:
        token = parse_token(cookie)
        if token is None:
            return False
        until = self.until.get(token_hash(token))
        return until is not None and until > time.monotonic()


class RemoteService:
    """What PhoneRoutes needs of the phones, answered over the link (on the server's loop)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.pairing = RemotePairing()
        self.pace = Pace()
        self.server: Any = None  # the WebServer, shown each view
        self.writer: asyncio.StreamWriter | None = None
        self.waiting: dict[int, Callable[[dict[str, Any]], None]] = {}
        self.ids = itertools.count(1)
        self.seq = 0

    # --- requests (the server's loop) ------------------------------------------------------

    def _send(self, message: dict[str, Any], on_answer: Callable[[dict[str, Any]], None]) -> bool:
        writer = self.writer
        if writer is None or len(self.waiting) >= link.MAX_WAITING:
            return False
        rid = next(self.ids)
        self.waiting[rid] = on_answer
        writer.write(link.encode({**message, "id": rid}))
        return True

    async def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        sent = self._send(message, lambda a: future.done() or future.set_result(a))
        if not sent:
            raise TimeoutError("the box is busy")
        async with asyncio.timeout(ANSWER_SECONDS):
            return await future

    def press(self, button: str, long: bool, then: Callable[[], None] | None = None) -> bool:
        def answered(answer: dict[str, Any]) -> None:
            if answer.get("ok") and then is not None:
                then()

        return self._send({"t": "press", "button": button, "long": long}, answered)

    async def pair(self, code: Any, source: Any) -> Attempt:
        try:
            answer = await self._ask({"t": "pair", "code": code, "source": str(source or "")})
        except TimeoutError:
            return Attempt("busy", 503, "the box is busy; try again")
        body = answer.get("body") or {}
        return Attempt(
            str(body.get("outcome", "")),
            int(body.get("status", 500)),
            str(body.get("message", "")),
            str(body.get("token", "")),
        )

    async def request(self, what: str, args: dict[str, Any]) -> Any:
        answer = await self._ask({"t": "ask", "what": what, "args": args})
        if answer.get("ok"):
            return answer.get("body")
        raise ERRORS.get(str(answer.get("error")), TimeoutError)(str(answer.get("text", "")))

    # --- the link (the server's loop) ------------------------------------------------------

    async def keep_linked(self) -> None:
        """Connect to the game's process, again after each loss, for ever."""
        from companion.web.phones import PhoneView

        while True:
            try:
                reader, writer = await asyncio.open_unix_connection(self.path, limit=link.MAX_LINE)
            except OSError as err:
                log.debug("phones: no link yet (%s)", err)
                await asyncio.sleep(RECONNECT_SECONDS)
                continue
            try:
                writer.write(link.encode(link.hello()))
                lines = Lines()
                hello = False
                while data := await reader.read(65536):
                    for line in lines.feed(data):
                        message = link.decode(line)
                        if not hello:
                            link.check_hello(message)
                            hello, self.writer = True, writer
                            log.info("phones: linked to the box")
                            continue
                        self._receive(message, PhoneView)
            except (OSError, LinkError) as err:
                log.warning("phones: the link to the box ended: %s", err)
            finally:
                self.writer = None
                for on_answer in self.waiting.values():  # answered "busy": nothing was lost
                    on_answer({"ok": False, "error": "busy", "text": "the link ended"})
                self.waiting.clear()
                writer.close()
            await asyncio.sleep(RECONNECT_SECONDS)

    def _receive(self, message: dict[str, Any], view_class: Any) -> None:
        kind = message["t"]
        if kind == "answer":
            on_answer = self.waiting.pop(message.get("id"), None)  # type: ignore[arg-type]
            if on_answer is not None:
                on_answer(message)
        elif kind == "view":
            if self.server is not None and isinstance(message.get("view"), dict):
                self.seq += 1
                self.server.show(view_class(self.seq, message["view"]))
        elif kind == "phones":
            left = message.get("left")
            if not isinstance(left, dict):
                raise LinkError("a phones' table that is not an object")
            self.pairing.update(left)
        else:
            raise LinkError(f"no message {kind!r}")


def serve(path: str, host: str, port: int, with_parent: bool = False) -> int:
    from companion.web.guard import Guard, own_names
    from companion.web.listen import bind
    from companion.web.phone_routes import PhoneRoutes
    from companion.web.server import WebServer

    service = RemoteService(path)
    sock = bind(host, port)
    guard = Guard.for_names(own_names())
    server = WebServer(
        host or sock.getsockname()[0], port, guard, [PhoneRoutes(service)], sock=sock
    )
    service.server = server
    server.start()
    assert server._loop is not None
    linking = asyncio.run_coroutine_threadsafe(service.keep_linked(), server._loop)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    if with_parent:  # a child of the game's process: its stdin closes when the parent goes
        threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    log.info("phones: the phones' server on port %d (pid %d)", port, os.getpid())
    done.wait()
    linking.cancel()
    server.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="phones_process")
    parser.add_argument("--link", default=UNIT_LINK)
    parser.add_argument("--port", type=int, help="default: [phones] port of --config")
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--host", default="")
    parser.add_argument("--with-parent", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.port is None:
        from companion.core import config as configuration

        path = args.config or configuration.DEFAULT_PATH
        args.port = configuration.load(path).phones.port
    with contextlib.suppress(OSError):
        os.nice(10)  # below the game's process (the unit gives it a lower CPUWeight too)
    return serve(args.link, args.host, args.port, args.with_parent)


if __name__ == "__main__":
    sys.exit(main())
