"""The daemon's end of the owner's socket (protocol.py): the owner's `cards` commands, done by
the box itself while it runs, so it stays the only writer of its state.

The socket is a UNIX one in the unit's RuntimeDirectory= (0750, the service's user and group)
made 0660: only root and the service's group reach it, and each peer's credentials are checked
again (``allowed``). A thread accepts; each client has a thread of its own, at most
``MAX_CLIENTS`` at once (more are answered busy), and at most ``READ_SECONDS`` to send its one
line. The request is put on the loop's bounded queue for remotes (``Loop.post_remote``) and done
there, by the loop, between the box's own events; the client's thread waits for the answer at
most ``ANSWER_SECONDS`` and sends it. The loop never reads or writes the socket: a slow or
hostile client holds only its own thread.
"""

from __future__ import annotations

import contextlib
import grp
import logging
import os
import pwd
import socket
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.app.events import ShowNotice
from companion.core.events import Call
from companion.core.storage import condition_of
from companion.errors import CompanionError
from companion.owner import protocol, verbs

log = logging.getLogger(__name__)

MAX_CLIENTS = 4
READ_SECONDS = 5.0
ANSWER_SECONDS = 20.0
_CRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


def peer(conn: socket.socket) -> tuple[int, int, int]:
    """The connecting process's pid, uid and gid, as the kernel tells them."""
    data = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _CRED.size)
    pid, uid, gid = _CRED.unpack(data)
    return pid, uid, gid


def service_member(uid: int, gid: int) -> bool:
    """Root, this process's own user, or a member of its group (the socket's file mode says the
    same; this is the second look)."""
    if uid == 0 or uid == os.geteuid() or gid == os.getegid():
        return True
    try:
        name = pwd.getpwuid(uid).pw_name
        return name in grp.getgrgid(os.getegid()).gr_mem
    except KeyError:
        return False


class OwnerSocket:
    def __init__(
        self,
        app: Any,
        path: Path,
        allowed: Callable[[int, int], bool] = service_member,
    ) -> None:
        self.app = app  # companion.app.App: its loop, registry and notices
        self.path = path
        self.allowed = allowed
        self.listener: socket.socket | None = None
        self.slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self.stopped = False

    def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a socket left by a process that is gone
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o117)  # made 0660 from the start: no moment open to others
        try:
            listener.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o660)
        listener.listen(8)
        self.listener = listener
        threading.Thread(target=self._accept, name="owner-socket", daemon=True).start()
        log.info("owner's commands: listening on %s", self.path)

    def stop(self) -> None:
        self.stopped = True
        if self.listener is not None:
            with contextlib.suppress(OSError):
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _accept(self) -> None:
        listener = self.listener
        assert listener is not None
        while not self.stopped:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # stopped
            if not self.slots.acquire(blocking=False):
                self._refuse(conn, "busy", "the box is answering other commands; try again")
                continue
            threading.Thread(
                target=self._serve, args=(conn,), name="owner-client", daemon=True
            ).start()

    def _refuse(self, conn: socket.socket, error: str, text: str) -> None:
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            conn.sendall(protocol.encode({"ok": False, "error": error, "text": text}))
        conn.close()

    def _serve(self, conn: socket.socket) -> None:
        try:
            pid, uid, gid = peer(conn)
            if not self.allowed(uid, gid):
                log.warning("owner's commands: refused process %d (uid %d, gid %d)", pid, uid, gid)
                self._refuse(conn, "refused", "only root and the box's group may ask the box")
                return
            conn.settimeout(READ_SECONDS)
            data = b""
            while b"\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
                if len(data) > protocol.MAX_LINE:
                    raise protocol.ProtocolError(f"a request over {protocol.MAX_LINE} bytes")
            request = protocol.decode(data.split(b"\n", 1)[0])
            answer = self._answer(request, uid)
            conn.sendall(protocol.encode(answer))
        except (OSError, protocol.ProtocolError) as err:
            log.warning("owner's commands: a client went wrong: %s", err)
        except Exception:  # a bug of ours: this client fails, the box plays on
            log.exception("owner's commands: a request failed")
        finally:
            with contextlib.suppress(OSError):
                conn.close()
            self.slots.release()

    def _answer(self, request: dict[str, Any], uid: int) -> dict[str, Any]:
        if request.get("v") != protocol.VERSION or request.get("verb") not in protocol.VERBS:
            return {"ok": False, "error": "usage", "text": f"not a request: {request!r:.100}"}
        asked = request.get("state_dir")
        mine = str(self.app.config.state_dir())
        if asked is not None and asked != mine:  # another directory: the command's own work
            return {"ok": False, "error": "elsewhere", "text": f"the box keeps {mine}"}
        done = threading.Event()
        answer: dict[str, Any] = {}

        def run() -> None:  # on the loop's thread
            try:
                answer.update(ok=True, body=self.do(request, uid))
            except CompanionError as err:
                answer.update(ok=False, error="usage", text=str(err))
            except LookupError as err:
                answer.update(ok=False, error="lookup", text=str(err).strip("'\""))
            except OSError as err:
                text = f"{err.strerror or err} ({condition_of(err)}); nothing changed"
                answer.update(ok=False, error="storage", text=text)
            finally:
                done.set()

        if not self.app.loop.post_remote(Call(run)):
            return {"ok": False, "error": "busy", "text": "the box is busy; try again"}
        if not done.wait(ANSWER_SECONDS):
            return {"ok": False, "error": "busy", "text": "the box did not answer in time"}
        return answer

    def do(self, request: dict[str, Any], uid: int) -> dict[str, Any]:
        """Loop thread: one request done by the box, logged and shown on its screen."""
        app = self.app
        registry = app.registry
        registry.refresh()
        verb = request["verb"]
        if verb == "list":
            return verbs.listing(registry)
        who = "root" if uid == 0 else _user(uid)
        if verb == "enrol":
            card = verbs.card_of(request.get("card"))
            body = verbs.enrol(registry, card, bool(request.get("force")))
            app.note(f"card {body['line']} enrolled from a shell ({who})")
            app.feed(ShowNotice(("Card enrolled", card.name)))
            return body
        uid_text = request.get("uid")
        if not isinstance(uid_text, str):
            raise LookupError("no UID given")
        body = verbs.forget(registry, uid_text)
        app.note(f"card {uid_text} ({body['name']}) forgotten from a shell ({who})")
        app.feed(ShowNotice(("Card forgotten", body["name"])))
        return body


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
