"""The owner's socket: one request, one answer, each one JSON object on one line.

The client (`trap-companion cards enrol|forget|list`) sends::

    {"v": 1, "verb": "list", "state_dir": "/var/lib/trap-companion"}
    {"v": 1, "verb": "enrol", "card": {"uid": ..., "game": ..., "card": ..., "name": ...,
     "fields": {...}}, "force": false}
    {"v": 1, "verb": "forget", "uid": "0004A1B2C3"}

and the daemon answers ``{"ok": true, "body": {...}}`` or ``{"ok": false, "error": KIND,
"text": "..."}`` (KIND: ``usage``, ``lookup``, ``storage``, ``busy``, ``refused``, or
``elsewhere``: the state directory the command means is not the box's, so the command works on
it itself), then closes. ``state_dir`` is optional (the box's own).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from companion.core.nesting import json_too_deep

VERSION = 1
MAX_LINE = 64 * 1024  # a card is a few hundred bytes; an answer of 30,000 cards is not asked
MAX_ANSWER = 16 * 1024 * 1024
# The unit's RuntimeDirectory= (0750, the service's user and group): root and the group only.
SOCKET = Path("/run/trap-companion/owner.sock")
SOCKET_VARIABLE = "TRAP_COMPANION_OWNER_SOCKET"  # another path (tests, a box run by hand)
VERBS = ("list", "enrol", "forget")
ERRORS = ("usage", "lookup", "storage", "busy", "refused", "elsewhere")


class ProtocolError(Exception):
    """A line that is not a request or an answer of this protocol."""


def socket_path() -> Path:
    return Path(os.environ.get(SOCKET_VARIABLE) or SOCKET)


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def decode(line: bytes, limit: int = MAX_LINE) -> dict[str, Any]:
    if len(line) > limit:
        raise ProtocolError(f"a line of {len(line)} bytes is over {limit}")
    if json_too_deep(line, 8):
        raise ProtocolError("a line nested too deep")
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as err:
        raise ProtocolError(f"not JSON: {err}") from None
    if not isinstance(message, dict):
        raise ProtocolError("not an object")
    return message
