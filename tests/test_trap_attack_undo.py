"""Undo in Trap Attack takes back game actions only: the players' menu lives in the game's
state, but no menu move is ever journaled nor the thing undo offers."""

from __future__ import annotations

import json

from companion.core.journal import Journal
from companion.replay import run_script

# A new race starts with the roll for who starts: player 1's pawn die shows 6, the AI's 1.
START_LINES = ["game trap-attack", "dice 6 1", "do first_player"]
START = "\n".join(START_LINES) + "\n"
START_TWO = "game trap-attack players=2\ndice 6 1\ndo first_player\n"


def test_menu_moves_are_never_what_undo_offers():
    out = run_script(
        START + "dice 3 1\npress green\n"
        "press red\npress down\npress down\npress red\nhold back 1.5\n"
    )
    offer = " ".join(out[-1]["screen"])
    assert "AI moves 4" in offer, offer
    assert "close" not in offer and "pick" not in offer


def test_undoing_the_race_end_needs_one_confirmation_after_a_long_scroll(tmp_path):
    scroll = "press up\n" * 29
    out = run_script(
        START + "do winner player=1\npress red\npress red\n"
        # the menu over the scores: "AI position" is its first entry after the race
        f"press ok\n{scroll}press red\nhold back 1.5\npress green\n",
        state_dir=tmp_path,
    )
    assert "wins the race" in " ".join(out[-2]["screen"])
    assert out[-1]["state"]["winner"] is None
    assert out[-1]["state"]["race_over"] is False
    # The journal's fold gives the very game the box shows: nothing stands but the start.
    record = Journal(tmp_path / "journal.jsonl").open()
    assert record is not None
    assert [s.action["name"] for s in record.steps if s.by_person] == ["first_player"]


def test_undo_after_menu_moves_folds_to_what_the_box_shows(tmp_path):
    out = run_script(
        START + "dice 3 1\npress green\ndice 2 1\npress green\n"
        "press red\npress down\nhold back 1.5\npress green\n",
        state_dir=tmp_path,
    )
    assert out[-1]["state"]["ai"]["position"] == 26
    record = Journal(tmp_path / "journal.jsonl").open()
    assert record is not None
    assert [a["name"] for a in record.actions] == ["first_player", "ai_turn"]


def test_menu_moves_are_shown_but_never_journaled(tmp_path):
    out = run_script(
        START + "press red\npress down\npress up\npress red\n"
        "do ask form=damage player=ai\npress ok\npress ok\n",
        state_dir=tmp_path,
    )
    shown = [o["state"]["menu"] for o in out[3:]]
    assert shown == ["menu", "menu", "menu", None, "form", "form", None]
    entries = [json.loads(line) for line in (tmp_path / "journal.jsonl").read_text().splitlines()]
    assert [e["action"]["name"] for e in entries if e["kind"] == "action"] == [
        "first_player",
        "damage",
    ]
    assert all("nav" not in e for e in entries)


def test_a_game_journaled_before_the_roll_was_asked_resumes_with_player_1_started(tmp_path):
    """Issue 42, point 2: a box updated with a race in play. Its journal holds no roll for who
    starts (the older box began with player 1): it folds whole, as it was, and plays on."""
    played = run_script(
        START + "dice 3 1\npress green\ndo damage player=1 amount=2\n", state_dir=tmp_path
    )
    path = tmp_path / "journal.jsonl"
    older = [line for line in path.read_text().splitlines() if "first_player" not in line]
    path.write_text("\n".join(older) + "\n")  # as an older box wrote it
    resumed = run_script("wait 0\n", state_dir=tmp_path)[0]
    assert "rejected" not in resumed
    assert resumed["state"]["players"] == played[-1]["state"]["players"]
    assert resumed["state"]["ai"] == played[-1]["state"]["ai"]
    assert resumed["state"]["turn"] == "1"
    after = run_script("dice 2 1\npress green\n", state_dir=tmp_path)[-1]
    assert after["state"]["ai"]["position"] == 23
