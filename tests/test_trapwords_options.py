"""Trapwords options as typed (``--set K=V``): defaults, accepted values, and bad ones named."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import DataError
from companion.games.base import BadAction
from companion.games.datafile import DATA_DIR
from companion.games.trapwords import GAME
from companion.games.trapwords.data import TABLES, parse


def test_defaults() -> None:
    assert GAME.check_options({}) == {
        "rooms": (3, 4, 5, 6, 7),
        "seconds": 45.0,
        "start_mode": "official",
        "read_seconds": 3.0,
        "tiebreak": False,
        "monster": "random",
        "nasty": False,
        "tick": True,
        "curses": (4, 6),
    }


def test_every_option_is_offered_to_the_menu_with_its_default_accepted() -> None:
    names = [o.name for o in GAME.options]
    assert names[:7] == [
        "rooms",
        "seconds",
        "start_mode",
        "read_seconds",
        "tiebreak",
        "monster",
        "nasty",
    ]
    for option in GAME.options:
        for value in option.menu_values():
            GAME.check_options({option.name: value})
    seconds = next(o for o in GAME.options if o.name == "seconds")
    assert seconds.presets == ("30", "40", "45", "60")


@pytest.mark.parametrize(
    ("raw", "key", "value"),
    [
        ({"rooms": "2,4,6,8,10"}, "rooms", (2, 4, 6, 8, 10)),
        ({"rooms": " 1, 2 ,9 "}, "rooms", (1, 2, 9)),
        ({"seconds": "37.5"}, "seconds", 37.5),
        ({"start_mode": "clue"}, "start_mode", "clue"),
        ({"read_seconds": "0"}, "read_seconds", 0.0),
        ({"tiebreak": "on"}, "tiebreak", True),
        ({"monster": "mummy"}, "monster", "mummy"),
        ({"nasty": "on"}, "nasty", True),
        ({"tick": "off"}, "tick", False),
        ({"curses": "none"}, "curses", ()),
        ({"rooms": "2,4,6,8,10", "curses": "8,2,4,6"}, "curses", (2, 4, 6, 8)),
    ],
)
def test_accepted_values(raw: dict[str, str], key: str, value: object) -> None:
    assert GAME.check_options(raw)[key] == value


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"colour": "red"}, "no option 'colour'"),
        ({"rooms": "3,x"}, "whole numbers"),
        ({"rooms": "5"}, "a dungeon has 3 to 7 rooms, not 1"),
        ({"rooms": "3,4"}, "rooms='3,4': a dungeon has 3 to 7 rooms, not 2"),
        ({"rooms": "1,2,3,4,5,6,7,8"}, "a dungeon has 3 to 7 rooms, not 8"),
        ({"rooms": "3,5,4"}, "must increase"),
        ({"rooms": "3,3,4"}, "must increase"),
        ({"rooms": "0,1,2"}, "1..99"),
        ({"seconds": "fast"}, "seconds='fast' is not a number"),
        ({"seconds": "0"}, "1..3600"),
        ({"seconds": "nan"}, "1..3600"),
        ({"read_seconds": "-1"}, "0..3600"),
        ({"start_mode": "sand"}, "start_mode='sand' is not one of official, pickup, clue"),
        ({"tiebreak": "yes"}, "tiebreak='yes'"),
        ({"monster": "goblin"}, "monster='goblin'"),
        ({"curses": "7"}, "7 is not a room before the monster's"),
        ({"curses": "9"}, "9 is not a room before the monster's"),
        ({"curses": "4,4,4"}, "at most two curses share a room"),
        ({"curses": "some"}, "auto, none or room numbers"),
    ],
)
def test_bad_values_are_named(raw: dict[str, str], message: str) -> None:
    with pytest.raises(BadAction, match=message.replace("(", r"\(").replace(".", r"\.")):
        GAME.check_options(raw)


def test_curses_follow_the_rooms_chosen() -> None:
    assert GAME.check_options({"rooms": "2,4,6,8,10"})["curses"] == (4, 8)


@given(
    rooms=st.lists(st.integers(1, 99), min_size=3, max_size=7, unique=True).map(sorted),
    seconds=st.floats(min_value=1, max_value=3600, allow_nan=False, allow_subnormal=False),
    mode=st.sampled_from(["official", "pickup", "clue"]),
    flags=st.tuples(*[st.sampled_from(["on", "off"])] * 3),
)
def test_parsed_options_parse_again_to_themselves(
    rooms: list[int], seconds: float, mode: str, flags: tuple[str, str, str]
) -> None:
    """A menu or a saved game may hand parsed values back: they must mean the same."""
    raw = {
        "rooms": ",".join(map(str, rooms)),
        "seconds": repr(seconds),
        "start_mode": mode,
        "tiebreak": flags[0],
        "nasty": flags[1],
        "tick": flags[2],
    }
    parsed = GAME.check_options(raw)
    assert parsed["rooms"] == tuple(rooms)
    assert parsed["seconds"] == seconds
    assert GAME.check_options(parsed) == parsed
    assert GAME.check_options({k: str(v) for k, v in raw.items()}) == parsed


def test_tables_match_the_rulebook_numbers() -> None:
    assert TABLES.max_rounds == 8
    assert TABLES.guesses == 5
    assert [m.id for m in TABLES.monsters] == ["vampire", "mummy", "dragon", "troll", "demon"]
    mummy = TABLES.monster("mummy")
    assert (mummy.curses_per_battle(False), mummy.curses_per_battle(True)) == (1, 2)


def test_catalog_lists_curse_cards() -> None:
    kinds = {k.id: k for k in GAME.catalog()}
    assert {"curse-flood", "curse-echo", "curse-word-of-terror", "curse-other"} <= set(kinds)
    assert all(k.group == "curse" for k in kinds.values())
    assert kinds["curse-other"].fields == ("name",)


def test_a_broken_table_names_the_missing_key() -> None:
    with pytest.raises(DataError, match="missing key 'max_rounds'"):
        parse({}, {"monster": []}, {"curse": []})


def test_a_table_with_the_wrong_number_of_monsters_is_refused() -> None:
    setup = tomllib.loads((DATA_DIR / "trapwords_setup.toml").read_text())
    with pytest.raises(DataError, match="5 faces"):
        parse(setup, {"monster": []}, {"curse": []})
