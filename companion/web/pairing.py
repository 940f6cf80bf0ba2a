"""Which phones may see the box: a 6-digit code shown on the OLED, traded once for a token.

Pure bookkeeping, safe to call from the web server's thread and the loop's (one lock): the
clocks and the randomness are passed in, so tests drive time and codes. What an attacker on
the LAN can try is bounded per code shown on the box, for everyone together, not per address (a
per-address ban would lock the owners out of their own phones):

- a code comes from ``secrets``, is good for ``CODE_SECONDS`` and for one phone;
- each code has its own budget: after ``WRONG_PER_CODE`` wrong guesses it is void (one in
  100,000 a code at best for a guesser), and the next code shown starts afresh, so guesses sent
  before it cannot use it up; the OLED shows how many wrong guesses arrived;
- and one address (an IPv6 /64) has ``WRONG_PER_SOURCE`` of them per code: its guesses beyond
  are not even checked, so one guesser, however fast, cannot void a code before the owner
  types it (it takes four addresses; the OLED counts them all);
- a wrong code and no code (none shown, run out, void) get the very same answer, so nobody
  learns from it when a code is on the box;
- a paired phone holds a 256-bit token (hex in a cookie); the state dir keeps only its SHA-256
  and how long it has left, in ``phones.json``, written whole like every other state file.

A token's life is time the box ran, not the wall clock's: a Pi has no clock of its own (before
NTP it says 1970, or fake-hwclock's last shutdown), so the file keeps the seconds each token has
left, written again every ``SAVE_SECONDS`` and at a stop; a power cut gives a token at most
those seconds back. A pairing or a forgetting the state dir cannot take is refused whole (the
phone and the OLED say why), never kept in memory only.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.core import formats, statefile, storage
from companion.core.durable import replace_whole
from companion.errors import DataError

log = logging.getLogger(__name__)

PHONES_FILE = statefile.PHONES.name
VERSION = 2  # 1 kept each end as wall-clock time (still read)
CODE_DIGITS = 6
CODE_SECONDS = 300.0
WRONG_PER_CODE = 10
WRONG_PER_SOURCE = 3  # per code, from one address: four addresses at least to void a code
SAVE_SECONDS = 600.0  # the tokens' time left is written again this often (and at a stop)
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


def unsaved_message(condition: str) -> str:
    return f"the box cannot save pairings now: its storage is {storage.WORDS[condition]}"


def source_key(address: Any) -> str:
    """Whose guess this is: an IPv4 address, or an IPv6 address's /64 (one machine may take
    any address of its network's /64; an IPv4 mapped into IPv6 is that IPv4)."""
    try:
        ip = ipaddress.ip_address(str(address).split("%", 1)[0])
    except ValueError:
        return str(address)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class NotSaved(OSError):
    """phones.json could not be written: nothing changed (``condition``: full, read-only...)."""

    def __init__(self, err: OSError) -> None:
        super().__init__(err.errno, err.strerror)
        self.condition = storage.condition_of(err)


@dataclass
class Code:
    digits: str
    until: float  # on the monotonic clock
    wrong: int = 0  # wrong guesses checked against it
    void: bool = False
    by_source: dict[str, int] = field(default_factory=dict)  # wrong guesses per address
    unchecked: int = 0  # guesses from addresses past their share: not checked, but counted


class Pairing:
    """The code on show (if any), the wrong tries and the paired phones' token hashes."""

    # Which phones are paired is known here from the start (the phones' own process learns it
    # from the box: phones_process.RemotePairing).
    known = True

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
        self.unsaved = ""  # the storage condition that kept the last time-keeping write out
        self.problem = ""
        self.newer: formats.NewerFormat | None = None  # a newer release's file: left alone
        self._lock = threading.Lock()
        self._load()

    # --- the file ------------------------------------------------------------------------

    def _load(self) -> None:
        """Read as every state file is (statefile): a FIFO, a device, a link, a file too big,
        nesting too deep or a number too long is set aside, and no phone is paired. A newer
        release's file is left as it is: no phone is paired, and none paired over it."""
        try:
            text = statefile.read_text(self.path, statefile.PHONES.cap)
            if text is not None:
                version, times = _parse(statefile.parse_json(self.path, text), str(self.path))
                self.phones = self._from_wall(times) if version == 1 else self._from_left(times)
        except formats.NewerFormat as err:
            log.error("phones %s; no phone paired meanwhile", err)
            self.newer, self.problem, self.phones = err, str(err), {}
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

    def _from_left(self, left: dict[str, float]) -> dict[str, float]:
        """The seconds each token had left when last written, from now: what the wall clock
        says does not matter (version 2)."""
        now = self.clock()
        return {h: now + min(TOKEN_SECONDS, max(0.0, s)) for h, s in left.items()}

    def _save(self, phones: dict[str, float] | None = None) -> None:
        """Write ``phones`` (the paired phones by default) whole, as the seconds each has left;
        NotSaved when the state dir refuses (nothing is half written)."""
        if self.newer is not None and statefile.exists(self.path):
            refused = formats.Refused(self.newer)
            raise NotSaved(refused) from refused
        now = self.clock()
        phones = self.phones if phones is None else phones
        items = [
            {"sha256": h, "left": round(max(0.0, until - now), 3)} for h, until in phones.items()
        ]
        text = json.dumps({"version": VERSION, "phones": items}, indent=1) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            replace_whole(self.path, text.encode("utf-8"))
        except OSError as err:
            raise NotSaved(err) from err
        self.unsaved = ""

    def keep_time(self) -> None:
        """Write the tokens' time left again (every SAVE_SECONDS, and at a stop), so a restart
        takes up their lives where they were. The state dir refusing is said once a condition."""
        with self._lock:
            if not self.phones:
                return
            self._drop_ended()
            try:
                self._save()
            except NotSaved as err:
                if err.condition != self.unsaved:
                    log.warning("phones: time left not written (%s): %s", err.condition, err)
                self.unsaved = err.condition

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

    def attempt(self, text: Any, source: Any = "") -> Attempt:
        """A phone sends a code from ``source`` (its address). A wrong one counts against the
        code on show (if any) and against that address's share of it; wrong, none shown and
        an address past its share are answered alike."""
        changed = ""
        with self._lock:
            digits = parse_code(text)
            if digits is None:
                return Attempt("malformed", 400, "a code is 6 digits")
            status, _ = self._code_status()
            code = self.code
            if status != "showing" or code is None:
                return Attempt("no_code", NOT_PAIRED.status, NOT_PAIRED.message)
            who = source_key(source)
            if code.by_source.get(who, 0) >= WRONG_PER_SOURCE:
                code.unchecked += 1  # not checked: this address has had its tries at this code
                changed = "wrong"
                log.info("phone pairing code not checked: %s had %d wrong", who, WRONG_PER_SOURCE)
                result = NOT_PAIRED
            elif not secrets.compare_digest(digits, code.digits):
                code.by_source[who] = code.by_source.get(who, 0) + 1
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
                phones = dict(self.phones)
                phones[token_hash(token)] = self.clock() + TOKEN_SECONDS
                while len(phones) > MAX_PHONES:
                    phones.pop(min(phones, key=phones.__getitem__))
                try:
                    self._save(phones)
                except NotSaved as err:  # not paired: no cookie that a restart would refuse
                    log.error("a phone was not paired: %s not written: %s", self.path, err)
                    changed = f"unsaved:{err.condition}"
                    result = Attempt("unsaved", 503, unsaved_message(err.condition))
                else:
                    self.phones = phones
                    changed = "paired"
                    log.info("a phone was paired (%d paired)", len(self.phones))
                    result = Attempt("paired", 200, "paired", token)
        if changed:
            self.on_change(changed)
        return result

    def wrong_guesses(self) -> int:
        """How many wrong codes arrived for the code on show (or the one just void), those
        not checked included."""
        with self._lock:
            code = self.code
            return code.wrong + code.unchecked if code is not None else 0

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
        """Every paired phone ends now. Returns how many there were. NotSaved if the state dir
        cannot take it: then nothing is forgotten (a restart would let them in again)."""
        with self._lock:
            n = len(self.phones)
            self._save({})
            self.phones = {}
            self.code = None
        log.info("forgot %d paired phones", n)
        self.on_change("forgotten")
        return n

    def _drop_ended(self) -> None:
        now = self.clock()
        for h in [h for h, until in self.phones.items() if until <= now]:
            del self.phones[h]


def _parse(data: Any, where: str) -> tuple[int, dict[str, float]]:
    """The version and each phone's time: its end on the wall clock (1) or seconds left (2)."""
    version = data.get("version") if isinstance(data, dict) else None
    formats.check(version, VERSION, where)
    if version not in (1, VERSION) or isinstance(version, bool):
        raise DataError(f"{where}: not a version {VERSION} phones file")
    key = "until" if version == 1 else "left"
    items = data.get("phones")
    if not isinstance(items, list):
        raise DataError(f"{where}: 'phones' must be a list")
    phones = {}
    for i, item in enumerate(items, start=1):
        digest = item.get("sha256") if isinstance(item, dict) else None
        seconds = item.get(key) if isinstance(item, dict) else None
        if not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
            raise DataError(f"{where}: phone {i} has no sha256")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds != seconds:
            what = "end time" if version == 1 else "time left"
            raise DataError(f"{where}: phone {i} has no {what}")
        phones[digest] = float(seconds)
    return version, phones
