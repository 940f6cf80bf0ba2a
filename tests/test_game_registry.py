"""The games' list is data (companion/games/data/games.toml): the menu and the start import no
game. Each entry must say what its module's GAME says, and a game is imported when played."""

from __future__ import annotations

import importlib
import subprocess
import sys

from companion.core import statefile
from companion.games import registry


def test_each_entry_says_what_its_game_says():
    assert registry.available() == list(registry.ENTRIES)
    for name, entry in registry.ENTRIES.items():
        game = importlib.import_module(entry["module"]).GAME
        assert game.name == name
        assert registry.title(name) == game.title
        assert registry.options(name) == tuple(game.options), name
    assert registry.ENTRIES["deathtrap-dungeon"]["owner_files"] == [statefile.PACK.name]


def test_the_box_starts_and_shows_its_menu_without_importing_a_game(tmp_path):
    """A fresh interpreter: the box built and started, its menu drawn, a game's options shown
    (from the games' data), and no game's module loaded until one is played (the simulators'
    demo deck, left out here, loads them all)."""
    code = f"""
import sys
from pathlib import Path
from companion.core.config import from_dict
from companion.sim.box import SimulatedBox
from companion.games import registry
config = from_dict({{"reader": {{"type": "none"}}}}, "t")
box = SimulatedBox(config, state_dir=Path({str(tmp_path)!r}), demo_cards=False)
box.app.start()
box.loop.drain()
screen, _ = box.app.current()
text = "\\n".join(screen.text_lines())
loaded = [m for m in registry.MODULES.values() if m in sys.modules]
print(repr(loaded))
print("Trap Attack" in text or "Dice" in text)
box.press("down")  # the menu's second game, Trap Attack: its options form
box.press("ok")
box.loop.drain()
screen, _ = box.app.current()
shown = "\\n".join(screen.text_lines())
loaded = [m for m in registry.MODULES.values() if m in sys.modules]
print(repr((loaded, "AI route" in shown)))
box.app.new_game("trapwords", {{}})
print(registry.MODULES["trapwords"] in sys.modules)
box.close()
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "True"
    assert out[2] == "([], True)"
    assert out[3] == "True"


def test_an_owner_pack_at_start_is_read_then_and_a_bad_one_is_told(tmp_path):
    (tmp_path / statefile.PACK.name).write_text("this is = = not toml\n")
    problems = registry.attach(tmp_path)
    assert problems and problems[0][0] == "Pack file bad"


def test_each_waiting_games_entry_fits_a_line_by_its_short_title():
    """ "Resume " and the short title fit the 21 characters of a line; the short title is the
    title itself where that fits."""
    for name, entry in registry.ENTRIES.items():
        short = registry.short_title(name)
        assert len(f"Resume {short}") <= 21, name
        assert short == entry["title"] or len(f"Resume {entry['title']}") > 21, name
