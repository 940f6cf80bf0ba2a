"""What every web request must pass before a handler sees it (the simulator's page and the
phones alike): an aiohttp middleware.

- Source: only loopback, link-local, RFC 1918 and fc00::/7 addresses are answered (403
  otherwise), the list docs/raspberry-pi.md gives and the unit's ``IPAddressAllow=`` holds: the
  guard keeps to it also when the box runs outside its unit. Python's ``is_private`` is not
  used: it also counts Teredo, documentation, benchmarking and reserved ranges.
- Host: a name must be localhost or one of the box's own names; an address must be the very
  address the client connected to (the box's own). Anything else is a page of another site whose
  name was pointed at the box (DNS rebinding) and gets 421.
- Origin: every POST (anything that changes state) needs an Origin header naming this very host
  (403 without or with another).
- Size and time: a body over ``max_body`` bytes gets 413 before it is read; a handler (but an
  event stream) that takes longer than ``seconds`` gets 503. Header sizes are aiohttp's limits.
- Every answer carries a Content-Security-Policy (our own files only, no inline script, no
  frames), no-sniff and no-referrer; an HTTP error a handler raises (or aiohttp's 404 and 405)
  is answered here, so it carries them too.

Refusals are plain text naming what was refused, and change nothing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from aiohttp import web

from companion.web.ratelog import RateLog

log = logging.getLogger(__name__)

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
MAX_BODY = 4096  # bytes: the largest POST body any route takes (a pairing code, a name)
MAX_NESTING = 8  # brackets inside brackets in a JSON body (the routes take flat objects)
SECONDS = 5.0  # the longest a request may take (but an event stream)
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain"})
LOCAL_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "127.0.0.0/8",  # loopback
        "::1/128",
        "169.254.0.0/16",  # link-local
        "fe80::/10",
        "10.0.0.0/8",  # RFC 1918
        "172.16.0.0/12",
        "192.168.0.0/16",
        "fc00::/7",  # unique local
    )
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def local_source(text: str | None) -> bool:
    """A client address the box answers: loopback, link-local, RFC 1918 or fc00::/7."""
    address = _address(text or "")
    if address is None:
        return False
    return any(address in network for network in LOCAL_NETWORKS)


def own_names() -> tuple[str, ...]:
    """The box's host name and NAME.local (mDNS), besides localhost and its addresses."""
    name = socket.gethostname().lower()
    return (name, f"{name}.local") if name else ()


def host_name(host: str) -> str:
    """The name or address of a Host header, without port or IPv6 brackets, lower case; ""
    for a header that is not a host and a port (``[::1]evil.com``, ``box:http``), which
    matches nothing."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end < 0 or not _port_ok(host[end + 1 :]):
            return ""
        return host[1:end]
    if host.count(":") == 1:
        host, port = host.split(":", 1)
        if not _port_ok(":" + port):
            return ""
    return host.rstrip(".")


def _port_ok(tail: str) -> bool:
    """What may follow a host in a Host header: nothing, or ``:`` and a port's digits."""
    return tail == "" or (tail[:1] == ":" and tail[1:].isascii() and tail[1:].isdigit())


@dataclass
class Guard:
    names: frozenset[str] = LOCAL_NAMES  # the box's own names (besides its addresses)
    max_body: int = MAX_BODY
    seconds: float = SECONDS
    streams: frozenset[str] = field(default_factory=lambda: frozenset({"/api/events"}))
    notes: RateLog = field(default_factory=lambda: RateLog(log))  # a line per kind and minute

    @classmethod
    def for_names(cls, names: Iterable[str] = (), **kw: object) -> Guard:
        extra = {n.lower().rstrip(".") for n in names if n}
        return cls(names=LOCAL_NAMES | frozenset(extra), **kw)  # type: ignore[arg-type]

    def host_ok(self, request: web.Request) -> bool:
        host = request.headers.get("Host")
        if not host:
            return False
        name = host_name(host)
        if name in self.names:
            return True
        address = _address(name)
        if address is None:
            return False
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        own = _address(str(sockname[0])) if sockname else None
        return address == own or (address.is_loopback and own is not None and own.is_loopback)

    def origin_ok(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin")
        host = request.headers.get("Host", "")
        return origin is not None and origin.lower() == f"http://{host.lower()}"

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        refusal = self.refusal(request)
        if refusal is not None:
            status, text = refusal
            self.notes.note(
                f"refused-{status}",
                f"web: refused {request.method} {request.path} from {request.remote}: {text}",
                logging.INFO,
            )
            response: web.StreamResponse = web.Response(status=status, text=text + "\n")
        else:
            try:
                if request.path in self.streams:
                    response = await handler(request)
                else:
                    async with asyncio.timeout(self.seconds):
                        response = await handler(request)
            except TimeoutError:
                response = web.Response(status=503, text="the request took too long\n")
            except web.HTTPException as err:  # answered, not raised: the headers below apply
                response = web.Response(status=err.status, body=err.body, headers=err.headers)
            except Exception as err:  # a fault of ours: one line, a short answer, headers
                self.notes.note(
                    f"fault-{type(err).__name__}",
                    f"web: {request.method} {request.path} from {request.remote} failed: "
                    f"{type(err).__name__}: {str(err)[:200]}",
                    logging.ERROR,
                )
                log.debug("the failed request's traceback", exc_info=True)
                response = web.Response(status=500, text="the box could not answer this\n")
        if not response.prepared:
            self.decorate(response)
        return response

    def refusal(self, request: web.Request) -> tuple[int, str] | None:
        if not local_source(request.remote):
            return 403, f"only the local network is answered, not {request.remote}"
        if not self.host_ok(request):
            return 421, f"Host {request.headers.get('Host', '')!r} is not this box"
        if request.method not in ("GET", "HEAD"):
            if not self.origin_ok(request):
                origin = request.headers.get("Origin")
                return 403, f"a POST needs this page's own Origin, not {origin!r}"
            length = request.content_length
            if length is not None and length > self.max_body:
                return 413, f"a body of {length} bytes is over the limit of {self.max_body}"
            if length is None and request.body_exists:
                return 411, "a body needs a Content-Length"
        return None

    @staticmethod
    def decorate(response: web.StreamResponse) -> None:
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Server"] = "trap-companion"
        response.headers.setdefault("Cache-Control", "no-store")
