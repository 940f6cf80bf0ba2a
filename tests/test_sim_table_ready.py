"""The simulator and messages as a new user meets them: the demo deck opens at the game in
play, a game without dice offers no dice source, a bad option names its own command's usage."""

from __future__ import annotations

import dataclasses
import io
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.config import Config
from companion.sim.box import SimulatedBox
from companion.sim.terminal import TerminalSim


def _config(state: Path) -> Config:
    config = Config()
    return dataclasses.replace(config, state=dataclasses.replace(config.state, dir=str(state)))


@pytest.mark.parametrize("game", ["deathtrap-dungeon", "hostage-trap", "cover-your-asps"])
def test_the_demo_deck_opens_at_the_cards_of_the_game_in_play(game: str, tmp_path: Path) -> None:
    sim = TerminalSim(_config(tmp_path), out=io.StringIO())
    try:
        sim.app.start()
        sim.app.new_game(game, {})
        assert sim.panel().card.endswith(f"({game})")
        sim.key("c")  # the next card is still this game's
        assert sim.panel().card.endswith(f"({game})")
        sim.app.new_game("trap-attack", {})
        assert sim.panel().card.endswith("(trap-attack)")
    finally:
        sim.box.close()


@pytest.mark.parametrize(
    ("game", "offered"),
    [("deathtrap-dungeon", False), ("hostage-trap", False), ("trap-attack", True), ("dice", True)],
)
def test_the_dice_source_is_offered_only_in_a_game_with_dice(
    game: str, offered: bool, tmp_path: Path
) -> None:
    box = SimulatedBox(Config(), state_dir=tmp_path)
    try:
        box.app.start()
        box.app.new_game(game, {})
        box.press("back")
        items = box.app.menu.items
        assert items[0] == "Resume"
        assert any(item.startswith("Dice: ") for item in items) is offered
    finally:
        box.close()


@pytest.mark.parametrize(
    "argv",
    [
        ["sim", "--bogus"],
        ["run", "--bogus"],
        ["replay", "-", "--bogus"],
        ["cards", "list", "--bogus"],
        ["cards", "enrol", "1", "dice", "x", "--bogus"],
        ["bench", "--bogus"],
        ["check", "--bogus"],
        ["firmware", "apply", "--bogus"],
    ],
)
def test_an_unknown_option_shows_its_own_commands_usage(argv: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "companion", *argv],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    command = " ".join(a for a in argv if not a.startswith("-") and a not in ("1", "x", "dice"))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"usage: trap-companion {command} ")
    assert f"trap-companion {command}: error: unrecognized arguments: --bogus" in proc.stderr
