"""The simulators' demo deck (issue 23, point 9): a new user with no tags can make every play
a game allows, in the terminal deck and on the page alike: numbered copies of the cards a
table lays together (a Deathtrap set, Cover Your Asps' treasure cards)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from companion.core.config import Config
from companion.games.deathtrap_dungeon import GAME as DEATHTRAP
from companion.games.deathtrap_dungeon import pack as packs
from companion.replay import run_script
from companion.sim.box import SimulatedBox
from companion.sim.controls import SimControls


@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """The terminal's deck and the page's, as each face builds it."""
    box = SimulatedBox(Config(), state_dir=tmp_path_factory.mktemp("deck"))
    try:
        terminal = SimControls(box).deck()
        page = [(c.uid, c.name, c.game) for c in box.app.registry.demo.values()]
    finally:
        box.close()
    return terminal, page


def test_both_faces_show_the_same_deck_every_card_a_tag_of_its_own(decks) -> None:
    terminal, page = decks
    assert terminal == page
    assert len({uid for uid, _, _ in page}) == len(page)


def test_every_deathtrap_set_comes_in_as_many_numbered_copies_as_the_pack_has(decks) -> None:
    _, page = decks
    names = [name for _, name, game in page if game == "deathtrap-dungeon"]
    for card_set in DEATHTRAP.pack.sets:
        copies = [f"{card_set.name} {n}" for n in range(1, card_set.cards + 1)]
        assert [n for n in names if n.rsplit(" ", 1)[0] == card_set.name] == copies
    assert "Chaindog" in names and "Red Lotus" in names  # one of each special card


def test_cover_your_asps_has_a_treasure_card_for_every_treasure_of_a_full_table(decks) -> None:
    _, page = decks
    kinds = Counter(name.rsplit(" ", 1)[0] for _, name, g in page if g == "cover-your-asps")
    assert kinds["Treasure card"] == 12  # four players take three each


def test_the_first_copy_keeps_the_tag_replay_scripts_tap(decks) -> None:
    """Scripts that tap a demo card by its UID (or ``tap @CARD``) still reach the same card."""
    _, page = decks
    by_uid = {uid: (name, game) for uid, name, game in page}
    assert by_uid["00B8E60A93"] == ("Treasure card 1", "cover-your-asps")


def test_a_new_user_lays_a_triple_with_three_demo_copies(decks) -> None:
    _, page = decks
    orcs = [uid for uid, name, _ in page if name.startswith("Orc ")][:3]
    taps = "".join(f"tap {uid}\nwait 1\n" for uid in orcs)
    out = run_script(f"game deathtrap-dungeon\ndo pig player=1\n{taps}press green\n")
    assert [o.get("rejected") for o in out] == [None] * len(out)
    assert out[-1]["state"]["table"] == {"n": 3, "value": 2, "by": 2, "wild": 0, "set": "orc"}


def test_the_deck_follows_the_owners_pack(tmp_path: Path) -> None:
    """A pack copied into the state directory changes the copies (data, not code)."""
    pack = packs.SHIPPED.read_text(encoding="utf-8")
    (tmp_path / "deathtrap_dungeon_pack.toml").write_text(
        pack.replace("cards = 6", "cards = 3", 1), encoding="utf-8"
    )
    box = SimulatedBox(Config(), state_dir=tmp_path)
    try:
        names = [c.name for c in box.app.registry.demo.values() if c.game == "deathtrap-dungeon"]
    finally:
        box.close()
        DEATHTRAP.attach(Path(tmp_path / "elsewhere"))  # back to the shipped pack
    assert [n for n in names if n.startswith("Goblin")] == ["Goblin 1", "Goblin 2", "Goblin 3"]
