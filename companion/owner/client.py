"""The command's end of the owner's socket: ask the running box, or learn that none runs."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from pathlib import Path
from typing import Any

from companion.errors import PermissionDenied
from companion.owner import protocol

TIMEOUT_SECONDS = 30.0  # the box answers within its own ANSWER_SECONDS


class NotRunning(Exception):
    """No box answers on the socket: the command may write the state itself."""


class Unanswered(Exception):
    """The box took the request but the link broke before its answer."""


def _group_of(path: Path) -> str:
    """The socket's group by name (the service's): its own, or its folder's where the folder
    keeps this user from looking inside."""
    import grp

    for where in (path, path.parent):
        try:
            gid = os.stat(where).st_gid
            break
        except OSError:
            continue
    else:
        return "of the service"
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def ask(request: dict[str, Any], path: Path | None = None) -> dict[str, Any]:
    """The running box's answer to ``request``; NotRunning when no box listens there,
    PermissionDenied (77) when this user may not ask it."""
    path = path or protocol.socket_path()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(TIMEOUT_SECONDS)
        try:
            conn.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError):
            raise NotRunning(str(path)) from None
        except PermissionError as err:
            raise PermissionDenied(
                f"the box is running, and only root and the group {_group_of(path)} may ask it "
                f"({path}: {err.strerror}): run the command with sudo"
            ) from None
        except OSError as err:
            if err.errno in (errno.ENOENT, errno.ECONNREFUSED):
                raise NotRunning(str(path)) from None
            raise
        # The box may refuse before it reads: its answer waits to be read all the same.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.sendall(protocol.encode({"v": protocol.VERSION, **request}))
        data = b""
        while b"\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                raise Unanswered(f"the box closed {path} before it answered")
            data += chunk
            if len(data) > protocol.MAX_ANSWER:
                raise Unanswered(f"an answer over {protocol.MAX_ANSWER} bytes")
        return protocol.decode(data.split(b"\n", 1)[0], protocol.MAX_ANSWER)
    finally:
        conn.close()
