"""Issue 48, point 1: players by name: the players file (core/players.py), names picked on the
box from the game menu (app/seat_menus.py), and names on the OLED where a seat number was
(ui/names.py); unnamed seats look exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.core import formats
from companion.core.players import GUEST, BadName, Players, clean, short
from companion.replay import run_script
from companion.ui.names import with_names
from companion.ui.screen import Screen

CLAIM = "do claim player=2 hostages=red,green,blue\n"


def _known(state: Path, **used: int) -> None:
    state.mkdir(parents=True, exist_ok=True)
    players = [{"name": n, "used": u} for n, u in used.items()]
    (state / "players.json").write_text(json.dumps({"version": 1, "players": players}))


# --- the file ----------------------------------------------------------------------------------


def test_names_are_cleaned_and_refused_with_a_reason() -> None:
    assert clean("  Ann   Lee ") == "Ann Lee"
    for bad, why in (("", "at least one"), ("x" * 25, "longer than 24"), ("A\x07", "control")):
        with pytest.raises(BadName, match=why):
            clean(bad)


def test_short_forms_fit_eight_characters() -> None:
    assert short("Bob") == "Bob"
    assert short("Alexandra Smith") == "Alexandr"
    assert short("Jo Anne-Marie") == "Jo"
    assert all(len(short(n)) <= 8 for n in ("Maximilian", "A B C D E F G H I"))


def test_the_pick_list_is_recent_first_and_guest_is_always_there(tmp_path: Path) -> None:
    path = tmp_path / "players.json"
    players = Players(path)
    assert players.choices() == [GUEST]
    players.seat("g#1", ["Ann", "Bob", None])
    players.seat("g#2", ["Cy", GUEST])
    again = Players(path)
    assert again.choices() == ["Cy", "Ann", "Bob", GUEST]  # guest is never kept as a player
    assert again.seated("g#1", 3) == ["Ann", "Bob", None]
    assert again.seated("g#2", 3) == ["Cy", GUEST, None]
    assert json.loads(path.read_text())["version"] == 1


def test_rename_merge_and_forget(tmp_path: Path) -> None:
    path = tmp_path / "players.json"
    players = Players(path)
    players.seat("g#1", ["Ann", "Anne", "Bob"])
    players.rename("Anne", "Ann")  # two spellings of one person: merged
    assert sorted(Players(path).names()) == ["Ann", "Bob"]
    assert Players(path).seated("g#1", 3) == ["Ann", "Ann", "Bob"]
    players.forget("Bob")
    assert Players(path).names() == ["Ann"] and Players(path).seated("g#1", 3)[2] is None
    with pytest.raises(BadName, match="no player is called 'Zed'"):
        players.rename("Zed", "Z")


def test_a_newer_players_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "players.json"
    path.write_text('{"version": 3, "players": []}')
    players, problem = Players.open_or_set_aside(path)
    assert "format 3" in problem
    with pytest.raises(formats.Refused):
        players.seat("g#1", ["Ann"])
    assert path.read_text() == '{"version": 3, "players": []}'


# --- names on the OLED -------------------------------------------------------------------------


def test_a_named_seat_reads_as_its_name_and_an_unnamed_one_as_before() -> None:
    screen = Screen("Final 1/2", ("1. Seat 3  17 pts", "2. Seat 4  16 pts", "S1 2+3=5"))
    named = with_names(screen, {3: "Cy", 1: "Ann"})
    assert named.lines == ("1. Cy  17 pts", "2. Seat 4  16 pts", "Ann 2+3=5")
    assert with_names(screen, {}) == screen


def test_a_name_too_long_for_the_line_is_shortened_or_left_out() -> None:
    screen = Screen("T", ("Seat 2 wins!", "Seat 2 wins with all 4!"))
    lines = with_names(screen, {2: "Alexandra Smith"}).lines
    assert lines == ("Alexandr wins!", "Seat 2 wins with all 4!")
    wide = Screen("T", ("Seat 2 and Seat 3 and S4",))
    assert with_names(wide, {2: "Bob"}).lines == ("Bob and Seat 3 and S4",)


def test_teams_are_named_too() -> None:
    screen = Screen("Trapwords  R5", ("Team A wins!", "A: time is up"))
    assert with_names(screen, {"A": "Reds"}).lines == ("Reds wins!", "Reds: time is up")


# --- on the box --------------------------------------------------------------------------------

MENU_TO_PLAYERS = "press back\n" + "press down\n" * 4 + "press ok\n"


def test_the_game_menu_offers_players_only_once_the_box_knows_a_name(tmp_path: Path) -> None:
    plain = run_script("game hostage-trap players=3\n" + MENU_TO_PLAYERS, state_dir=tmp_path / "a")
    assert "Players" not in json.dumps([o["screen"] for o in plain])
    _known(tmp_path / "b", Ann=1)
    out = run_script("game hostage-trap players=3\n" + MENU_TO_PLAYERS, state_dir=tmp_path / "b")
    assert out[-1]["screen"][:4] == ["Players", "> Seat 1: -", "  Seat 2: -", "  Seat 3: -"]


def test_a_seat_is_named_on_the_box_from_the_known_names_and_the_play_keeps_it(tmp_path: Path):
    _known(tmp_path, Ann=2, Bob=5)
    script = "game hostage-trap players=3\n" + MENU_TO_PLAYERS
    script += "press down\npress ok\n"  # seat 2: the names, Bob (most recent) first
    script += "press ok\n"  # Bob
    script += "press back\n" + CLAIM
    out = run_script(script, state_dir=tmp_path)
    picked = out[-4]["screen"]
    assert picked[:4] == ["Seat 2", "> Bob", "  Ann", "  guest"]
    assert out[-3]["screen"][2] == "> Seat 2: Bob" and out[-3]["names"] == [None, "Bob", None]
    assert out[-2]["state"]["turn"] == 1  # back: play goes on
    assert out[-1]["screen"][1] == "Bob wins!"
    assert [s["player"] for s in out[-1]["plays"]["seats"]] == [None, "Bob", None]


def test_one_person_sits_in_one_seat(tmp_path: Path) -> None:
    _known(tmp_path, Ann=1)
    script = "game hostage-trap players=3\nnames Ann\n" + MENU_TO_PLAYERS
    script += "press down\npress ok\npress ok\n"  # seat 2: Ann
    out = run_script(script, state_dir=tmp_path)
    assert out[-1]["names"] == [None, "Ann", None]


def test_the_game_menu_records_page_shows_the_top_three_by_wins(tmp_path: Path) -> None:
    for names in ("Ann Bob Cy", "Bob Ann Cy", "Dee Bob Ann", "Ann Dee -"):  # seat 2 wins each
        run_script(f"game hostage-trap players=3\nnames {names}\n" + CLAIM, state_dir=tmp_path)
    menu = "game hostage-trap players=3\npress back\n" + "press down\n" * 4 + "press ok\n"
    out = run_script(menu, state_dir=tmp_path)
    assert out[-2]["screen"][2] == "> Records"
    assert out[-1]["screen"][:4] == [
        "Most wins", "1. Bob 2/3 won", "2. Dee 1/2 won", "3. Ann 1/4 won",
    ]  # fmt: skip


def test_no_records_entry_for_a_game_without_named_plays(tmp_path: Path) -> None:
    run_script("game hostage-trap players=3\n" + CLAIM, state_dir=tmp_path)
    menu = "game hostage-trap players=3\npress back\n" + "press down\n" * 6
    shown = json.dumps([o["screen"] for o in run_script(menu, state_dir=tmp_path)])
    assert "Records" not in shown


def test_a_game_started_on_the_box_asks_who_sits_where_once_names_are_known(tmp_path: Path):
    start = "press back\n" + "press down\n" * 4 + "press ok\npress green\n"  # Cover Your Asps
    plain = run_script(start, state_dir=tmp_path / "a")
    assert plain[-1]["screen"][0] == "Asps  setup"  # no names known: as before
    _known(tmp_path / "b", Ann=1)
    out = run_script(start + "press ok\npress ok\npress back\n", state_dir=tmp_path / "b")
    assert out[-4]["screen"][:2] == ["Players", "> Seat 1: -"]
    assert out[-2]["names"][0] == "Ann"
    assert out[-1]["screen"] == plain[-1]["screen"]  # back: the game as it started
