"""What a phone may see, for every game: whose turn, the scoreboard, a picture, Records, and
nothing the table must not see. Driven by the same replay scripts the games are checked with."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from companion.core.records import Records
from companion.games import registry as games
from companion.replay import run_script
from companion.web.public import GAMES, phone_view, records_view

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = [*sorted((ROOT / "tests" / "scripts").glob("*.txt")), ROOT / "examples" / "dice.txt"]


def lines_of(script: Path) -> list[dict]:
    return run_script(script.read_text(encoding="utf-8"))


def views(script: Path) -> list[tuple[dict, dict]]:
    return [(out, phone_view(out["game"], out["state"])) for out in lines_of(script)]


def test_every_game_has_a_phone_view() -> None:
    assert set(GAMES) == set(games.available())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_every_line_of_every_script_gives_a_json_view(script: Path) -> None:
    seen_games = set()
    for out, view in views(script):
        json.dumps(view)  # what the server sends
        assert view["game"] == out["game"]
        if out["game"]:
            seen_games.add(out["game"])
            assert view["title"] == games.get(out["game"]).title
    assert seen_games


def _secrets_changed(game: str, state: dict) -> dict:
    """The same public state with everything the table must not see changed."""
    s = copy.deepcopy(state)
    if game == "trap-attack":
        if not (s["race_over"] and s["leaders"]):
            for score in s["scores"].values():
                score.update(relics=99, loot=98, total=97)
        for p in s["players"].values():
            p["loot"] = 96
        s["ai"]["relics"] = 95
        s["ai"]["loot"] = 94
    elif game == "hostage-trap":
        if s["winner"] is None:
            s["winning"] = ["secret-hostage"]
        if s["claim"] is not None:
            s["claim"]["colours"] = ["secret-hostage"]
    elif game == "deathtrap-dungeon":
        s["building"] = {"seat": 1, "set": "secret", "value": 99, "n": 9, "wild": 9}
        s["exchanges"] = [{"from": 1, "to": 2, "cards": 9, "highest": True}]
    s["future_field"] = "secret"  # a field a game adds later stays off until named
    return s


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_nothing_the_table_must_not_see_reaches_a_phone(script: Path) -> None:
    for out, view in views(script):
        if out["game"] is None:
            continue
        hidden = phone_view(out["game"], _secrets_changed(out["game"], out["state"]))
        assert hidden == view, f"line {out['line']}: a secret changed the phone's view"
        assert "secret" not in json.dumps(hidden)


def test_trap_attack_scores_appear_only_when_the_box_shows_them() -> None:
    outs = lines_of(ROOT / "tests" / "scripts" / "trap-attack-scoring-example.txt")
    before = [phone_view(o["game"], o["state"]) for o in outs[:-1]]
    assert all(v["standings"] is None for v in before)
    last = phone_view(outs[-1]["game"], outs[-1]["state"])
    rows = {row[0]: row for row in last["standings"]["rows"]}
    assert rows["Player 1"][2] == 11  # the rulebook's relic example: 2 + 6 + 3
    assert any("Scores" in line or "Player 1" in line for line in outs[-1]["screen"])


def test_trap_attack_shows_the_ai_on_its_track() -> None:
    outs = lines_of(ROOT / "tests" / "scripts" / "trap-attack-solo-to-boat.txt")
    pictures = [phone_view(o["game"], o["state"])["picture"] for o in outs if o["game"]]
    positions = [p["position"] for p in pictures if p]
    assert pictures[-1]["kind"] == "track" and pictures[-1]["start"] >= max(positions)
    assert len(set(positions)) > 1  # the AI moved along it
    assert any(p["crystal"] for p in pictures if p)
    # issue 42, point 13: the caption says where the AI is on its way, the crystal's own
    # space with the crystal included (it was "back to the boat with the crystal")
    for picture in pictures:
        if picture and picture["crystal"] and picture["position"] == 0 and not picture["boat"]:
            assert picture["caption"] == "on the crystal's space, holding it"
        elif picture and picture["crystal"] and not picture["boat"]:
            assert picture["caption"] == "back to the boat with the crystal"
    on_crystal = [p for p in pictures if p and p["crystal"] and p["position"] == 0]
    assert on_crystal and pictures[-1]["caption"] == "the AI reached the boat"


def test_deathtrap_dungeon_points_round_by_round() -> None:
    outs = lines_of(ROOT / "tests" / "scripts" / "deathtrap-dungeon-four-players.txt")
    final = phone_view(outs[-1]["game"], outs[-1]["state"])
    board = final["scoreboard"]
    assert board["columns"] == ["Seat", "R1", "R2", "R3", "R4", "Points", "Title"]
    assert board["rows"][0] == ["Seat 1", 2, 4, 2, 4, 12, "big hero"]
    assert final["picture"]["kind"] == "rounds" and len(final["picture"]["rounds"]) == 4
    assert final["winner"] == "Seat 1"
    mid = [phone_view(o["game"], o["state"]) for o in outs if o["state"] and o["state"]["turn"]]
    assert mid and all(v["turn"]["label"].startswith("Seat ") for v in mid)
    assert any(f.startswith("On the table") for v in mid for f in v["facts"])


def test_cover_your_asps_count_and_solo() -> None:
    outs = lines_of(ROOT / "tests" / "scripts" / "cover-your-asps-four-players.txt")
    final = phone_view(outs[-1]["game"], outs[-1]["state"])
    points = {row[0]: row[1] for row in final["scoreboard"]["rows"]}
    state_points = {f"Seat {n}": s["points"] for n, s in outs[-1]["state"]["seats"].items()}
    assert points == state_points and len(points) == 4
    solo = lines_of(ROOT / "tests" / "scripts" / "cover-your-asps-solo-won.txt")
    facts = phone_view(solo[-1]["game"], solo[-1]["state"])["facts"]
    assert any(f.startswith("Rolls:") for f in facts)


def test_trapwords_dungeon_picture_and_timer() -> None:
    outs = lines_of(ROOT / "tests" / "scripts" / "trapwords-curses.txt")
    pictures = [phone_view(o["game"], o["state"]) for o in outs if o["game"]]
    dungeon = pictures[-1]["picture"]
    assert dungeon["kind"] == "dungeon"
    assert dungeon["rooms"] and set(dungeon["teams"]) == {"A", "B"}
    assert any(v["timer"] is not None for v in pictures)
    assert any(v["turn"] and v["turn"]["label"].startswith("Team ") for v in pictures)


def test_hostage_trap_names_hostages_only_when_the_box_does() -> None:
    script = ROOT / "tests" / "scripts" / "hostage-trap-seven-players.txt"
    outs = run_script(script.read_text(encoding="utf-8") + "press down\n")  # "^v: which ones"
    oled_after_win = ""
    for out in outs:
        view = phone_view(out["game"], out["state"])
        shown = [f for f in view["facts"] if f.startswith("Showed:")]
        assert bool(shown) == (out["state"]["winner"] is not None)
        if shown:
            oled_after_win += " ".join(out["screen"])
            names = out["state"]["winning"]
    assert shown and names
    assert all(name in oled_after_win for name in names)  # the OLED names them too


def test_no_game_no_view() -> None:
    view = phone_view(None, None)
    assert view["game"] is None and view["scoreboard"] is None and view["records"] == []


def test_records_of_the_game_in_play(tmp_path: Path) -> None:
    records = Records(tmp_path / "records.json")
    report = {"board": "solo", "won": True, "score": 7, "unit": "rolls", "better": "lower"}
    records.sync("a", "cover-your-asps", report, "2026-01-02")
    records.sync("b", "cover-your-asps", {**report, "won": False, "score": 9}, "2026-01-03")
    got = records_view(records, "cover-your-asps")
    assert got == [
        {
            "board": "solo",
            "played": 2,
            "won": 1,
            "best": [{"score": 7, "unit": "rolls", "date": "2026-01-02"}],
        }
    ]
    assert records_view(records, "dice") == []
    assert phone_view("cover-your-asps", None, records)["records"] == got


def test_deathtrap_dungeon_table_named_as_the_box_names_it() -> None:
    """The phone says the cards on the table as the box does ("1 x Orc + 1 wild"), and who laid
    them, never a bare value."""
    outs = lines_of(ROOT / "tests" / "scripts" / "deathtrap-dungeon-four-players.txt")
    tables = [
        f
        for o in outs
        if o["state"]
        for f in phone_view(o["game"], o["state"])["facts"]
        if f.startswith("On the table")
    ]
    assert "On the table: 1 x Orc + 1 wild, by Seat 3" in tables
    assert "On the table: 2 x Troll, by Seat 4" in tables
    assert "On the table: 1 x Warrior + 2 wilds, by Seat 2" in tables
    assert all(
        re.fullmatch(
            r"On the table: (\d+ x [A-Z]\w+( \+ 1 wild| \+ \d+ wilds)?|\d+ wilds?), by Seat \d", f
        )
        for f in tables
    ), tables


def test_deathtrap_dungeon_nobody_is_out_when_a_round_starts() -> None:
    outs = lines_of(ROOT / "tests" / "scripts" / "deathtrap-dungeon-four-players.txt")
    between = [
        o for o in outs if o["state"] and o["state"]["phase"] == "deal" and o["state"]["history"]
    ]
    assert between  # the deal of rounds 2 to 4
    for o in between:
        facts = phone_view(o["game"], o["state"])["facts"]
        assert not any(f.startswith("Out this round") for f in facts), (o["line"], facts)
    playing = [
        phone_view(o["game"], o["state"])["facts"]
        for o in outs
        if o["state"] and o["state"]["phase"] == "play" and o["state"]["finished"]
    ]
    assert playing and all(any(f.startswith("Out this round") for f in facts) for facts in playing)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_every_column_of_every_table_has_a_header(script: Path) -> None:
    """An empty header cell names nothing for a screen reader: every column says what it is."""
    for _out, view in views(script):
        for table in (view["scoreboard"], view["standings"]):
            if table:
                assert all(str(c).strip() for c in table["columns"]), table["columns"]
