"""The phones' link: the game's process and the phones' server process over a UNIX socket.

Version 1, one JSON object per line (UTF-8, at most ``MAX_LINE`` bytes, at most
``MAX_NESTING`` brackets deep), each with ``t``, its kind. Either side's first line is
``hello``; a line of another version, or one that is not such an object, ends the link (the
server's side then answers phones 503 until a new link is made).

The game's process to the server (snapshots out)::

    {"t": "hello", "v": 1}
    {"t": "view", "seq": 7, "view": {...}}        # what a phone may see (public.py), newest only
    {"t": "phones", "left": {"<sha256>": 41000.0}}  # paired tokens' hashes, seconds left
    {"t": "answer", "id": 3, "ok": true, "body": {...}}
    {"t": "answer", "id": 4, "ok": false, "error": "lookup", "text": "no enrolled card 04A1"}

The server to the game's process (presses and pairing requests in)::

    {"t": "hello", "v": 1}
    {"t": "press", "id": 5, "button": "green", "long": false}
    {"t": "pair", "id": 6, "code": "123456", "source": "192.168.1.20"}
    {"t": "ask", "id": 8, "what": "cards" | "forget" | "enrol", "args": {...}}

Every request gets one answer, in any order. Queues are bounded both ways: the server has at
most ``MAX_WAITING`` requests unanswered (more are answered 503 at once); the game's process
puts presses and asks on the loop's bounded queue for remotes (refused: answered ``busy``),
and of views and the phones' table it keeps only the newest to send.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from typing import Any

from companion.core.nesting import json_too_deep

VERSION = 1
MAX_LINE = 256 * 1024  # a view is a few KB
MAX_NESTING = 32
MAX_WAITING = 64  # requests the server has sent and not had answered
ERRORS = ("lookup", "permission", "value", "busy", "storage")  # an answer's error kinds


class LinkError(Exception):
    """A line the other side should not have sent: the link ends."""


def encode(message: dict[str, Any]) -> bytes:
    data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if len(data) >= MAX_LINE:
        raise LinkError(f"a {message.get('t')!r} line of {len(data)} bytes is over {MAX_LINE}")
    return data + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    if len(line) > MAX_LINE:
        raise LinkError(f"a line of {len(line)} bytes is over {MAX_LINE}")
    if json_too_deep(line, MAX_NESTING):
        raise LinkError("a line nested too deep")
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as err:
        raise LinkError(f"not JSON: {err}") from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise LinkError("not an object with a kind ('t')")
    return message


def hello() -> dict[str, Any]:
    return {"t": "hello", "v": VERSION}


def check_hello(message: dict[str, Any]) -> None:
    if message.get("t") != "hello" or message.get("v") != VERSION:
        raise LinkError(f"expected hello version {VERSION}, got {message!r:.100}")


class Lines:
    """Whole lines out of bytes read in any pieces; a line longer than MAX_LINE is an error."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        lines = []
        while (end := self._buffer.find(b"\n")) >= 0:
            lines.append(bytes(self._buffer[:end]))
            del self._buffer[: end + 1]
        if len(self._buffer) > MAX_LINE:
            raise LinkError(f"a line over {MAX_LINE} bytes")
        return lines


class Outbox:
    """What the game's process has to send, bounded: answers in order (at most MAX_WAITING, as
    many as the server may ask), and only the newest view and phones' table. ``take`` blocks
    until there is something or the box is closed (then None)."""

    def __init__(self) -> None:
        self._answers: deque[dict[str, Any]] = deque()
        self._latest: dict[str, dict[str, Any]] = {}  # kind -> newest message of that kind
        self._ready = threading.Condition()
        self.closed = False

    def answer(self, message: dict[str, Any]) -> bool:
        with self._ready:
            if len(self._answers) >= MAX_WAITING:
                return False  # the server asked more than it may: its link is ended
            self._answers.append(message)
            self._ready.notify()
        return True

    def latest(self, message: dict[str, Any]) -> None:
        with self._ready:
            self._latest[message["t"]] = message
            self._ready.notify()

    def take(self) -> dict[str, Any] | None:
        with self._ready:
            while not self.closed and not self._answers and not self._latest:
                self._ready.wait()
            if self._answers:
                return self._answers.popleft()
            if self._latest:
                kind = next(iter(self._latest))
                return self._latest.pop(kind)
            return None

    def close(self) -> None:
        with self._ready:
            self.closed = True
            self._ready.notify_all()
