"""Issue 48 on a paired phone: the seats named by typing (or picking a known name), and the plays
downloaded as CSV and for BG Stats; with the phones' server in the box's process and apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from phones_support import live_box, pair, request

from companion.games.base import Action

APART = pytest.mark.parametrize("apart", [False, True], ids=["in-process", "server-apart"])


def _json(cookie_box, path, body=None):
    box, cookie = cookie_box
    method = "GET" if body is None else "POST"
    headers = {"Content-Type": "application/json"} if body is not None else None
    data = None if body is None else json.dumps(body)
    return request(box, method, path, data, headers=headers, cookie=cookie)


@APART
def test_a_phone_names_the_seats_and_downloads_the_plays(tmp_path: Path, apart: bool) -> None:
    with live_box(tmp_path, apart=apart) as box:
        cookie = pair(box)
        me = (box, cookie)
        status, _, data = _json(me, "/api/seats")
        assert status == 200 and data == {"game": None, "seats": [], "known": ["guest"]}
        box.on_loop(lambda: box.app.new_game("hostage-trap", {"players": "3"}))
        status, _, data = _json(me, "/api/seats", {"1": "Ann Lee", "3": "Cy"})
        assert status == 200, data
        assert [s["player"] for s in data["seats"]] == ["Ann Lee", None, "Cy"]
        assert data["known"][-1] == "guest" and set(data["known"]) == {"Ann Lee", "Cy", "guest"}
        assert box.on_loop(lambda: box.app.current()[0].text_lines()) is not None
        status, _, data = _json(me, "/api/seats", {"1": ""})  # emptied: unnamed again
        assert [s["player"] for s in data["seats"]] == [None, None, "Cy"]
        status, _, data = _json(me, "/api/seats", {"9": "Zed"})
        assert status == 400 and "no seat '9'" in data["error"]
        status, _, data = _json(me, "/api/seats", {"2": "x" * 30})
        assert status == 400 and "longer than 24" in data["error"]

        claim = Action("claim", {"player": "3", "hostages": "red,green,blue"})
        box.on_loop(lambda: box.app.submit(claim))
        box.on_loop(box.app.refresh)
        _, _, view = request(box, "GET", "/api/state", cookie=cookie)
        assert "Cy" in json.dumps(view["state"])  # the phone's own view names the winner too
        status, headers, text = request(box, "GET", "/api/export/csv", cookie=cookie)
        assert status == 200 and "attachment" in headers["Content-Disposition"]
        body = text.decode() if isinstance(text, bytes) else json.dumps(text)
        assert ",Cy,,1,yes," in body
        status, headers, data = request(box, "GET", "/api/export/bgstats", cookie=cookie)
        assert status == 200 and headers["Content-Type"].startswith("application/json")
        assert len(data["plays"]) == 1 and data["locations"][0]["name"] == "Trap Companion"
        status, _, _ = request(box, "GET", "/api/export/xml", cookie=cookie)
        assert status == 404


@APART
def test_an_export_larger_than_a_link_line_comes_whole(tmp_path: Path, apart: bool) -> None:
    """Plays of a weekly table for years: far over the link's 256 KiB line, in parts."""
    play = {
        "game": "deathtrap-dungeon", "options": {"players": 8}, "date": "2026-11-29",
        "seconds": 1800.0, "winners": [1], "detail": {},
        "seats": [{"seat": s, "player": f"Player {s}", "score": 20 - s, "place": s}
                  for s in range(1, 9)],
    }  # fmt: skip
    plays = [{**play, "key": f"deathtrap-dungeon#{i:06d}"} for i in range(1500)]
    (tmp_path / "plays.json").write_text(json.dumps({"version": 1, "plays": plays}))
    with live_box(tmp_path, apart=apart) as box:
        cookie = pair(box)
        status, _, data = request(box, "GET", "/api/export/bgstats", cookie=cookie)
        assert status == 200 and len(data["plays"]) == 1500


def test_unpaired_phones_get_nothing(tmp_path: Path) -> None:
    with live_box(tmp_path) as box:
        for path in ("/api/seats", "/api/export/csv"):
            status, _, _ = request(box, "GET", path)
            assert status == 401
