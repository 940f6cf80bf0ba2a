"""Issue 48, point 4's welcome part: the players' names of a BG Stats export kept to pick from,
from a shell (`trap-companion records import-names FILE`) and from either web face (the page
reads the file; the box takes the names), with bad files and bad names said."""

from __future__ import annotations

import json
from pathlib import Path

from browser_support import both_faces
from test_players_faces import _faces, _send
from test_plays_export import _cli

from companion.plays_import import bgstats_names
from companion.replay import run_script

BGSTATS = {  # as BG Stats' own backup export has them (other fields left out)
    "players": [
        {"id": 1, "uuid": "a", "name": "Ann", "isAnonymous": False},
        {"id": 2, "uuid": "b", "name": "Anonymous", "isAnonymous": True},
        {"id": 3, "uuid": "c", "name": "  Bob   Lee ", "isAnonymous": False},
        {"id": 4, "uuid": "d", "name": "x" * 30, "isAnonymous": False},
        {"id": 5, "uuid": "e", "name": "Zoë", "isAnonymous": False},
        {"id": 6, "uuid": "f", "name": "Ann", "isAnonymous": False},
    ],
    "games": [],
    "plays": [],
    "locations": [],
}


def test_the_names_of_a_bgstats_export_once_each_anonymous_and_bad_ones_left_out() -> None:
    found = bgstats_names(BGSTATS)
    assert found.names == ["Ann", "Bob Lee", "Zoë"]
    assert len(found.refused) == 1 and "longer than 24" in found.refused[0]
    for bad in ({"plays": []}, [1, 2], {"players": "Ann"}):
        try:
            bgstats_names(bad, "f.json")
        except ValueError as err:
            assert "f.json: not a BG Stats export" in str(err)
        else:
            raise AssertionError(bad)


def test_import_names_from_a_shell_and_the_box_s_own_export(tmp_path: Path) -> None:
    file = tmp_path / "BGStatsExport.json"
    file.write_text(json.dumps(BGSTATS))
    state = tmp_path / "state"
    where = ("--state-dir", str(state))
    proc = _cli("import-names", str(file), *where)
    assert proc.returncode == 0, proc.stderr
    assert "3 name(s) added to pick from, 0 known already, 1 left out" in proc.stdout
    assert "longer than 24 characters" in proc.stderr
    assert set(_cli("players", *where).stdout.split()) == {"Ann", "Bob", "Lee", "Zoë"}
    again = _cli("import-names", str(file), *where)
    assert "0 name(s) added to pick from, 3 known already" in again.stdout

    # the box's own BG Stats file, read by another box
    other = tmp_path / "other"
    run_script("game hostage-trap players=3\nnames Cy Dee guest\ndo claim player=1 "
               "hostages=red,green,blue\n", state_dir=other)  # fmt: skip
    exported = tmp_path / "mine.json"
    assert _cli("export", "--format", "bgstats", "-o", str(exported), "--state-dir", str(other))
    proc = _cli("import-names", str(exported), *where)
    assert proc.returncode == 0 and "2 name(s) added" in proc.stdout

    (tmp_path / "not.json").write_text('{"plays": []}')
    bad = _cli("import-names", str(tmp_path / "not.json"), *where)
    assert bad.returncode == 65 and "not a BG Stats export" in bad.stderr
    (tmp_path / "broken.json").write_text("{")
    bad = _cli("import-names", str(tmp_path / "broken.json"), *where)
    assert bad.returncode == 65 and "not JSON" in bad.stderr
    missing = _cli("import-names", str(tmp_path / "none.json"), *where)
    assert missing.returncode == 65 and "cannot be read" in missing.stderr


def test_names_to_pick_from_sent_by_a_face(tmp_path: Path) -> None:
    with both_faces(tmp_path / "state") as (box, page_url):
        for which, face in _faces(box, page_url).items():
            names = "Ann\nBob Lee\n\n" + "x" * 30 + "\n" + which
            status, _, data = _send(face, "/api/players/import", {"names": names})
            assert status == 200, data
            assert data["added"] == (["Ann", "Bob Lee", "phone"] if which == "phone" else ["page"])
            assert len(data["refused"]) == 1 and "longer than 24" in data["refused"][0]
            known = _send(face, "/api/seats")[2]["known"]
            assert {"Ann", "Bob Lee", which} <= set(known) and known[-1] == "guest"
