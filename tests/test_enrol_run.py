"""Enrolling a deck: pick a kind once (with its values), then tap every copy in a row. The box
counts them; a tag already enrolled as something else is named, and changed only after a yes."""

import tomllib

import pytest

from companion.core.registry import Card
from companion.replay import run_script
from companion.ui.copies import FILL, NEW, OTHER, SAME, copy_verdict

TO_RUN = "game trap-attack\npress back\npress up\npress ok\n"  # the last entry: Enrol copies


def _cards(state):
    return tomllib.loads((state / "cards.toml").read_text())["cards"]


def test_a_run_enrols_each_new_tag_and_counts_them(tmp_path):
    out = run_script(
        TO_RUN + "press down\npress ok\ntap 04A1B2C3\ntap 04A1B2C4\n", state_dir=tmp_path
    )
    assert out[3]["screen"][0] == "Enrol copies of"
    assert out[5]["screen"][:3] == ["Damage 2", "0 copies enrolled", "tap each copy"]
    assert out[7]["screen"][:3] == ["Damage 2", "2 copies enrolled", "added 0004A1B2C4"]
    assert out[7]["sounds"] == ["card_ok"]
    cards = _cards(tmp_path)
    assert {uid: c["card"] for uid, c in cards.items()} == {
        "0004A1B2C3": "damage-2",
        "0004A1B2C4": "damage-2",
    }


def test_the_kinds_values_are_asked_once_for_the_whole_run(tmp_path):
    relic = "press up\npress up\n"  # from the first kind back round to the relic
    values = "press ok\npress up\npress up\npress ok\npress up\npress ok\n"
    out = run_script(TO_RUN + relic + values + "tap 11111111\ntap 22222222\n", state_dir=tmp_path)
    screens = [o["screen"] for o in out]
    assert screens[6][0] == "Relic" and screens[6][1].startswith("value")
    assert screens[-1][:3] == ["Relic", "value 2, combo 2", "2 copies enrolled"]
    cards = _cards(tmp_path)
    assert cards["0011111111"] | {"uid": 0} == cards["0022222222"] | {"uid": 0}
    assert (cards["0011111111"]["value"], cards["0011111111"]["combo"]) == (2, 2)


def test_a_tag_enrolled_as_something_else_changes_only_after_a_yes(tmp_path):
    setup = "game trap-attack\npress back\npress up\npress ok\npress ok\n"  # a run of Damage 1
    run_script(setup + "tap 04A1B2C3\n", state_dir=tmp_path)
    before = _cards(tmp_path)
    assert before["0004A1B2C3"]["card"] == "damage-1"
    other = setup.replace("press ok\npress ok\n", "press ok\npress down\npress ok\n")  # Damage 2
    out = run_script(other + "tap 04A1B2C3\npress red\n", state_dir=tmp_path)
    asked, kept = out[-2], out[-1]
    assert asked["screen"][0] == "Card 0004A1B2C3"
    assert "is Damage 1." in asked["screen"] and asked["screen"][-1] == "ok yes  back no"
    assert kept["screen"][:3] == ["Damage 2", "0 copies enrolled", "kept 0004A1B2C3"]
    assert _cards(tmp_path) == before  # no yes, no change
    out = run_script(other + "tap 04A1B2C3\npress ok\n", state_dir=tmp_path)
    assert out[-1]["screen"][:3] == ["Damage 2", "1 copy enrolled", "added 0004A1B2C3"]
    assert _cards(tmp_path)["0004A1B2C3"]["card"] == "damage-2"


def test_a_copy_tapped_twice_counts_once_and_back_ends_the_run(tmp_path):
    out = run_script(
        TO_RUN + "press ok\ntap 04A1B2C3\nwait 1\ntap 04A1B2C3\npress back\n", state_dir=tmp_path
    )
    assert out[-2]["screen"][:3] == ["Damage 1", "1 copy enrolled", "again 0004A1B2C3"]
    assert out[-1]["screen"][0].startswith("Trap Attack")


def test_tags_tapped_while_a_question_is_open_wait_for_its_answer(tmp_path):
    setup = "game trap-attack\npress back\npress up\npress ok\npress ok\n"  # a run of Damage 1
    run_script(setup + "tap 04A1B2C3\n", state_dir=tmp_path)
    other = setup.replace("press ok\npress ok\n", "press ok\npress down\npress ok\n")  # Damage 2
    taps = "tap 04A1B2C3\ntap 04A1B2C4\ntap 04A1B2C5\n"
    out = run_script(other + taps + "press red\n", state_dir=tmp_path)
    assert [o["screen"][0] for o in out[-4:-1]] == ["Card 0004A1B2C3"] * 3  # still asking
    assert out[-1]["screen"][:3] == ["Damage 2", "2 copies enrolled", "added 0004A1B2C5"]
    cards = _cards(tmp_path)
    assert cards["0004A1B2C3"]["card"] == "damage-1"  # the answer was no
    assert cards["0004A1B2C4"]["card"] == cards["0004A1B2C5"]["card"] == "damage-2"


@pytest.mark.parametrize(
    ("card", "verdict"),
    [
        (None, NEW),
        (Card("01", "deathtrap-dungeon", "orc", "Orc", {"value": 2}), SAME),
        (Card("01", "deathtrap-dungeon", "orc", "Orc 1"), FILL),  # a demo card: no value yet
        (Card("01", "deathtrap-dungeon", "orc", "Orc", {"value": 3}), OTHER),
        (Card("01", "deathtrap-dungeon", "goblin", "Goblin", {"value": 2}), OTHER),
        (Card("01", "trapwords", "orc", "Orc", {"value": 2}), OTHER),
    ],
)
def test_what_a_tapped_copy_is_to_a_run_of_orcs_worth_2(card, verdict):
    assert copy_verdict(card, "deathtrap-dungeon", "orc", {"value": 2}) == verdict


def test_a_copy_already_that_card_is_counted_with_no_question(tmp_path):
    """Issue 23, point 10: the demo deck's Orc tapped in a run of Orcs asked "is Orc. Make it
    Orc?"; it is that card: counted, and enrolled with the run's value."""
    to_orcs = "game deathtrap-dungeon\npress back\npress up\npress ok\npress down\npress ok\n"
    out = run_script(
        to_orcs + "press ok\ntap 00FA576492\nwait 1\ntap 04A1B2C3\n", state_dir=tmp_path
    )
    assert [o["screen"][0] for o in out[-3:]] == ["Orc", "Orc", "Orc"]  # never a question
    assert out[-3]["screen"][1:4] == ["value 2", "1 copy enrolled", "added 00FA576492"]
    assert out[-1]["screen"][2] == "2 copies enrolled"
    cards = _cards(tmp_path)
    assert cards["00FA576492"]["card"] == "orc" and cards["00FA576492"]["value"] == 2
