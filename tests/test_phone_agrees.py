"""Each phone face agrees with the box (issue 30, points 12 and 15), as built for the phones
from the replay contract's public state: the teams in the LED's colours, "paused" only for a
turn the box paused, whose turn names who must act now, Cover Your Asps' raiders' phases and
the planks that decide a tie."""

from __future__ import annotations

from companion.games.trapwords.data import TABLES
from companion.replay import run_script
from companion.web.public import phone_view


def _trapwords(phase: str) -> dict:
    return {
        "phase": phase,
        "clue_team": "B",
        "round": 2,
        "rooms": [1, 2, 3, 4, 5],
        "teams": {"A": {"room": 2}, "B": {"room": 3}},
        "timer": {"remaining": 30.0, "running": phase == "running", "limit": 45.0},
    }


def test_trapwords_teams_wear_the_leds_colours() -> None:
    view = phone_view("trapwords", _trapwords("running"))
    assert view["turn"]["rgb"] == list(TABLES.team_colours["B"])  # magenta, as the LED
    assert view["picture"]["team_rgb"] == {t: list(c) for t, c in TABLES.team_colours.items()}
    dots = [seat["rgb"] for seat in view["scoreboard"]["seats"]]
    assert dots == [list(TABLES.team_colours["A"]), list(TABLES.team_colours["B"])]


def test_paused_only_when_the_box_paused_a_turn() -> None:
    assert phone_view("trapwords", _trapwords("paused"))["timer"]["paused"] is True
    for phase in ("ready", "reading", "waiting", "running"):
        assert phone_view("trapwords", _trapwords(phase))["timer"]["paused"] is False, phase
    hostage = {"turn": 1, "turn_no": 1, "players": 3, "hostages": 3}
    running = {**hostage, "timer": {"remaining": 20.0, "running": True}}
    stopped = {**hostage, "timer": {"remaining": 20.0, "running": False}}
    assert phone_view("hostage-trap", running)["timer"]["paused"] is False
    assert phone_view("hostage-trap", stopped)["timer"]["paused"] is True


def test_whose_turn_names_the_player_answering_the_ais_card() -> None:
    out = run_script(
        "game trap-attack\ndice 6 1\ndo first_player\n"  # the roll for who starts: player 1
        "dice 3 4\npress green\npress green\npress down\npress down\npress ok\n"
    )
    assert out[-1]["state"]["turn"] == "ai" and out[-1]["state"]["threat"]["target"] == "1"
    view = phone_view(out[-1]["game"], out[-1]["state"])
    assert view["turn"] == {"label": "Player 1"}
    assert "Player 1 answers the AI's Damage 3" in view["facts"]


def _asps(planks: list[int | None]) -> dict:
    seats = {
        str(n): {
            "phase": phase,
            "points": 10,
            "escapes": 1,
            "treasures": 2,
            "inside": False,
            "planks": p,
        }
        for n, (phase, p) in enumerate(zip(("build", "escape"), planks, strict=True), start=1)
    }
    return {"players": 2, "turn": 1, "round": 3, "treasure_left": 0, "seats": seats}


def test_cover_your_asps_shows_each_raiders_phase_and_the_planks_at_a_tie() -> None:
    board = phone_view("cover-your-asps", _asps([None, None]))["scoreboard"]
    assert board["columns"][-1] == "Phase"
    assert [row[-1] for row in board["rows"]] == ["build", "escape"]
    tied = phone_view("cover-your-asps", _asps([3, 1]))["scoreboard"]
    # the count (issue 42, point 16): the planks beside the points, the phases (over) left out
    assert tied["columns"] == ["Seat", "Points", "Planks left", "Escapes", "Treasures"]
    assert [row[2] for row in tied["rows"]] == [3, 1]


def test_the_winner_line_names_both_teams_or_the_monster() -> None:
    """Issue 42, point 8: "Team both won" when both teams beat the monster."""
    over = {**_trapwords("over"), "monster": "troll"}
    assert phone_view("trapwords", {**over, "winner": "both"})["winner"] == "Teams A and B"
    assert phone_view("trapwords", {**over, "winner": "monster"})["winner"] == "The Troll"
    assert phone_view("trapwords", {**over, "winner": "B"})["winner"] == "Team B"
