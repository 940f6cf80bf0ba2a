"""Issue 48 on both web faces: the simulator's page offers what a paired phone offers (the seats
named by typing, the records, the downloads), from the same routes; and a player renamed,
merged or forgotten from either face, asked on the box's loop, a merge or a forget asked about
first (nothing changes until confirmed), both files written whole."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from browser_support import both_faces

from companion.replay import run_script
from tests.phones_support import pair, request

CLAIM = "do claim player={} hostages=red,green,blue\n"


def _plays(state: Path) -> None:
    """Four plays of Hostage Trap!: Ann, Bob, Cy, Dee and Anne (Ann spelt another way)."""
    for winner, names in ((2, "Ann Bob Cy"), (1, "Bob Anne Cy"), (3, "Dee Bob Ann")):
        script = f"game hostage-trap players=3\nnames {names}\n" + CLAIM.format(winner)
        run_script(script, state_dir=state)


def _send(face, path, body=None):
    """A face's request: ``face`` is (server with a port, cookie or None)."""
    server, cookie = face
    if body is None:
        return request(server, "GET", path, cookie=cookie)
    headers = {"Content-Type": "application/json"}
    return request(server, "POST", path, json.dumps(body), headers=headers, cookie=cookie)


def _faces(box, page_url):
    page = SimpleNamespace(port=urlsplit(page_url).port)
    return {"phone": (box, pair(box)), "page": (page, None)}


def _names_in_plays(state: Path) -> list[list[str | None]]:
    kept = json.loads((state / "plays.json").read_text())["plays"]
    return [[s["player"] for s in p["seats"]] for p in kept]


def test_the_page_names_seats_shows_records_and_downloads_as_a_phone_does(tmp_path: Path):
    state = tmp_path / "state"
    _plays(state)
    with both_faces(state) as (box, page_url):
        faces = _faces(box, page_url)
        page = faces["page"]
        status, _, data = _send(page, "/api/seats")
        assert status == 200 and data["known"][-1] == "guest" and "Ann" in data["known"]
        box.on_loop(lambda: box.app.new_game("hostage-trap", {"players": "3"}))
        status, _, data = _send(page, "/api/seats", {"1": "Dee", "2": "Eve"})
        assert status == 200, data
        assert [s["player"] for s in data["seats"]] == ["Dee", "Eve", None]
        assert box.on_loop(lambda: box.app.seat_names()) == ["Dee", "Eve", None]
        assert _send(faces["phone"], "/api/seats")[2] == data  # one box, two faces
        status, _, bad = _send(page, "/api/seats", {"7": "Zed"})
        assert status == 400 and "no seat '7'" in bad["error"]

        status, _, data = _send(page, "/api/records?game=hostage-trap&a=Bob&b=Cy")
        assert status == 200
        assert {p["player"] for p in data["players"]} >= {"Ann", "Bob", "Cy", "Dee"}
        assert data["head_to_head"]["plays"] == 2
        assert data == _send(faces["phone"], "/api/records?game=hostage-trap&a=Bob&b=Cy")[2]

        status, headers, text = _send(page, "/api/export/csv")
        assert status == 200 and "attachment" in headers["Content-Disposition"]
        assert text.decode().count(",hostage-trap,") == 9  # a row per seat of three plays
        status, _, data = _send(page, "/api/export/bgstats")
        assert status == 200 and len(data["plays"]) == 3

        # a change from the page needs the page's own Origin, as every change there does
        refused = request(page[0], "POST", "/api/seats", "{}", origin=False)
        assert refused[0] == 403


@pytest.mark.parametrize("which", ["phone", "page"])
def test_a_player_renamed_merged_and_forgotten_from_a_face(tmp_path: Path, which: str):
    state = tmp_path / "state"
    _plays(state)
    with both_faces(state) as (box, page_url):
        face = _faces(box, page_url)[which]
        status, _, data = _send(face, "/api/players/rename", {"old": "Bob", "new": "Robert"})
        assert status == 200 and data["done"] == "Bob is Robert now; 3 play(s) changed"
        assert "Robert" in data["players"] and "Bob" not in data["players"]
        assert all("Bob" not in names for names in _names_in_plays(state))

        # a merge is asked about first: nothing changes until it is confirmed
        asked = _send(face, "/api/players/merge", {"old": "Anne", "new": "Ann"})
        assert asked[0] == 200 and asked[2] == {
            "ask": "Merge Anne into Ann? Anne's 1 play(s) become theirs."
        }
        assert ["Robert", "Anne", "Cy"] in _names_in_plays(state)
        assert "Anne" in [
            p["name"] for p in json.loads((state / "players.json").read_text())["players"]
        ]
        sure = {"old": "Anne", "new": "Ann", "confirm": "1"}
        status, _, data = _send(face, "/api/players/merge", sure)
        assert status == 200 and "Anne" not in data["players"]
        assert ["Robert", "Ann", "Cy"] in _names_in_plays(state)

        asked = _send(face, "/api/players/forget", {"old": "Cy"})
        assert asked[2] == {"ask": "Forget Cy? Their 2 play(s) keep the seat, unnamed."}
        assert any("Cy" in names for names in _names_in_plays(state))
        status, _, data = _send(face, "/api/players/forget", {"old": "Cy", "confirm": "1"})
        assert status == 200 and "Cy" not in data["players"]
        assert all("Cy" not in names for names in _names_in_plays(state))
        kept = json.loads((state / "players.json").read_text())
        assert sorted(p["name"] for p in kept["players"]) == ["Ann", "Dee", "Robert"]
        # the box's own list to pick from follows at once
        assert box.on_loop(lambda: box.app.players.choices())[-1] == "guest"
        assert "Cy" not in box.on_loop(lambda: box.app.players.choices())

        for path, body, said in (
            ("rename", {"old": "Zed", "new": "Z"}, "no player is called 'Zed'"),
            ("rename", {"old": "Ann", "new": "Dee"}, "'Dee' is a player already (merge instead)"),
            ("merge", {"old": "Ann", "new": "Zoe"}, "no player is called 'Zoe' to merge into"),
            ("rename", {"old": "Ann", "new": "guest"}, "'guest' names a seat without a person"),
            ("rename", {"old": "Ann", "new": "x" * 30}, "longer than 24 characters"),
        ):
            status, _, data = _send(face, f"/api/players/{path}", body)
            assert status == 400 and said in data["error"], (path, body, data)
        assert _send(face, "/api/players/delete", {"old": "Ann"})[0] == 404
        assert sorted(box.on_loop(lambda: box.app.players.names())) == ["Ann", "Dee", "Robert"]


def test_a_card_that_refuses_the_change_changes_nothing(tmp_path: Path, monkeypatch):
    state = tmp_path / "state"
    _plays(state)
    with both_faces(state) as (box, page_url):
        page = _faces(box, page_url)["page"]
        before = (state / "plays.json").read_text(), (state / "players.json").read_text()

        def refused(self) -> None:
            raise OSError(28, "No space left on device")

        from companion.core.players import Players

        monkeypatch.setattr(Players, "save", refused)  # the plays are written, the names not
        status, _, data = _send(page, "/api/players/rename", {"old": "Bob", "new": "Robert"})
        assert status == 409 and "not saved" in data["error"]
        after = (state / "plays.json").read_text(), (state / "players.json").read_text()
        assert json.loads(after[0]) == json.loads(before[0])  # the plays put back
        assert json.loads(after[1]) == json.loads(before[1])
        assert "Bob" in box.on_loop(lambda: box.app.players.names())
        assert "Names not saved" in " ".join(box.on_loop(lambda: box.app.current()[0].text_lines()))


def test_a_press_never_waits_for_the_records_being_made(tmp_path: Path, monkeypatch):
    """The records of many plays are made off the box's loop, as an export is: while they are
    made, the box goes on answering presses."""
    import threading

    from companion.core import play_stats

    state = tmp_path / "state"
    _plays(state)
    release = threading.Event()
    making = threading.Event()
    real = play_stats.records

    def slow(plays, game=None):  # the records of years of plays on a slow box
        making.set()
        release.wait(8.0)
        return real(plays, game)

    monkeypatch.setattr(play_stats, "records", slow)
    with both_faces(state) as (box, page_url):
        page = _faces(box, page_url)["page"]
        answers: list = []
        asking = threading.Thread(target=lambda: answers.append(_send(page, "/api/records")))
        asking.start()
        assert making.wait(5.0)
        try:
            box.on_loop(lambda: box.app.on_press("down", False), timeout=2.0)  # not held up
            assert not answers  # the records are still being made meanwhile
        finally:
            release.set()
            asking.join(10.0)
        status, _, data = answers[0]
        assert status == 200 and {p["player"] for p in data["players"]} >= {"Ann", "Bob"}


def test_a_name_only_the_plays_keep_can_be_changed_too(tmp_path: Path):
    """players.json lost (set aside when damaged): the plays still name their players, and a
    face lists them to choose and changes them as any other."""
    state = tmp_path / "state"
    _plays(state)
    run_script("game dice\n", state_dir=state)  # the last named game ended, to history
    (state / "players.json").unlink()
    with both_faces(state) as (box, page_url):
        page = _faces(box, page_url)["page"]
        data = _send(page, "/api/records")[2]
        assert {"Ann", "Anne", "Bob", "Cy", "Dee"} <= set(data["choices"]["players"])
        asked = _send(page, "/api/players/merge", {"old": "Anne", "new": "Ann"})[2]
        assert asked == {"ask": "Merge Anne into Ann? Anne's 1 play(s) become theirs."}
        sure = {"old": "Anne", "new": "Ann", "confirm": "1"}
        assert _send(page, "/api/players/merge", sure)[0] == 200
        assert all("Anne" not in names for names in _names_in_plays(state))
        status, _, data = _send(page, "/api/players/rename", {"old": "Cy", "new": "Cyril"})
        assert status == 200 and "Cyril" in data["players"]  # kept to pick from from now on
        assert "Cy" not in _send(page, "/api/records")[2]["choices"]["players"]


def test_a_phone_changes_a_player_with_the_phones_server_apart(tmp_path: Path):
    """The phones' server in a process of its own: the change and its question go over the
    link to the box's loop as any other ask."""
    from tests.phones_support import live_box

    state = tmp_path / "state"
    _plays(state)
    with live_box(state, apart=True) as box:
        phone = (box, pair(box))
        asked = _send(phone, "/api/players/forget", {"old": "Dee"})
        assert asked[:1] == (200,) and asked[2]["ask"].startswith("Forget Dee?")
        status, _, data = _send(phone, "/api/players/forget", {"old": "Dee", "confirm": "1"})
        assert status == 200 and data["done"] == "forgot Dee; 1 play(s) keep the seat unnamed"
        bad = _send(phone, "/api/players/rename", {"old": "Dee", "new": "D"})
        assert bad[0] == 400 and "no player is called 'Dee'" in bad[2]["error"]
        names = _send(phone, "/api/players/import", {"names": "Flo\nGus"})[2]["added"]
        assert names == ["Flo", "Gus"]
        assert _send(phone, "/api/records")[0] == 200
