"""Configuration: the example equals the defaults; every error names the key and the value."""

import dataclasses
import subprocess
import sys
import tomllib
from importlib import resources

import pytest

from companion.core import config as configuration
from companion.errors import ConfigError


def test_the_commented_example_is_exactly_the_defaults():
    text = resources.files("companion.data").joinpath("config.example.toml").read_text()
    loaded = configuration.from_dict(tomllib.loads(text), "example")
    defaults = configuration.Config(source="example")
    assert loaded == defaults


@pytest.mark.parametrize(
    ("toml", "named"),
    [
        ("[buttons]\nred = 99\n", "buttons.red = 99"),
        ("[buttons]\nred = 5\n", ":2: buttons.red = 5: GPIO 5 is already used by buttons.up"),
        ('[buttons]\nok = "13"\n', 'buttons.ok = "13": must be a whole number'),
        ("[buttons]\ndebounce_ms = true\n", "buttons.debounce_ms = true: must be a number"),
        ("[led]\nbrightness = [1]\n", "led.brightness = [1]: must be a number"),
        ("[state]\ndir = 5\n", "state.dir = 5: must be text in quotes"),
        ('[reader]\ntype = "mfrc522"\n', ':2: reader.type = "mfrc522"'),
        ("[display]\nrotate = 5\n", "display.rotate = 5"),
        ("[buzzer]\nvolume = 2\n", ":2: buzzer.volume = 2: must be 0..1"),
        ("[bogus]\nx = 1\n", "unknown section [bogus]"),
        ('[phones]\nenabled = "yes"\n', 'phones.enabled = "yes": must be true or false'),
        ("[phones]\nenabled = 1\n", "phones.enabled = 1: must be true or false"),
        ("[phones]\nport = 80\n", "phones.port = 80: must be a TCP port 1024..65535 (the"),
        ("[phones]\nport = 70000\n", "phones.port = 70000: must be a TCP port 1024..65535"),
        ("[phones]\nport = 8080.5\n", "phones.port = 8080.5: must be a whole number"),
        ("[phones]\nopen = true\n", "unknown key phones.open"),
        ("[led]\nbrightnes = 1\n", "unknown key led.brightnes"),
        ("[buttons]\nup = 2\n", "buttons.up = 2: GPIO 2 and 3 are the display's I2C bus"),
        ("[hardware\n", "not valid TOML"),
        ("[led]\nred = " + "9" * 5000 + "\n", "a number of more than 4300 digits (line 2)"),
        ("x = " + "[" * 200_000 + "\n", "not valid TOML: it is nested too deep"),
    ],
)
def test_bad_values_name_key_and_value(tmp_path, toml, named):
    path = tmp_path / "config.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as err:
        configuration.load(path)
    assert named in str(err.value)
    assert str(path) in str(err.value)


NUMERIC_KEYS = [
    (section, f.name, f.type)
    for section, cls in configuration.SECTIONS.items()
    for f in dataclasses.fields(cls)
    if f.type in ("int", "float")
]


@pytest.mark.parametrize(("section", "key", "kind"), NUMERIC_KEYS)
@pytest.mark.parametrize("typed", [True, False])
def test_true_or_false_is_never_a_number_and_the_message_says_what_was_typed(
    tmp_path, section, key, kind, typed
):
    path = tmp_path / "config.toml"
    path.write_text(f"[{section}]\n{key} = {'true' if typed else 'false'}\n")
    with pytest.raises(ConfigError) as err:
        configuration.load(path)
    need = "a whole number" if kind == "int" else "a number"
    word = "true" if typed else "false"
    assert str(err.value) == f"{path}:2: {section}.{key} = {word}: must be {need}"


def test_phones_are_off_unless_turned_on(tmp_path):
    assert configuration.Config().phones == configuration.PhonesConfig(False, 8080)
    path = tmp_path / "config.toml"
    path.write_text("[phones]\nenabled = true\nport = 8443\n")
    assert configuration.load(path).phones == configuration.PhonesConfig(True, 8443)


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        configuration.load(tmp_path / "nope.toml")


def test_state_dir_prefers_config_then_systemd_then_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    absent = tmp_path / "not-installed"
    assert configuration.Config().state_dir(absent) == tmp_path / "xdg" / "trap-companion"
    installed = tmp_path / "var-lib"
    installed.mkdir()
    assert configuration.Config().state_dir(installed) == installed  # the daemon's, on a Pi
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/trap-companion")
    assert str(configuration.Config().state_dir(absent)) == "/var/lib/trap-companion"
    cfg = configuration.from_dict({"state": {"dir": str(tmp_path / "s")}})
    assert cfg.state_dir() == tmp_path / "s"


def test_config_check_command_exits_78_with_the_key(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[reader]\nremoval_seconds = 0\n")
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "config", "check", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 78
    assert f"{path}:2: reader.removal_seconds = 0: must be 0.1..5 seconds" in proc.stderr
    path.write_text('[reader]\ntype = "pn532"\nport = "/dev/ttyAMA0"\n')
    ok = subprocess.run(
        [sys.executable, "-m", "companion", "config", "check", str(path)],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert "ok" in ok.stdout
