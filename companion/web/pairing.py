"""Which phones may see the box: a 6-digit code shown on the OLED, traded once for a token.

Pure bookkeeping, safe to call from the web server's thread and the loop's (one lock): the
clocks and the randomness are passed in, so tests drive time and codes. What an attacker on
the LAN can try is bounded per code shown on the box, for everyone together, not per address (a
per-address ban would lock the owners out of their own phones):

- a code comes from ``secrets``, is good for ``CODE_SECONDS`` and for one phone;
- each code has its own budget: after ``WRONG_PER_CODE`` wrong guesses it is void (one in
  100,000 a code at best for a guesser), and the next code shown starts afresh, so guesses sent
  before it cannot use it up; the OLED shows how many wrong guesses arrived;
- a wrong code and no code (none shown, run out, void) get the very same answer, so nobody
  learns from it when a code is on the box;
- a paired phone holds a 256-bit token (hex in a cookie); the state dir keeps only its SHA-256
  and when it ends, in ``phones.json``, written whole like every other state file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core import statefile
from companion.core.durable import replace_whole
from companion.errors import DataError

log = logging.getLogger(__name__)

PHONES_FILE = statefile.PHONES.name
VERSION = 1
CODE_DIGITS = 6
CODE_SECONDS = 300.0
WRONG_PER_CODE = 10
TOKEN_BYTES = 32  # 256 bits
TOKEN_SECONDS = 12 * 3600
MAX_PHONES = 32  # the oldest pairing goes first beyond this
COOKIE = "tc_phone"

_CODE = re.compile(rf"[0-9]{{{CODE_DIGITS}}}")
_TOKEN = re.compile(rf"[0-9a-f]{{{2 * TOKEN_BYTES}}}")


def parse_code(text: Any) -> str | None:
    """The code as typed (spaces around it and between groups allowed), or None if it is not
    six digits. Only ASCII digits: a full-width or Arabic-Indic digit is not a code."""
    if not isinstance(text, str) or len(text) > 32:
        return None
    squeezed = "".join(text.split())
    return squeezed if _CODE.fullmatch(squeezed) else None


def parse_token(text: Any) -> str | None:
    """A cookie's token if it has the shape of one (64 lowercase hex digits), else None."""
    if not isinstance(text, str):
        return None
    return text if _TOKEN.fullmatch(text) else None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Attempt:
    """What a pairing try came to. ``status`` is the HTTP status the server answers."""

    outcome: str  # paired, wrong, no_code (none shown, run out or void), malformed
    status: int
    message: str
    token: str = ""


# A wrong code and no code at all get this same answer: nothing tells when a code is shown.
NOT_PAIRED = Attempt(
    "wrong", 403, "wrong code, or none shown: pick Pair a phone on the box, type its code"
)


@dataclass
class Code:
    digits: str
    until: float  # on the monotonic clock
    wrong: int = 0
    void: bool = False


class Pairing:
    """The code on show (if any), the wrong tries and the paired phones' token hashes."""

    def __init__(
        self,
        state_dir: Path,
        clock: Callable[[], float],
        wall: Callable[[], float] = time.time,
        randbelow: Callable[[int], int] = secrets.randbelow,
        token_hex: Callable[[int], str] = secrets.token_hex,
        on_change: Callable[[str], None] | None = None,
    ) -> None:
        self.path = state_dir / PHONES_FILE
        self.clock = clock
        self.wall = wall
        self.randbelow = randbelow
        self.token_hex = token_hex
        self.on_change = on_change or (lambda what: None)
        self.code: Code | None = None
        # token hash -> when it ends, on the monotonic clock: a step of the wall clock (a Pi
        # has no RTC; NTP steps it by years) neither ends a token early nor stretches it.
        self.phones: dict[str, float] = {}
        self.problem = ""
        self._lock = threading.Lock()
        self._load()

    # --- the file ------------------------------------------------------------------------

    def _load(self) -> None:
        """Read as every state file is (statefile): a FIFO, a device, a link, a file too big,
        nesting too deep or a number too long is set aside, and no phone is paired."""
        try:
            text = statefile.read_text(self.path, statefile.PHONES.cap)
            if text is not None:
                ends = _parse(statefile.parse_json(self.path, text), str(self.path))
                self.phones = self._from_wall(ends)
        except DataError as err:  # statefile.Unreadable is one too
            why = err.why if isinstance(err, statefile.Unreadable) else str(err)
            message = f"{self.path}: unreadable ({why})"
            self.problem = statefile.set_aside(self.path, message, "no phone paired")
            self.phones = {}

    def _from_wall(self, ends: dict[str, float]) -> dict[str, float]:
        """Wall-clock ends as read back after a restart, on the monotonic clock: what is
        left, never more than a token's whole life (a clock set back at boot stretches none)."""
        wall, now = self.wall(), self.clock()
        return {h: now + min(TOKEN_SECONDS, max(0.0, end - wall)) for h, end in ends.items()}

    def _save(self) -> None:
        wall, now = self.wall(), self.clock()  # kept as wall time: it must outlive a restart
        items = [{"sha256": h, "until": round(wall + u - now, 3)} for h, u in self.phones.items()]
        text = json.dumps({"version": VERSION, "phones": items}, indent=1) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_whole(self.path, text.encode("utf-8"))

    # --- the code --------------------------------------------------------------------------

    def new_code(self) -> str:
        """A fresh code for the OLED; any earlier one stops counting."""
        with self._lock:
            digits = f"{self.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
            self.code = Code(digits, self.clock() + CODE_SECONDS)
            log.info("phone pairing code shown")
            return digits

    def end_code(self) -> None:
        """The menu showing the code was left: the code is good no longer."""
        with self._lock:
            self.code = None

    def code_status(self) -> tuple[str, float]:
        """("showing", seconds left), ("void"|"expired"|"none", 0)."""
        with self._lock:
            return self._code_status()

    def _code_status(self) -> tuple[str, float]:
        code = self.code
        if code is None:
            return "none", 0.0
        if code.void:
            return "void", 0.0
        left = code.until - self.clock()
        if left <= 0:
            return "expired", 0.0
        return "showing", left

    def code_deadline(self) -> float | None:
        """When the code on show runs out, for a deadline on the loop (None: nothing shown)."""
        with self._lock:
            code = self.code
            return None if code is None or code.void else code.until

    def attempt(self, text: Any) -> Attempt:
        """A phone sends a code. A wrong one counts against the code on show (if any); wrong
        and none shown are answered alike."""
        changed = ""
        with self._lock:
            digits = parse_code(text)
            if digits is None:
                return Attempt("malformed", 400, "a code is 6 digits")
            status, _ = self._code_status()
            code = self.code
            if status != "showing" or code is None:
                return Attempt("no_code", NOT_PAIRED.status, NOT_PAIRED.message)
            if not secrets.compare_digest(digits, code.digits):
                code.wrong += 1
                changed = "wrong"
                if code.wrong >= WRONG_PER_CODE:
                    code.void = True
                    changed = "void"
                    log.warning("phone pairing code void after %d wrong codes", code.wrong)
                else:
                    log.info("wrong phone pairing code (%d for this code)", code.wrong)
                result = NOT_PAIRED
            else:
                token = self.token_hex(TOKEN_BYTES)
                self.code = None  # good once
                self._drop_ended()
                self.phones[token_hash(token)] = self.clock() + TOKEN_SECONDS
                while len(self.phones) > MAX_PHONES:
                    self.phones.pop(min(self.phones, key=self.phones.__getitem__))
                self._save()
                changed = "paired"
                log.info("a phone was paired (%d paired)", len(self.phones))
                result = Attempt("paired", 200, "paired", token)
        if changed:
            self.on_change(changed)
        return result

    def wrong_guesses(self) -> int:
        """How many wrong codes arrived for the code on show (or the one just void)."""
        with self._lock:
            return self.code.wrong if self.code is not None else 0

    # --- tokens ----------------------------------------------------------------------------

    def allows(self, cookie: Any) -> bool:
        """Whether a cookie belongs to a paired phone whose time has not run out."""
        token = parse_token(cookie)
        if token is None:
            return False
        with self._lock:
            until = self.phones.get(token_hash(token))
            return until is not None and until > self.clock()

    def count(self) -> int:
        with self._lock:
            self._drop_ended()
            return len(self.phones)

    def forget_all(self) -> int:
        """Every paired phone ends now. Returns how many there were."""
        with self._lock:
            n = len(self.phones)
            self.phones = {}
            self.code = None
            self._save()
        log.info("forgot %d paired phones", n)
        self.on_change("forgotten")
        return n

    def _drop_ended(self) -> None:
        now = self.clock()
        for h in [h for h, until in self.phones.items() if until <= now]:
            del self.phones[h]


def _parse(data: Any, where: str) -> dict[str, float]:
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise DataError(f"{where}: not a version {VERSION} phones file")
    items = data.get("phones")
    if not isinstance(items, list):
        raise DataError(f"{where}: 'phones' must be a list")
    phones = {}
    for i, item in enumerate(items, start=1):
        digest = item.get("sha256") if isinstance(item, dict) else None
        until = item.get("until") if isinstance(item, dict) else None
        if not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
            raise DataError(f"{where}: phone {i} has no sha256")
        if not isinstance(until, int | float) or isinstance(until, bool):
            raise DataError(f"{where}: phone {i} has no end time")
        phones[digest] = float(until)
    return phones
