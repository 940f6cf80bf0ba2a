"""The box's own flows, driven by buttons and cards as a person would (through replay)."""

from companion.core.config import Config, StateConfig
from companion.core.registry import Registry
from companion.games import registry as games
from companion.games.base import Action
from companion.replay import run_script


def test_from_power_on_the_menu_picks_a_game_and_its_options():
    out = run_script("wait 0\npress ok\npress ok\npress green\npress green\n")
    assert out[0]["game"] is None
    assert out[0]["screen"][0] == "Choose a game"
    assert out[1]["screen"][0] == "Dice"  # options of the first game
    assert "Die: d6" in " ".join(out[1]["screen"])
    assert "Die: 2d6" in " ".join(out[2]["screen"])  # ok cycles d6 -> 2d6 -> d4
    assert out[3]["game"] == "dice"
    assert out[3]["state"]["die"] == "2d6"
    assert len(out[4]["state"]["last"]) == 2


def test_back_opens_the_game_menu_and_back_again_resumes():
    out = run_script("game dice\npress back\npress back\npress green\n")
    assert "Resume" in " ".join(out[1]["screen"])
    assert out[2]["screen"][0].startswith("Dice")
    assert out[3]["state"]["history"]


def test_an_unknown_card_can_be_enrolled_with_the_buttons(tmp_path):
    cfg_dir = tmp_path / "state"
    config = Config(state=StateConfig(dir=str(cfg_dir)))
    # enrol the tag as the first kind in a card game's catalog, answering any values with ok
    game = "trapwords" if "trapwords" in games.available() else "trap-attack"
    first = games.get(game).catalog()[0]
    ups = "press ok\n" * (len(first.fields) + 1)
    out = run_script(f"game {game}\ntap 0A0B0C0D0E\npress green\n{ups}", config=config)
    assert out[1]["sounds"] == ["card_unknown"]
    assert "0A0B0C0D0E" in " ".join(out[1]["screen"])
    assert out[2]["screen"][0] == "Enrol 0A0B0C0D0E"
    assert any("enrolled 0A0B0C0D0E" in line for o in out for line in o["log"])
    registry = Registry(cfg_dir / "cards.toml")
    assert registry.lookup("0A0B0C0D0E").card == first.id


def test_table_dice_are_entered_with_up_down_ok():
    out = run_script(
        "game dice die=2d6\npress back\n"
        + "press down\n" * 4
        + "press ok\npress green\npress up\npress up\npress ok\npress up\npress ok\n"
    )
    assert any("dice now come from the table's dice" in line for o in out for line in o["log"])
    entry = [o for o in out if o["screen"][0] == "Enter d6"]
    assert entry, "the box should ask for the faces"
    assert out[-1]["state"]["last"] == [3, 2]


def test_undo_with_nothing_to_undo_is_refused_with_a_reason():
    out = run_script("game dice\nhold back 1.5\n")
    assert out[1]["rejected"] == "nothing to undo"


def test_damaged_saved_data_is_set_aside_and_the_box_still_starts(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "cards.toml").write_text("this is [not toml\n")
    (state / "journal.jsonl").write_text("garbage\n")
    config = Config(state=StateConfig(dir=str(state)))
    out = run_script("wait 0\nwait 5\ngame dice\npress green\n", config=config)
    assert "Card list unreadable" in out[0]["screen"]
    assert out[1]["screen"][0] == "Choose a game"  # the notice goes after a few seconds
    assert out[3]["state"]["history"]
    assert len(list(state.glob("cards.toml.unreadable-*"))) == 1
    assert len(list(state.glob("journal.jsonl.unreadable-*"))) == 1


def test_shutdown_leaves_a_stopped_screen_and_the_led_off(tmp_path):
    from companion.sim.box import SimulatedBox

    box = SimulatedBox(Config(), state_dir=tmp_path)
    box.app.start()
    box.app.new_game("dice", {})
    device = box.app.display.device
    led = box.app.led.device
    box.app.shutdown()
    assert box.app.display.lines == ["Trap Companion", "Stopped"]
    assert device.persist is True  # luma's cleanup keeps the last frame lit
    assert led.closed
    assert box.app.journal._fd is None
    box.device.close()
    box.port.close()
    box.factory.reset()


def test_a_number_option_takes_any_value_with_a_long_press_on_ok():
    presses = "press down\n" * 2 + "press ok\npress down\nhold ok 1.2\n"
    presses += "hold up 1.2\npress up\npress up\npress down\npress ok\npress green\n"
    out = run_script("wait 0\n" + presses)
    editing = [o for o in out if o["screen"][0] == "Turn time"]
    assert editing and editing[0]["screen"][1] == "45"
    assert out[-1]["game"] == "trapwords"
    assert out[-1]["state"]["timer"]["limit"] == 56


def test_after_a_power_cut_mid_turn_later_actions_fold_to_what_the_table_saw(tmp_path):
    """The app's pause after a cut is journaled, so a rebuild pauses at the same moment."""
    config = Config(state=StateConfig(dir=str(tmp_path)))
    run_script("game trapwords start_mode=pickup\npress ok\nwait 12.5\n", config=config)
    # restart: paused; a wrong guess while paused, then resume and a few seconds
    live = run_script("wait 5\npress red\npress ok\nwait 3.2\n", config=config)
    again = run_script("wait 0\n", config=config)  # a third start rebuilds all of it
    assert live[1]["state"]["timer"]["running"] is False
    assert live[-1]["state"]["guesses_left"] == again[0]["state"]["guesses_left"] == 4
    # A clean stop journals the pause as the screen showed it: the next start has that time.
    assert live[-1]["state"]["timer"]["remaining"] == again[0]["state"]["timer"]["remaining"]
    assert again[0]["state"]["timer"]["running"] is False


START_ROLL = "dice 6 1\ndo first_player\n"  # Trap Attack's roll for who starts, answered


def test_table_dice_are_named_by_the_game():
    menu_to_dice = "press back\n" + "press down\n" * 4 + "press ok\n"
    out = run_script(
        "game trap-attack\n"
        + START_ROLL
        + menu_to_dice
        + "press green\npress ok\n"
        + "press up\n" * 2
    )
    assert out[9]["screen"][:3] == ["AI move die", "1", "die 1 of 2"]
    assert out[-1]["screen"][:3] == ["AI action die", "3", "3 = Relic"]


def test_a_card_tap_clears_an_old_notice_at_once():
    out = run_script("game dice\ndo reroll\ntap 8EC793\n")
    assert out[1]["screen"][0] == "Not allowed"
    assert "Not allowed" not in out[2]["screen"]
    assert out[2]["leds"]["led"] != [1.0, 0.0, 0.0]


def test_a_refusal_lights_red_and_a_later_notice_does_not(tmp_path):
    """On the live box nothing clears replay's ``rejected``: the colour goes with the notice."""
    from companion.sim.box import SimulatedBox

    box = SimulatedBox(Config(), state_dir=tmp_path)
    try:
        box.app.start()
        box.app.new_game("dice", {})
        box.app.submit(Action("reroll"))
        assert box.app.current()[1].color == (1.0, 0.0, 0.0)
        box.advance(3)
        box.tap("8EC793")  # an unknown card's notice
        screen, lights = box.app.current()
        assert "Unknown card" in screen.text_lines()[1]
        assert lights.color != (1.0, 0.0, 0.0)
    finally:
        box.close()


def test_the_daemon_keeps_no_replay_record_so_a_long_session_does_not_grow(tmp_path):
    from companion.app import App, Parts
    from companion.core.clock import VirtualClock
    from companion.hal.display import Display, open_device
    from companion.hal.pins import make_factory

    factory = make_factory("mock")
    app = App(
        Config().simulated(tmp_path),
        VirtualClock(),
        Parts(factory, Display(lambda: open_device("dummy"))),
    )
    try:
        app.start()
        app.new_game("dice", {})
        for _ in range(50):
            app.submit(Action("roll"))
        assert len(app.session.steps) == 50
        assert app.logs == [] and app.sounds == []
    finally:
        app.shutdown()
        factory.reset()
        factory.close()
