"""The data files: the board profile (ruling 9), the card catalog (ruling 10) and the rule
tables; broken files name themselves and the bad key."""

from __future__ import annotations

import pytest

from companion.errors import DataError
from companion.games.trap_attack import GAME
from companion.games.trap_attack.board import (
    Spot,
    back,
    default_board,
    forward,
    journey,
    load_board,
    parse_board,
)
from companion.games.trap_attack.tables import (
    RULES_FILE,
    catalog,
    parse_catalog,
    parse_rules,
    read_toml,
    rules,
)


def test_default_board_is_the_replay_contracts_track_30_down_to_the_crystal():
    board = default_board()
    assert board.route("long") == tuple(range(30, -1, -1))
    shortcut = board.route("shortcut")
    assert shortcut[0] == 30 and shortcut[-1] == 0
    assert len(shortcut) < len(board.route("long"))
    assert set(shortcut) <= set(board.route("long"))


def test_the_journey_runs_start_crystal_start_boat():
    path = journey(default_board(), "long")
    assert path[0] == Spot(30)
    assert path[30] == Spot(0, has_crystal=True)
    assert path[31] == Spot(1, has_crystal=True)
    assert path[-1].at_boat
    assert len(path) == 62


def test_walking_stops_on_the_crystal_and_reaches_the_boat_past_the_start():
    board = default_board()
    assert forward(board, "long", Spot(2), 5) == Spot(0, has_crystal=True)
    assert forward(board, "long", Spot(29, has_crystal=True), 5).at_boat
    assert back(board, "long", Spot(29), 4) == Spot(30)
    assert back(board, "long", Spot(2, has_crystal=True), 4) == Spot(0, has_crystal=True)


def test_an_owners_board_file_is_used(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text("start = 20\n[[forks]]\nfrom = 15\nto = 10\nmines = [12]\n")
    options = GAME.check_options({"board": str(path), "ai_route": "shortcut"})
    state = GAME.initial(options, ()).state
    assert GAME.public(state)["ai"]["position"] == 20
    assert state.board.route("shortcut")[:7] == (20, 19, 18, 17, 16, 15, 10)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("start = 1\n", "start"),
        ("start = 30\nsize = 3\n", "size"),
        ("start = 30\n[[forks]]\nfrom = 10\nto = 9\n", "to"),
        ("start = 30\n[[forks]]\nfrom = 10\nto = 5\nmines = [11]\n", "mines"),
        ("start = 30\n[[forks]]\nfrom = 10\nto = 5\n[[forks]]\nfrom = 20\nto = 15\n", "overlap"),
        ("start = \n", "not valid TOML"),
    ],
)
def test_a_broken_board_file_names_the_file_and_the_problem(tmp_path, text, names):
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(DataError) as err:
        load_board(path)
    assert str(path) in str(err.value)
    assert names in str(err.value)


def test_a_missing_board_file_is_a_data_error_at_option_time(tmp_path):
    with pytest.raises(DataError, match="cannot be read"):
        GAME.check_options({"board": str(tmp_path / "nowhere.toml")})


def test_parse_board_needs_a_start():
    with pytest.raises(DataError, match="missing start"):
        parse_board({}, "here")


def test_catalog_holds_the_contracts_card_ids_and_the_five_no_effect_items():
    ids = {kind.id for kind in GAME.catalog()}
    contract = {f"damage-{n}" for n in range(1, 5)} | {f"push-{n}" for n in range(1, 4)}
    contract |= {"paralysis", "heal-1", "heal-2", "forward-1", "forward-2"}
    items = {
        "ancient-ceremony-plate",
        "invisibility-cape",
        "reflective-energy",
        "shield",
        "swap-effect",
    }
    assert contract | items <= ids
    assert {e.id for e in catalog().effects if e.no_effect_for_ai} == items
    fields = {kind.id: kind.fields for kind in GAME.catalog()}
    assert fields["relic"] == ("value", "combo")
    assert fields["loot"] == ("value",)


@pytest.mark.parametrize(
    ("data", "names"),
    [
        ({"effects": {"fire": {"name": "Fire", "group": "attack"}}}, "fire"),
        ({"effects": {"damage": {"name": "D", "group": "spell"}}}, "group"),
        ({"items": {"shield": {"name": "Shield", "short": "x" * 30}}}, "short"),
        ({"scoring": {"coin": {"name": "Coin"}}}, "coin"),
        ({"cards": {}}, "cards"),
    ],
)
def test_a_broken_catalog_names_the_problem(data, names):
    with pytest.raises(DataError, match=names):
        parse_catalog(data, "cards.toml")


def test_rule_tables_read_the_action_die_two_block_one_relic_three_cast():
    table = rules()
    assert [table.reading(f) for f in range(1, 7)] == [
        "block",
        "block",
        "relic",
        "cast",
        "cast",
        "cast",
    ]
    assert table.move("d4").free == 1 and table.move("d4-only").free == 0


def test_broken_rule_tables_name_the_key():
    data = read_toml(RULES_FILE)
    bad_die = {**data, "action_die": {"faces": 6, "block": [1, 2], "relic": [3], "cast": [4, 5]}}
    with pytest.raises(DataError, match="face 6 has no reading"):
        parse_rules(bad_die, "rules.toml")
    with pytest.raises(DataError, match="life"):
        parse_rules({**data, "life": "six"}, "rules.toml")
    with pytest.raises(DataError, match="relic_value"):
        parse_rules({**data, "ranges": {**data["ranges"], "relic_value": [5, 1]}}, "rules.toml")
