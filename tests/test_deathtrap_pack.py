"""The Deathtrap Dungeon pack file: the shipped one, an owner's copy in the state directory,
and what happens when that copy stops parsing (named file and line, the last good copy kept)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import DataError
from companion.games.deathtrap_dungeon import GAME
from companion.games.deathtrap_dungeon import pack as packs

SHIPPED_TEXT = packs.SHIPPED.read_text(encoding="utf-8")


def test_shipped_pack_says_which_values_the_rulebook_gives() -> None:
    pack = packs.shipped()
    known = {s.id: s.value for s in pack.sets if s.known}
    assert known == {"skeleton": 3, "warrior": 5}  # ruling 9: the only values named
    assert {s.id for s in pack.sets} >= {"orc", "priestess", "skeleton", "warrior"}
    roles = sorted(s.role for s in pack.specials)
    assert roles == ["killing-machine", "pig", "wild", "wild"]
    assert pack.wilds == 2


def test_catalog_asks_a_value_only_for_guessed_sets_starting_from_the_guess() -> None:
    kinds = {k.id: k for k in GAME.catalog()}
    assert kinds["skeleton"].fields == ()
    assert kinds["orc"].fields == ("value",)
    assert kinds["orc"].field_start(0) == 2
    assert kinds["killing-machine"].group == "special"


def test_bad_toml_names_the_file_and_line() -> None:
    text = SHIPPED_TEXT.replace("value = 5\n", "value = = 5\n")
    with pytest.raises(DataError, match=r"mine\.toml: not valid TOML: .*line \d+"):
        packs.parse(text, "mine.toml")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("value = 5\n", "value = 0\n"), r"line 43 \(\[\[set\]\] 5\)\.value: 0 is outside"),
        (('id = "orc"', 'id = "Orc"'), r"\[\[set\]\] 2\)\.id"),
        (("cards = 6\nknown = true", 'cards = 6\nknown = "yes"'), r"\.known"),
        (('role = "pig"', 'role = "bacon"'), r"\.role: 'bacon'"),
        (('id = "troll"', 'id = "orc"'), r"'orc' is used twice"),
        (('name = "Troll"', 'name = "Troll of the deep"'), r"must be 1 to 12"),
        (("value = 7\n", "value = 7\ncolour = 3\n"), r"unknown key 'colour'"),
    ],
)
def test_validation_names_the_entry(edit: tuple[str, str], message: str) -> None:
    text = SHIPPED_TEXT.replace(*edit, 1)
    with pytest.raises(DataError, match=message):
        packs.parse(text, "mine.toml")


@given(st.text(max_size=200))
def test_any_text_parses_or_is_named(text: str) -> None:
    try:
        pack = packs.parse(text, "owner.toml")
    except DataError as err:
        assert str(err).startswith("owner.toml")
    else:
        assert pack.sets


def test_owner_pack_in_state_dir_wins_and_a_bad_one_keeps_the_last_good(tmp_path: Path) -> None:
    assert packs.for_state_dir(tmp_path) == (packs.shipped(), None)
    owner = tmp_path / packs.OWNER_NAME
    owner.write_text(SHIPPED_TEXT.replace('name = "Orc"', 'name = "Ork"'), encoding="utf-8")
    pack, problem = packs.for_state_dir(tmp_path)
    assert problem is None and pack.set("orc").name == "Ork"
    assert (tmp_path / packs.LAST_GOOD_NAME).read_text(encoding="utf-8") == owner.read_text(
        encoding="utf-8"
    )
    owner.write_text("[[set]\nid =", encoding="utf-8")
    pack, problem = packs.for_state_dir(tmp_path)
    assert pack.set("orc").name == "Ork"  # the last good copy
    assert problem is not None and str(owner) in problem and "line 1" in problem


def test_bad_owner_pack_without_a_good_copy_falls_back_to_the_shipped_one(tmp_path: Path) -> None:
    (tmp_path / packs.OWNER_NAME).write_bytes(b"\xff\xfe")
    pack, problem = packs.for_state_dir(tmp_path)
    assert pack == packs.shipped()
    assert problem is not None and "not UTF-8" in problem


def test_the_box_tells_the_owner_and_starts(tmp_path: Path) -> None:
    from companion.core.config import Config
    from companion.sim.box import SimulatedBox

    (tmp_path / packs.OWNER_NAME).write_text("[[set]]\nid = orc\n", encoding="utf-8")
    box = SimulatedBox(Config(), state_dir=tmp_path, seed=1)
    try:  # no good copy ever existed: the box says it plays with its own pack
        assert ("Pack file bad", "line 2", "shipped pack in use") in box.app.problems
        assert not any("last good" in line for p in box.app.problems for line in p)
    finally:
        box.close()
        GAME.attach(tmp_path / "empty")


def test_a_bad_pack_after_a_good_one_says_the_last_good_is_kept(tmp_path: Path) -> None:
    owner = tmp_path / packs.OWNER_NAME
    owner.write_text(SHIPPED_TEXT.replace('name = "Orc"', 'name = "Ork"'), encoding="utf-8")
    try:
        assert GAME.attach(tmp_path) == ()
        owner.write_text("[[set]]\nid = orc\n", encoding="utf-8")
        assert GAME.attach(tmp_path) == ("Pack file bad", "line 2", "kept the last good")
        assert GAME.pack.set("orc").name == "Ork"
    finally:
        GAME.attach(tmp_path / "empty")
