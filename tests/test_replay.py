"""The replay contract (../shared/notes/replay.md), checked from outside as a user would."""

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import UsageError
from companion.games.base import decimal_number, whole_number
from companion.replay import _number, run_script

KEYS = {"line", "t", "game", "state", "screen", "leds", "sounds", "log"}


def _cli(args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "companion", "replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_every_directive_line_prints_one_object_with_the_contract_keys():
    out = run_script("# a comment\n\ngame dice\npress green\nwait 2\ndice 3\ndo roll\n")
    assert [o["line"] for o in out] == [3, 4, 5, 6, 7]
    for obj in out:
        assert obj.keys() >= KEYS
    assert out[1]["t"] == 0.05
    assert out[2]["t"] == 2.05
    assert out[4]["state"]["last"] == [3]
    assert out[4]["sounds"] == ["roll"]
    assert out[4]["log"] == ["d6: 3"]


def test_same_script_and_seed_give_identical_output_and_the_seed_matters():
    script = "game dice die=2d6\n" + "press green\n" * 20
    a = [json.dumps(o) for o in run_script(script, seed=7)]
    b = [json.dumps(o) for o in run_script(script, seed=7)]
    c = [json.dumps(o) for o in run_script(script, seed=8)]
    assert a == b
    assert a != c


def test_game_option_and_dice_state_keys():
    out = run_script("dice 2 2 1 3\npress green\npress red\n", game="dice", sets=["die=2d6"])
    assert out[1]["state"]["doubles"] is True
    assert "DOUBLE" in " ".join(out[1]["screen"])
    state = out[-1]["state"]
    assert state["die"] == "2d6"
    assert state["history"] == [[2, 2], [1, 3]]
    assert state["last"] == [1, 3]
    assert state["doubles"] is False
    assert state["counts"] == {"1": 1, "2": 2, "3": 1}


def test_a_refused_action_is_rejected_and_the_state_is_unchanged():
    out = run_script("game dice\ndo reroll\npress green\n")
    assert out[1]["rejected"] == "nothing to roll again yet"
    assert out[1]["state"] == out[0]["state"]
    assert "error" in out[1]["sounds"]
    assert "rejected" not in out[2]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("game dice\nfly away\n", "line 2: unknown directive 'fly'"),
        ("game dice\npress purple\n", "line 2: unknown button 'purple'"),
        ("game chess\n", "line 1: unknown game 'chess'"),
        ("game dice die=d20\n", "line 1: die='d20'"),
        ("game dice\ndo jump\n", "line 2: dice has no action 'jump'"),
        ("game dice\nwait soon\n", "line 2: wait 'soon' is not a number"),
        ("game dice\ntap XYZ\n", "line 2: card UID 'XYZ' is not hexadecimal"),
        ("game dice\ntap @nothing\n", "line 2: no card is registered as 'nothing'"),
        # What was typed is named, never an internal name ("no option 'id'", "'nothing'").
        ("game dice extra\n", "line 1: game dice: 'extra' is not KEY=VALUE (options: die)"),
        ("game dice die\n", "line 1: game dice: 'die' is not KEY=VALUE (options: die)"),
        ("game dice\npress\n", "line 2: press needs a BUTTON (up, down"),
        ("game dice\npress up down\n", "line 2: press takes one BUTTON, got 'up down'"),
        ("game dice\ndo roll extra\n", "line 2: do roll: 'extra' is not KEY=VALUE"),
    ],
)
def test_bad_lines_name_the_line(script, message):
    with pytest.raises(UsageError) as err:
        run_script(script)
    assert message in str(err.value)


NOT_ASCII_NUMBERS = [
    ("game dice\ndice \u00b2\n", "line 2: die value '\u00b2' is not a face"),
    ("game dice\ndice \u0663\n", "line 2: die value '\u0663' is not a face"),
    ("game dice\ndice 3 +4\n", "line 2: die value '+4' is not a face"),
    ("game dice\nwait \u0663\n", "line 2: wait '\u0663' is not a number"),
    ("game dice\nwait 1e3\n", "line 2: wait '1e3' is not a number"),
    ("game dice\nwait nan\n", "line 2: wait 'nan' is not a number"),
    ("game dice\nwait 1_0\n", "line 2: wait '1_0' is not a number"),
    ("game dice\nhold green \u00bd\n", "line 2: hold time '\u00bd' is not a number"),
    ("game dice\nhold green \u0663\n", "line 2: hold time '\u0663' is not a number"),
    (
        "game trap-attack\ndice 6 1\ndo first_player\ndo damage player=1 amount=\u0663\n",
        "line 4: amount='\u0663'",
    ),
    ("game trapwords seconds=\u0664\u0665\n", "line 1: seconds='\u0664\u0665'"),
    ("game trapwords rooms=\u0663,4,5\n", "line 1: rooms='\u0663,4,5'"),
    ("game trapwords curses=\u0664\n", "line 1: curses='\u0664'"),
]


@pytest.mark.parametrize(("script", "message"), NOT_ASCII_NUMBERS)
def test_only_ascii_digits_are_numbers_in_scripts(script, message):
    with pytest.raises(UsageError) as err:
        run_script(script)
    assert message in str(err.value)


@given(st.text(max_size=6))
def test_a_number_in_a_script_is_ascii_digits_or_a_clear_refusal(text):
    whole, decimal = whole_number(text), decimal_number(text)
    assert (whole is not None) == (re.fullmatch(r"-?[0-9]+", text) is not None)
    if decimal is not None:
        assert set(text) <= set("0123456789.") and decimal == float(text)
    try:
        assert _number(text, "wait") == decimal
    except UsageError as err:
        assert repr(text) in str(err)


def test_a_superscript_die_value_exits_2_naming_the_line():
    proc = _cli(["-"], stdin="game dice\ndice \u00b2\npress green\n")
    assert proc.returncode == 2, proc.stderr
    assert "line 2: die value '\u00b2' is not a face" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stdout.splitlines()) == 1


def test_cli_prints_lines_before_the_bad_one_and_exits_2():
    proc = _cli(["-"], stdin="game dice\npress green\nhold green\n")
    assert proc.returncode == 2
    assert len(proc.stdout.splitlines()) == 2
    assert "line 3" in proc.stderr


def test_cli_missing_script_exits_2_with_a_clear_message(tmp_path):
    proc = _cli([str(tmp_path / "none.txt")])
    assert proc.returncode == 2
    assert "no such script file" in proc.stderr


def test_an_unknown_card_is_named_with_its_sound():
    out = run_script("game dice\ntap 8EC793\n")
    assert "Unknown card" in out[1]["screen"][0] or "Unknown card" in " ".join(out[1]["screen"])
    assert "00008EC793" in " ".join(out[1]["screen"])
    assert out[1]["sounds"][0] == "card_unknown"
    assert out[1]["t"] == pytest.approx(0.3)


def test_a_card_left_on_the_reader_taps_once():
    out = run_script("game dice\ntap 8EC793\ntap 8EC793\nwait 1\ntap 8EC793\n")
    assert out[1]["sounds"] == ["card_unknown"]
    assert out[2]["sounds"] == []  # still lying there: the silence had not passed
    assert out[4]["sounds"] == ["card_unknown"]


def test_long_back_asks_then_undoes_the_last_roll():
    out = run_script("game dice\ndice 5 2\npress green\npress green\nhold back 1.2\npress green\n")
    assert out[3]["state"]["history"] == [[5], [2]]
    assert out[4]["screen"][0] == "Undo?"
    assert out[5]["state"]["history"] == [[5]]
    assert "undo" in out[5]["sounds"]


def test_the_journal_resumes_a_game_in_a_named_state_dir(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[state]\ndir = "{tmp_path}/state"\n')
    first = _cli(["-", "--config", str(cfg)], stdin="game dice die=d4\ndice 3\npress green\n")
    assert first.returncode == 0, first.stderr
    second = _cli(["-", "--config", str(cfg)], stdin="wait 1\n")
    resumed = json.loads(second.stdout.splitlines()[0])
    assert resumed["game"] == "dice"
    assert resumed["state"]["die"] == "d4"
    assert resumed["state"]["history"] == [[3]]


def test_taps_of_the_same_card_again_and_again_are_each_one_tap_and_repeatable():
    script = (
        "game dice\n"
        + "tap 0102030405\nwait 3\n" * 3
        + "tap 0A0B0C0D0E\ntap 0A0B0C0D0E\nwait 1\ntap 0102030405\nwait 3\n"
    )
    runs = [[json.dumps(o) for o in run_script(script)] for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    taps = [json.loads(o)["sounds"].count("card_unknown") for o in runs[0]]
    assert taps == [0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0]


@pytest.mark.parametrize("reader", ["rdm6300", "pn532"])
def test_a_resumed_box_hears_a_tap_on_its_very_first_line(tmp_path, reader):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[reader]\ntype = "{reader}"\n[state]\ndir = "{tmp_path}/state"\n')
    first = _cli(["-", "--config", str(cfg)], stdin="game dice\n")
    assert first.returncode == 0, first.stderr
    second = _cli(["-", "--config", str(cfg)], stdin="tap 04A1B2C3\n")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["sounds"] == ["card_unknown"]


def test_a_pn532_uid_of_a_length_no_card_has_is_a_script_error():
    with pytest.raises(UsageError, match=r"line 2: .*4, 7 or 10 bytes"):
        run_script("game dice\ntap 0A0B0C0D0E\n", config=_pn532())


def _pn532():
    from companion.core.config import Config, ReaderConfig

    return Config(reader=ReaderConfig(type="pn532"))


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("game dice\ndo roll dye=d4\n", "'roll' has no argument 'dye' (it takes die)"),
        ("game dice\ndo reroll now\n", "do reroll: 'now' is not KEY=VALUE ('reroll' takes no"),
        ("game trapwords\ndo start bogus=1\n", "'start' has no argument 'bogus'"),
        ("game trap-attack\ndo ai_turn bogus=1\n", "'ai_turn' has no argument 'bogus'"),
    ],
)
def test_an_argument_the_action_does_not_take_stops_the_script(script, message):
    with pytest.raises(UsageError) as err:
        run_script(script)
    assert f"line 2: {message}" in str(err.value)
