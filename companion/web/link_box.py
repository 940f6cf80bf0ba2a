"""The game's process's end of the phones' link (link.py): no network socket, only a UNIX one.

It listens on a path; the phones' server process connects (one at a time: a new connection
replaces the old). A reader thread turns the server's requests into the same calls the
in-process server makes (``PhoneService.press``, ``pairing.attempt``, an ask on the loop), each
answered on the link; a writer thread sends the answers and the newest view and phones' table
(``Outbox``). The link coming and going is told to the service on the loop's thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from pathlib import Path
from typing import Any

from companion.core.events import Call
from companion.faces.face import BUTTONS
from companion.web import link, players_api
from companion.web.link import Lines, LinkError, Outbox

log = logging.getLogger(__name__)

HELLO_SECONDS = 5.0
ASKS = ("cards", "forget", "enrol", *players_api.ASKS)


class LinkHost:
    def __init__(self, service: Any, path: Path) -> None:
        self.service = service  # companion.web.phones.PhoneService
        self.path = path
        self.listener: socket.socket | None = None
        self.conn: socket.socket | None = None
        self.outbox = Outbox()
        self.lock = threading.Lock()
        self.stopped = False
        self.connected = False
        self.view: dict[str, Any] | None = None  # the newest of each, sent again on a new link
        self.phones: dict[str, Any] | None = None

    # --- any thread ------------------------------------------------------------------------

    def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a socket left by a process that is gone
        self.path.parent.mkdir(parents=True, exist_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.path))
        os.chmod(self.path, 0o660)
        listener.listen(2)
        self.listener = listener
        threading.Thread(target=self._accept, name="phones-link", daemon=True).start()

    def send_view(self, seq: int, view: dict[str, Any]) -> None:
        self.view = {"t": "view", "seq": seq, "view": view}
        if self.connected:
            self.outbox.latest(self.view)

    def send_phones(self, left: dict[str, float]) -> None:
        self.phones = {"t": "phones", "left": left}
        if self.connected:
            self.outbox.latest(self.phones)

    def stop(self) -> None:
        self.stopped = True
        self.outbox.close()
        for s in (self.listener, self.conn):
            if s is not None:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    # --- the link's threads ----------------------------------------------------------------

    def _accept(self) -> None:
        listener = self.listener
        assert listener is not None
        while not self.stopped:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # stopped
            with self.lock:
                old, self.conn = self.conn, conn
            if old is not None:  # the server started again: its old link ends
                with contextlib.suppress(OSError):
                    old.shutdown(socket.SHUT_RDWR)
            threading.Thread(
                target=self._serve, args=(conn,), name="phones-link", daemon=True
            ).start()

    def _serve(self, conn: socket.socket) -> None:
        outbox = Outbox()
        try:
            conn.settimeout(HELLO_SECONDS)
            lines = Lines()
            first: list[bytes] = []
            while not first:
                data = conn.recv(65536)
                if not data:
                    return
                first = lines.feed(data)
            link.check_hello(link.decode(first[0]))
            conn.settimeout(None)
            conn.sendall(link.encode(link.hello()))
            with self.lock:
                self.outbox.close()
                self.outbox = outbox
                self.connected = True
            for message in (self.view, self.phones):
                if message is not None:
                    outbox.latest(message)
            writer = threading.Thread(target=self._write, args=(conn, outbox), daemon=True)
            writer.name = "phones-link-out"
            writer.start()
            self.service.link_changed(True)
            for line in first[1:]:
                self._handle(link.decode(line), outbox)
            while not self.stopped:
                data = conn.recv(65536)
                if not data:
                    break
                for line in lines.feed(data):
                    self._handle(link.decode(line), outbox)
        except (OSError, LinkError) as err:
            if not self.stopped:
                log.warning("phones: the link to the phones' server ended: %s", err)
        except Exception:  # a bug of ours: this link ends, the box plays on, a new one is made
            log.exception("phones: the link to the phones' server failed")
        finally:
            outbox.close()
            with contextlib.suppress(OSError):
                conn.close()
            with self.lock:
                current = self.conn is conn
                if current:
                    self.conn, self.connected = None, False
            if current and not self.stopped:
                self.service.link_changed(False)

    def _write(self, conn: socket.socket, outbox: Outbox) -> None:
        while (message := outbox.take()) is not None:
            try:
                conn.sendall(link.encode(message))
            except (OSError, LinkError) as err:
                log.warning("phones: could not send to the phones' server: %s", err)
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                return

    def _handle(self, message: dict[str, Any], outbox: Outbox) -> None:
        kind, rid = message["t"], message.get("id")
        if not isinstance(rid, int) or isinstance(rid, bool):
            raise LinkError(f"a {kind!r} without a number (id)")

        def answer(ok: bool, body: Any = None, error: str = "", text: str = "") -> None:
            reply: dict[str, Any] = {"t": "answer", "id": rid, "ok": ok}
            if ok:
                reply["body"] = body
            else:
                reply["error"], reply["text"] = error, text
            if not outbox.answer(reply):  # the server asked more than it may: its link ends
                log.warning("phones: more than %d requests unanswered", link.MAX_WAITING)
                with contextlib.suppress(OSError):
                    self.conn.shutdown(socket.SHUT_RDWR) if self.conn is not None else None

        service = self.service
        if kind == "press":
            button, long = message.get("button"), message.get("long")
            if button not in BUTTONS or not isinstance(long, bool):
                raise LinkError(f"a press of {button!r}")
            if not service.press(button, long, lambda: answer(True, {"taken": True})):
                answer(False, error="busy", text="the box is busy; press again")
        elif kind == "pair":
            attempt = service.pairing.attempt(message.get("code"), str(message.get("source", "")))
            body = {
                "outcome": attempt.outcome,
                "status": attempt.status,
                "message": attempt.message,
                "token": attempt.token,
            }
            answer(True, body)
            service.send_phones()
        elif kind == "ask":
            what, args = message.get("what"), message.get("args") or {}
            if what not in ASKS or not isinstance(args, dict):
                raise LinkError(f"an ask of {what!r}")
            fn = service.request_fn(what, args)

            def run() -> None:
                try:
                    answer(True, fn())
                except LookupError as err:
                    answer(False, error="lookup", text=str(err).strip("'\""))
                except PermissionError as err:
                    answer(False, error="permission", text=str(err))
                except ValueError as err:
                    answer(False, error="value", text=str(err))
                finally:
                    service.app.refresh()

            if not service.app.loop.post_remote(Call(run)):
                answer(False, error="busy", text="the box is busy; try again")
        else:
            raise LinkError(f"no request {kind!r}")
