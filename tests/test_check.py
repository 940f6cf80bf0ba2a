"""`trap-companion check`: the self-test on simulated hardware. Every part passes on a working
box; each kind of broken part (missing, silent, wrong wire, stuck, busy) is a failed row with a
hint, never a crash; waiting for a person is an event wait, so a press ends it at once."""

from __future__ import annotations

import dataclasses
import errno
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from gpiozero import Button
from luma.core.error import DeviceNotFoundError, DevicePermissionError

from companion import cli
from companion.core.config import BUTTONS, Config, from_dict
from companion.core.registry import Card, Registry
from companion.errors import HardwareError
from companion.hal.display import open_device
from companion.hal.readers.base import make_driver
from companion.hal.readers.fake import PtyPort
from companion.pi import selftest
from companion.pi.selftest import FAIL, PASS, SKIPPED, SelfTest, SimulatedOperator

QUICK = 0.2  # seconds a question waits in tests where nobody answers


def config(**sections: dict) -> Config:
    return from_dict(sections) if sections else Config()


def run_check(
    cfg: Config,
    operator_class: type[SimulatedOperator] = SimulatedOperator,
    interactive: bool = True,
    timeout: float = QUICK,
    **overrides,
) -> tuple[dict[str, selftest.Result], SimulatedOperator]:
    with selftest.simulated(cfg) as (sim_config, parts, sim):
        operator = operator_class(sim.factory, sim.config, sim.device)
        parts = dataclasses.replace(parts, **overrides)
        results = SelfTest(sim_config, parts, operator, timeout, show_seconds=0.05).run(interactive)
    assert len(results) == 14  # one row a part, whatever happened
    return {r.part: r for r in results}, operator


def outcomes(rows: dict[str, selftest.Result]) -> dict[str, str]:
    return {part: r.outcome for part, r in rows.items()}


# --- a working box ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["rdm6300", "pn532"])
def test_every_part_passes_on_a_working_box(kind: str) -> None:
    rows, operator = run_check(config(reader={"type": kind}))
    assert set(outcomes(rows).values()) == {PASS}
    assert selftest.exit_status(list(rows.values())) == 0
    assert rows["pin factory"].detail.startswith("mock")
    uid = selftest.SIMULATED_UIDS[kind]
    assert rows["card"].detail.startswith(f"{uid}: not enrolled")
    assert operator.asked == [f"button:{b}" for b in BUTTONS] + [
        "led:red",
        "led:green",
        "led:blue",
        "tone",
        "card",
    ]


def test_the_pn532_firmware_version_is_reported() -> None:
    rows, _ = run_check(config(reader={"type": "pn532"}), interactive=False)
    assert "PN532 firmware 1.6" in rows["reader"].detail


class Watching(SimulatedOperator):
    """Notes what the LED pins and the buzzer pin do while a question is asked."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.seen: dict[str, tuple] = {}

    def ask(self, step: str, text: str) -> None:
        led = self.config.led
        if step.startswith("led:"):
            self.seen[step] = tuple(
                self.factory.pin(p).state for p in (led.red, led.green, led.blue)
            )
        if step == "tone":
            pin = self.factory.pin(self.config.buzzer.pin)
            self.seen[step] = (pin.frequency, pin.state)
        super().ask(step, text)


def test_each_colour_lights_its_own_pin_and_the_tone_sounds_while_asked() -> None:
    rows, operator = run_check(config(buzzer={"volume": 0.5}), Watching)
    assert operator.seen["led:red"] == (1, 0, 0)
    assert operator.seen["led:green"] == (0, 1, 0)
    assert operator.seen["led:blue"] == (0, 0, 1)
    frequency, duty = operator.seen["tone"]
    assert frequency == pytest.approx(880.0)  # A5
    assert duty == pytest.approx(0.25)  # half duty at volume 0.5
    assert rows["buzzer"].outcome == PASS


def test_a_press_from_another_thread_ends_the_wait_at_once() -> None:
    class Later(SimulatedOperator):
        def ask(self, step: str, text: str) -> None:
            if step == "button:green":
                threading.Timer(0.1, self.press, ("green",)).start()
            else:
                super().ask(step, text)

    started = time.monotonic()
    rows, _ = run_check(config(), Later, timeout=5.0)
    assert rows["button green"].outcome == PASS
    assert time.monotonic() - started < 3.0  # the 5 s timeout was never waited out


# --- buttons ---------------------------------------------------------------------------------


def test_a_dead_button_fails_after_the_timeout_and_the_others_pass() -> None:
    class SkipsRed(SimulatedOperator):
        def ask(self, step: str, text: str) -> None:
            if step != "button:red":
                super().ask(step, text)

    rows, _ = run_check(config(), SkipsRed)
    assert rows["button red"].outcome == FAIL
    assert "GPIO 21: no press within 0.2 s" in rows["button red"].detail
    assert all(rows[f"button {b}"].outcome == PASS for b in BUTTONS if b != "red")
    assert selftest.exit_status(list(rows.values())) == 1


def test_swapped_wires_name_the_button_that_answered() -> None:
    class Swapped(SimulatedOperator):
        def ask(self, step: str, text: str) -> None:
            if step == "button:up":
                self.press("down")
            else:
                super().ask(step, text)

    rows, _ = run_check(config(), Swapped)
    assert rows["button up"].outcome == FAIL
    assert "pressed instead: down (swapped wires?)" in rows["button up"].detail


def test_a_button_that_reads_pressed_before_it_is_asked_is_shorted() -> None:
    class Stuck(SimulatedOperator):
        def ask(self, step: str, text: str) -> None:
            super().ask(step, text)
            down = self.factory.pin(self.config.buttons.down)
            if step == "button:up":
                down.drive_low()
            elif step == "button:ok":
                down.drive_high()  # let go: gpiozero takes a second to close a held button

    rows, operator = run_check(config(), Stuck)
    assert rows["button down"].outcome == FAIL
    assert "reads pressed before anyone touched it" in rows["button down"].detail
    assert "button:down" not in operator.asked


def test_pins_held_by_another_program_fail_every_button_with_the_reason() -> None:
    with selftest.simulated(Config()) as (cfg, parts, operator):
        squatter = Button(cfg.buttons.ok, pin_factory=operator.factory)
        results = SelfTest(cfg, parts, operator, QUICK, show_seconds=0.05).run()
        squatter.close()
    rows = {r.part: r for r in results}
    assert all(rows[f"button {b}"].outcome == FAIL for b in BUTTONS)
    assert "sudo systemctl stop trap-companion" in rows["button up"].detail
    assert rows["LED red"].outcome == SKIPPED  # nobody can confirm without ok and back


# --- LED and buzzer --------------------------------------------------------------------------


def test_back_on_a_colour_fails_it() -> None:
    class NoGreen(SimulatedOperator):
        def ask(self, step: str, text: str) -> None:
            if step == "led:green":
                self.press("back")
            else:
                super().ask(step, text)

    rows, _ = run_check(config(), NoGreen)
    assert rows["LED green"].outcome == FAIL
    assert "GPIO 27: not green" in rows["LED green"].detail
    assert rows["LED red"].outcome == rows["LED blue"].outcome == PASS


def test_no_answer_about_the_tone_skips_it() -> None:
    class Silent(SimulatedOperator):
        def ask(self, step: str, text: str) -> None:
            if step != "tone":
                super().ask(step, text)

    rows, _ = run_check(config(), Silent)
    assert rows["buzzer"].outcome == SKIPPED
    assert rows["buzzer"].detail == "no answer within 0.2 s"


def test_without_ok_and_back_the_colours_and_tone_are_only_shown() -> None:
    class NoOk(SimulatedOperator):
        def ask(self, step: str, text: str) -> None:
            self.asked.append(step)
            if step.startswith("button:") and step != "button:ok":
                self.press(step.partition(":")[2])
            elif step == "card":
                self.tap(self.uid)

    rows, operator = run_check(config(), NoOk)
    assert rows["button ok"].outcome == FAIL
    for part in ("LED red", "LED green", "LED blue", "buzzer"):
        assert rows[part].outcome == SKIPPED
        assert "not confirmed" in rows[part].detail
    assert "led:red" in operator.asked  # still shown, so a person can look


def test_a_silent_buzzer_setting_skips_the_tone() -> None:
    rows, operator = run_check(config(buzzer={"volume": 0.0}))
    assert rows["buzzer"].outcome == SKIPPED
    assert "tone" not in operator.asked


# --- display ---------------------------------------------------------------------------------


def _raises(err: Exception):
    def make():
        raise err

    return make


@pytest.mark.parametrize(
    ("error", "hint"),
    [
        (DeviceNotFoundError("I2C device not found: /dev/i2c-1"), "is I2C on?"),
        (DevicePermissionError("I2C device permission denied: /dev/i2c-1"), "i2c group"),
        (OSError(errno.EREMOTEIO, "Remote I/O error"), "i2cdetect -y 1"),
    ],
)
def test_a_missing_display_fails_its_row_with_a_hint_and_the_rest_runs(error, hint) -> None:
    rows, operator = run_check(config(), display=_raises(error))
    assert rows["display"].outcome == FAIL
    assert hint in rows["display"].detail
    assert rows["card"].outcome == PASS
    assert len(operator.asked) == 11


def test_a_display_that_opens_but_cannot_be_written_fails() -> None:
    class WriteFails:
        width, height, persist = 128, 64, False

        def display(self, image) -> None:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")

        def cleanup(self) -> None:
            pass

    rows, _ = run_check(config(), display=WriteFails)
    assert rows["display"].outcome == FAIL
    assert "opened, but a write failed" in rows["display"].detail


def test_the_check_shows_its_questions_and_verdict_on_the_display() -> None:
    shown: list = []
    device = open_device("dummy")
    original = device.display
    device.display = lambda image: (shown.append(image.copy()), original(image))
    rows, _ = run_check(config(), display=lambda: device)
    assert rows["display"].outcome == PASS
    assert len(shown) >= 12  # the opening screen, a question a step, the card, the verdict
    assert device.persist  # the verdict stays on the panel after the check


# --- reader and card -------------------------------------------------------------------------


def test_a_missing_reader_port_fails_the_reader_and_skips_the_card() -> None:
    missing = lambda: make_driver("rdm6300", "/dev/ttyNOWHERE")  # noqa: E731
    rows, operator = run_check(config(), reader=missing)
    assert rows["reader"].outcome == FAIL
    assert "is the UART on?" in rows["reader"].detail
    assert rows["card"].outcome == SKIPPED
    assert "card" not in operator.asked


def test_a_pn532_that_does_not_answer_fails_the_reader() -> None:
    with PtyPort() as port:  # a port with nothing on the other end
        silent = lambda: make_driver("pn532", port.path)  # noqa: E731
        rows, _ = run_check(config(reader={"type": "pn532"}), interactive=False, reader=silent)
    assert rows["reader"].outcome == FAIL
    assert "no answer to SAMConfiguration" in rows["reader"].detail


def test_no_card_within_the_timeout_fails_the_card() -> None:
    class NoCard(SimulatedOperator):
        def ask(self, step: str, text: str) -> None:
            if step != "card":
                super().ask(step, text)

    rows, _ = run_check(config(), NoCard)
    assert rows["card"].outcome == FAIL
    assert "no card read within 0.2 s (it reads 125 kHz tags" in rows["card"].detail


def test_an_enrolled_card_is_named(tmp_path: Path) -> None:
    registry = Registry(tmp_path / "cards.toml")
    uid = selftest.SIMULATED_UIDS["rdm6300"]
    registry.enrol(Card(uid, "trap-attack", "damage-2", "Damage 2"))
    rows, _ = run_check(config(), registry=lambda: Registry(tmp_path / "cards.toml"))
    assert rows["card"].detail == f"{uid}: enrolled as Damage 2 (trap-attack)"


def test_an_unreadable_registry_still_passes_the_card_and_says_why(tmp_path: Path) -> None:
    bad = tmp_path / "cards.toml"
    bad.write_text("this is [not toml")
    rows, _ = run_check(config(), registry=lambda: Registry(bad))
    assert rows["card"].outcome == PASS
    assert "enrolment unknown" in rows["card"].detail and str(bad) in rows["card"].detail


# --- pins, parts the config leaves out, non-interactive ---------------------------------------


def test_no_gpio_backend_fails_the_factory_and_skips_every_gpio_part() -> None:
    def no_gpio():
        raise HardwareError("hardware.pin_factory = 'auto': no GPIO backend works here")

    rows, operator = run_check(config(), pin_factory=no_gpio)
    assert rows["pin factory"].outcome == FAIL
    assert "no GPIO backend works here" in rows["pin factory"].detail
    gpio_parts = [f"button {b}" for b in BUTTONS] + ["LED red", "LED green", "LED blue", "buzzer"]
    assert all(rows[p].outcome == SKIPPED for p in gpio_parts)
    assert rows["card"].outcome == PASS
    assert operator.asked == ["card"]


def test_parts_the_config_leaves_out_are_skipped() -> None:
    rows, operator = run_check(config(display={"driver": "none"}, reader={"type": "none"}))
    assert rows["display"].outcome == rows["reader"].outcome == rows["card"].outcome == SKIPPED
    assert selftest.exit_status(list(rows.values())) == 0
    assert "card" not in operator.asked


def test_non_interactive_asks_nothing() -> None:
    rows, operator = run_check(config(), interactive=False)
    assert operator.asked == []
    assert [p for p, o in outcomes(rows).items() if o != SKIPPED] == [
        "pin factory",
        "display",
        "reader",
    ]
    assert all(r.detail == selftest.NOT_ASKED for r in rows.values() if r.outcome == SKIPPED)


# --- the table, the exit status, where the registry is ---------------------------------------


def test_the_table_has_a_row_a_part_in_aligned_columns_and_totals() -> None:
    results = [
        selftest.Result("pin factory", PASS, "lgpio"),
        selftest.Result("button up", FAIL, "GPIO 5: no press"),
        selftest.Result("buzzer", SKIPPED),
    ]
    lines = selftest.format_table(results).splitlines()
    assert lines[0].split() == ["part", "result", "detail"]
    assert lines[2] == "pin factory  pass     lgpio"
    assert lines[3] == "button up    fail     GPIO 5: no press"
    assert lines[4] == "buzzer       skipped"
    assert lines[-1] == "1 passed, 1 failed, 1 skipped"
    assert selftest.exit_status(results) == 1
    assert selftest.exit_status(results[::2]) == 0


def test_the_installed_registry_is_used_when_the_config_names_no_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    installed = tmp_path / "var-lib"
    installed.mkdir()
    assert selftest.registry_path(Config(), installed) == installed / "cards.toml"
    own = config(state={"dir": str(tmp_path / "mine")})
    assert selftest.registry_path(own, installed) == tmp_path / "mine" / "cards.toml"
    # No installed dir: the user's own (not Config().state_dir(), which on a machine with the
    # box installed, a Pi running the tests, is that box's /var/lib/trap-companion).
    assert selftest.registry_path(Config(), tmp_path / "absent") == Config.user_state_dir() / (
        "cards.toml"
    )
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "systemd"))
    assert selftest.registry_path(Config(), installed) == tmp_path / "systemd" / "cards.toml"


# --- the command -----------------------------------------------------------------------------


def test_check_simulate_passes_and_prints_the_table(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["check", "--simulate", "--timeout", "5"]) == 0
    out = capsys.readouterr().out
    assert "> Press UP within 5 s" in out
    assert "14 passed, 0 failed, 0 skipped" in out


def test_check_non_interactive_on_a_box_without_its_reader_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        '[hardware]\npin_factory = "mock"\n[display]\ndriver = "dummy"\n'
        f'[reader]\nport = "{tmp_path}/ttyNONE"\n[state]\ndir = "{tmp_path}"\n'
    )
    assert cli.main(["check", "--config", str(cfg), "--non-interactive"]) == 1
    out = capsys.readouterr().out
    table = out.split("\n\n")[-1].splitlines()
    assert table[2].split()[:3] == ["pin", "factory", "pass"]
    assert table[4].split()[:2] == ["reader", "fail"]
    assert table[-1] == "2 passed, 1 failed, 11 skipped"


def test_check_with_a_bad_config_exits_78(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("[led]\nred = 99\n")
    assert cli.main(["check", "--config", str(cfg)]) == 78
    assert "led.red = 99" in capsys.readouterr().err


def test_check_refuses_a_timeout_of_zero(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["check", "--simulate", "--timeout", "0"]) == 2
    assert "--timeout" in capsys.readouterr().err


def test_the_installed_command_runs_the_simulated_check_without_a_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "check", "--simulate"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("14 passed, 0 failed, 0 skipped")
    assert "Traceback" not in proc.stderr


# --- what the guide and the installer promise -------------------------------------------------

REPO = Path(__file__).resolve().parent.parent


def _check_section() -> str:
    guide = (REPO / "docs" / "raspberry-pi.md").read_text()
    return guide.split("## 4. Check the box", 1)[1].split("\n## ", 1)[0]


def test_the_guide_describes_every_option_and_every_part_of_the_check() -> None:
    section = _check_section()
    check_parser = cli.build_parser()._subparsers._group_actions[0].choices["check"]
    options = [o for a in check_parser._actions for o in a.option_strings if o.startswith("--")]
    for option in options:
        if option != "--help":
            assert f"`{option}" in section, option
    for part in ("pin factory", "display", "reader", "buttons", "LED", "buzzer", "card"):
        assert f"**{part}**" in section, part
    for button in BUTTONS:
        assert button.upper() in section
    assert f"within {selftest.TIMEOUT:g} seconds" in section
    assert f"shown for {selftest.SHOW_SECONDS:g} seconds" in section
    assert "0 when nothing failed, 1 when something\ndid, 78" in section


def test_the_installers_closing_words_match_what_check_asks() -> None:
    script = (REPO / "systemd" / "install.sh").read_text()
    closing = script.rsplit("Next: test every part of the box", 1)[1]
    assert "systemctl stop $NAME && sudo $NAME check; sudo systemctl start $NAME" in closing
    with selftest.simulated(Config()) as (cfg, parts, operator):
        SelfTest(cfg, parts, operator, 5.0).run()
    kinds = {step.partition(":")[0] for step in operator.asked}
    assert kinds == {"button", "led", "tone", "card"}
    for words in ("each button", "lights the LED", "plays a tone", "waits for a card"):
        assert words in closing
