"""The web faces' own files (companion/web/static/), served compressed and cacheable by version.

A page (HTML) names its scripts and styles with their version, a hash of their content
(``/phone.js?v=3f9a...``): asked for with that version, a file may be kept for a year
(``immutable``), since a new box sends new names. The pages themselves are revalidated on each
visit (``no-cache`` with an ETag: a 304 when unchanged), so a phone sees a new page at once, and
the back/forward cache may keep them (``no-store`` would forbid it). Everything else (the live
state, the event stream, the API) keeps the guard's ``no-store``. Files are read and gzipped
once, when the routes are made; a client that takes gzip gets it.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from importlib import resources

from aiohttp import web

YEAR = 365 * 24 * 3600
HTML = "text/html"


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    gzipped: bytes
    kind: str
    version: str


def _version(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:12]


def _made(body: bytes, kind: str) -> StaticFile:
    return StaticFile(body, gzip.compress(body, 9, mtime=0), kind, _version(body))


class StaticFiles:
    """``files``: the URL path of each file -> (its name in static/, its content type). Pages
    (text/html) get the other files' URLs rewritten with their versions."""

    def __init__(self, files: dict[str, tuple[str, str]]) -> None:
        folder = resources.files("companion.web").joinpath("static")
        raw = {
            path: (folder.joinpath(name).read_bytes(), kind) for path, (name, kind) in files.items()
        }
        self.files = {path: _made(body, kind) for path, (body, kind) in raw.items() if kind != HTML}
        for path, (body, kind) in raw.items():
            if kind == HTML:
                text = body.decode("utf-8")
                for other, made in self.files.items():
                    text = text.replace(f'"{other}"', f'"{other}?v={made.version}"')
                self.files[path] = _made(text.encode("utf-8"), kind)

    def version(self, path: str) -> str:
        return self.files[path].version

    def add(self, app: web.Application) -> None:
        for path in self.files:
            app.router.add_get(path, self.handler)

    async def handler(self, request: web.Request) -> web.Response:
        found = self.files[request.path]
        etag = f'"{found.version}"'
        if found.kind != HTML and request.query.get("v") == found.version:
            cache = f"public, max-age={YEAR}, immutable"
        else:
            cache = "no-cache"
        headers = {"Cache-Control": cache, "ETag": etag, "Vary": "Accept-Encoding"}
        if etag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        response = web.Response(headers=headers, content_type=found.kind, charset="utf-8")
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            response.body = found.gzipped
            response.headers["Content-Encoding"] = "gzip"
        else:
            response.body = found.body
        return response
