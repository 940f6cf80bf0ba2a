"""hardware/: the wiring guide, the drawing and the parts list agree with the default config."""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
HARDWARE = ROOT / "hardware"
CONFIG = ROOT / "companion" / "data" / "config.example.toml"
# The 40-pin header, written out here independently of gpiozero and of the generator.
HEADER_PIN_OF_GPIO = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19,
    9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35,
    16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_diagram", HARDWARE / "make_diagram.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_generator()


def config() -> dict:
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))


def guide_rows() -> list[tuple[int, str, str, str]]:
    """(header pin, pin name, goes to, config key) for each row of the guide's pin table."""
    rows = []
    for line in (HARDWARE / "wiring.md").read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"\| (\d+) \| (\w+) \| ([^|]+) \| (?:`([\w.]+)`|—) \|", line)
        if match:
            pin, name, goes_to, key = match.groups()
            rows.append((int(pin), name, goes_to.strip(), key or ""))
    return rows


def test_the_guide_table_matches_the_default_config() -> None:
    cfg = config()
    rows = guide_rows()
    assert rows, "no pin table found in hardware/wiring.md"
    gpio_rows = {key: [] for *_, key in rows if key}
    for pin, name, _, key in rows:
        if key:
            gpio = int(name.removeprefix("GPIO"))
            assert HEADER_PIN_OF_GPIO[gpio] == pin, f"GPIO {gpio} is header pin {pin}?"
            gpio_rows[key].append(gpio)
    expected = {f"buttons.{b}": [cfg["buttons"][b]] for b in cfg["buttons"] if "_" not in b}
    expected |= {f"led.{c}": [cfg["led"][c]] for c in ("red", "green", "blue")}
    expected["buzzer.pin"] = [cfg["buzzer"]["pin"]]
    assert cfg["display"]["i2c_port"] == 1  # bus 1 is SDA GPIO 2, SCL GPIO 3
    expected["display.i2c_port"] = [2, 3]
    assert cfg["reader"]["port"] == "/dev/serial0"  # the primary UART: TX 14, RX 15
    expected["reader.port"] = [14, 15]
    assert {k: sorted(v) for k, v in gpio_rows.items()} == expected


def test_power_rows_go_to_power_pins() -> None:
    signal_pins = set(HEADER_PIN_OF_GPIO.values())
    for pin, name, goes_to, key in guide_rows():
        if not key:
            assert pin not in signal_pins and name in ("3V3", "5V", "GND"), (pin, goes_to)
    assert "5V" not in {name for _, name, goes_to, _ in guide_rows() if "OLED" in goes_to}


def test_the_guide_and_the_drawing_are_what_the_generator_makes(generator: ModuleType) -> None:
    assert generator.main(["--check"]) == 0, "run: .venv/bin/python hardware/make_diagram.py"
    wires = generator.wires(config())
    assert (HARDWARE / "wiring.svg").read_text(encoding="utf-8") == generator.svg(wires, config())


def test_a_changed_pin_makes_the_check_fail(generator: ModuleType, tmp_path: Path) -> None:
    moved = CONFIG.read_text(encoding="utf-8").replace("up = 5\n", "up = 12\n")
    assert moved != CONFIG.read_text(encoding="utf-8")
    (tmp_path / "config.toml").write_text(moved)
    svg, guide = tmp_path / "wiring.svg", tmp_path / "wiring.md"
    svg.write_text((HARDWARE / "wiring.svg").read_text(encoding="utf-8"))
    guide.write_text((HARDWARE / "wiring.md").read_text(encoding="utf-8"))
    args = ["--config", str(tmp_path / "config.toml"), "--svg", str(svg), "--guide", str(guide)]
    assert generator.main([*args, "--check"]) == 1
    assert generator.main(args) == 0
    assert "| 32 | GPIO12 | Button up | `buttons.up` |" in guide.read_text()
    assert "Button up" in svg.read_text()
    assert generator.main([*args, "--check"]) == 0


def test_two_parts_on_one_pin_are_refused(generator: ModuleType) -> None:
    cfg = config()
    cfg["led"]["red"] = cfg["buttons"]["ok"]
    with pytest.raises(ValueError, match=r"two wires on header pin\(s\) \[33\]"):
        generator.wires(cfg)


def test_the_drawing_is_valid_svg_with_every_signal() -> None:
    root = ET.parse(HARDWARE / "wiring.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    for label in ("OLED SDA", "OLED SCL", "Button green", "Button red", "Buzzer NPN base via 1 kΩ"):
        assert label in texts
    assert {str(n) for n in range(1, 41)} <= texts  # every header pin is numbered


def test_the_parts_list_names_a_concrete_part_for_each_job() -> None:
    parts = (HARDWARE / "parts.md").read_text(encoding="utf-8")
    for needed in (
        "SSD1306",
        "SH1106",
        "0x3C",
        "RDM6300",
        "PN532",
        "| 6 | push buttons |",
        "common-cathode RGB LED",
        "220 Ω",
        "passive piezo buzzer",
        "2N2222 or S8050 NPN",
        "1 kΩ",
        "2 kΩ",
    ):
        assert needed in parts, needed


def test_the_guide_warns_about_what_bites() -> None:
    guide = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    for needed in (
        "RDM6300 TX ──[ 1 kΩ ]──┬── GPIO 15",
        "[ 2 kΩ ]",
        "/dev/ttyAMA0",
        "400 kHz",
        "Keep the reader's antenna away from the Pi and the OLED",
        "![Wiring diagram](wiring.svg)",
    ):
        assert needed in guide, needed
