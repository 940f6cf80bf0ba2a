"""Power cuts during a Hostage Trap! game, through the real daemon code (the replay daemon in a
subprocess, killed with SIGKILL, started again on the same state directory): the seats, the
turns owed to traps and the turn's progress come back exactly; a running turn timer comes back
paused with the time it had left at the last journaled change; a claim being tapped is
dropped, never half-counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_trapwords_power_cut import Box, cut_and_restart


@pytest.fixture
def box_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[state]\ndir = "{tmp_path / "state"}"\n')
    return path


def test_a_timed_turn_comes_back_paused_and_the_game_goes_on(box_config: Path) -> None:
    box = Box(box_config)
    box.line("game hostage-trap players=4 turn_seconds=40")
    box.line("do draw target=2")
    box.line("do trap turns=2")
    box.line("do attack target=4 result=hit")
    box.line("tap @hostage-blue")
    box.line("press down")
    shown = box.line("press ok")["state"]  # seat 3 shows one hostage
    assert shown["claim"] == {"player": 3, "seen": 1, "wait": 15.0}
    before = box.line("wait 6.5")["state"]
    box, resumed = cut_and_restart(box, box_config)

    state = resumed["state"]
    assert resumed["game"] == "hostage-trap"
    for key in ("turn", "turn_no", "held", "attack", "drew"):
        assert state[key] == before[key], key
    assert state["turn"] == 2 and state["held"] == {"1": 2} and state["attack"] == 4
    assert state["claim"] is None
    assert state["timer"]["running"] is False
    left = state["timer"]["remaining"]
    assert left == shown["timer"]["remaining"]  # as of the last journaled change: the tap
    assert resumed["screen"][0] == "Claim cut: tap again"  # the news; the footer says paused
    assert resumed["screen"][2] == "Draw from seat 4"  # what the seat still has to do
    assert resumed["screen"][3] == "G resume  R end turn"

    running = box.line("press green")  # green runs the paused timer again
    assert running["state"]["timer"]["running"] is True
    almost = box.line(f"wait {0.05 + left - 0.01 - running['t']:.2f}")
    assert almost["state"]["turn"] == 2
    over = box.line("wait 0.02")
    assert over["sounds"] == ["time_up", "turn"]
    assert over["state"]["turn"] == 3
    box.kill()


def test_cut_again_after_an_undo_keeps_the_game(box_config: Path) -> None:
    box = Box(box_config)
    box.line("game hostage-trap players=3 turn_seconds=30")
    box.line("do ability color=red")
    box.line("do next")  # no card drawn: red would ask first
    box.line("do draw target=3")
    box.line("hold back 1.5")
    undone = box.line("press green")["state"]
    assert undone["drew"] is False and undone["timer"]["running"] is False
    box, first = cut_and_restart(box, box_config)
    assert first["state"]["turn"] == 2 and first["state"]["drew"] is False
    assert first["state"]["timer"] == undone["timer"]
    box.line("do draw target=1")
    box, second = cut_and_restart(box, box_config)
    assert second["state"]["drew"] is True
    assert second["state"]["timer"] == undone["timer"]
    box.kill()
