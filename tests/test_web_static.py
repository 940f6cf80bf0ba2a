"""The web faces' own files as a browser fetches them: compressed when it takes gzip, kept for a
year when asked for by their version, the pages revalidated (304 when unchanged), and the live
state never cached. The phones' server and the simulator's page serve them one way."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from tests.phones_support import live_box, pair, request

GZIP = {"Accept-Encoding": "gzip, deflate"}


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory):
    with live_box(tmp_path_factory.mktemp("static")) as live:
        yield live


def _versions(page: bytes) -> dict[str, str]:
    return dict(re.findall(r'"(/[\w/.]+\.(?:js|css))\?v=([0-9a-f]+)"', page.decode("utf-8")))


def test_the_page_names_its_files_by_version_and_is_revalidated(box) -> None:
    status, headers, body = request(box, "GET", "/", headers=GZIP)
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    page = gzip.decompress(body)
    assert b"Pair this phone" in page
    assert headers["Cache-Control"] == "no-cache" and "Accept-Encoding" in headers["Vary"]
    # the players' records and their plots are named too, loaded only when opened (issue 48)
    assert set(_versions(page)) == {
        "/phone.css", "/phone.js", "/records.js", "/uplot.min.js", "/uplot.min.css",
        "/players_face.js", "/players_face.css",
    }  # fmt: skip
    again = request(box, "GET", "/", headers={**GZIP, "If-None-Match": headers["ETag"]})
    assert again[0] == 304 and again[2] == b""


def test_a_versioned_file_is_kept_a_year_compressed(box) -> None:
    page = gzip.decompress(request(box, "GET", "/", headers=GZIP)[2])
    for path, version in _versions(page).items():
        status, headers, body = request(box, "GET", f"{path}?v={version}", headers=GZIP)
        assert status == 200 and headers["Content-Encoding"] == "gzip"
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
        plain = request(box, "GET", path)  # no gzip asked: none sent; no version: revalidated
        assert "Content-Encoding" not in plain[1] and plain[1]["Cache-Control"] == "no-cache"
        assert gzip.decompress(body) == plain[2] and len(body) < len(plain[2]) / 2
        assert "script-src 'self'" in headers["Content-Security-Policy"]  # the guard's too


def test_the_live_state_is_never_cached(box) -> None:
    token = pair(box)
    for path in ("/api/state", "/api/cards"):
        status, headers, _ = request(box, "GET", path, cookie=token, headers=GZIP)
        assert status == 200 and headers["Cache-Control"] == "no-store", path


def test_the_simulator_s_page_serves_its_files_the_same_way(tmp_path: Path) -> None:
    import urllib.request

    from browser_support import sim_web

    with sim_web(tmp_path) as (url, _proc):
        ask = urllib.request.Request(url, headers=GZIP)
        with urllib.request.urlopen(ask, timeout=5) as r:
            assert r.headers["Content-Encoding"] == "gzip"
            assert r.headers["Cache-Control"] == "no-cache"
            versions = _versions(gzip.decompress(r.read()))
        # the players and their records as a paired phone has them, the same files (issue 48)
        assert set(versions) == {
            "/static/app.js", "/static/style.css", "/static/players_face.js",
            "/static/players_face.css", "/static/records.js", "/static/uplot.min.js",
            "/static/uplot.min.css",
        }  # fmt: skip
        for path, version in versions.items():
            ask = urllib.request.Request(f"{url.rstrip('/')}{path}?v={version}", headers=GZIP)
            with urllib.request.urlopen(ask, timeout=5) as r:
                assert "immutable" in r.headers["Cache-Control"]
                assert r.headers["Content-Encoding"] == "gzip"
        with urllib.request.urlopen(url + "api/cards", timeout=5) as r:
            assert r.headers["Cache-Control"] == "no-store"
