"""Configuration: TOML in, validated dataclasses out. Every error names the key and the value,
so an owner editing /etc/trap-companion/config.toml over SSH knows exactly what to fix."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from companion.core.tomltext import parse_toml, toml_value
from companion.errors import ConfigError

BUTTONS = ("up", "down", "ok", "back", "green", "red")
PIN_FACTORIES = ("auto", "mock", "lgpio", "rpigpio", "native")
DISPLAYS = ("ssd1306", "sh1106", "dummy", "none")
READERS = ("rdm6300", "pn532", "none")
DICE_SOURCES = ("box", "table")
DEFAULT_PATH = Path("/etc/trap-companion/config.toml")
INSTALLED_STATE_DIR = Path("/var/lib/trap-companion")  # systemd's StateDirectory=


@dataclass(frozen=True)
class HardwareConfig:
    pin_factory: str = "auto"


@dataclass(frozen=True)
class ButtonsConfig:
    up: int = 5
    down: int = 6
    ok: int = 13
    back: int = 19
    green: int = 26
    red: int = 21
    hold_seconds: float = 1.0
    debounce_ms: float = 5.0

    def pins(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in BUTTONS}


@dataclass(frozen=True)
class LedConfig:
    red: int = 17
    green: int = 27
    blue: int = 22
    brightness: float = 1.0


@dataclass(frozen=True)
class BuzzerConfig:
    pin: int = 18
    volume: float = 0.5


@dataclass(frozen=True)
class DisplayConfig:
    driver: str = "ssd1306"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    rotate: int = 0


@dataclass(frozen=True)
class ReaderConfig:
    type: str = "rdm6300"
    port: str = "/dev/serial0"
    removal_seconds: float = 0.5


@dataclass(frozen=True)
class DiceConfig:
    source: str = "box"


@dataclass(frozen=True)
class StateConfig:
    dir: str = ""


@dataclass(frozen=True)
class PhonesConfig:
    """Phones at the table (companion/web/): off unless the owner turns it on, and then the
    box listens on ``port`` on its LAN addresses (plain HTTP; pairing with a code)."""

    enabled: bool = False
    port: int = 8080


@dataclass(frozen=True)
class Config:
    hardware: HardwareConfig = field(default_factory=HardwareConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    led: LedConfig = field(default_factory=LedConfig)
    buzzer: BuzzerConfig = field(default_factory=BuzzerConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    dice: DiceConfig = field(default_factory=DiceConfig)
    state: StateConfig = field(default_factory=StateConfig)
    phones: PhonesConfig = field(default_factory=PhonesConfig)
    source: str = "defaults"

    def state_dir(self, installed: Path = INSTALLED_STATE_DIR) -> Path:
        """The configured dir; else systemd's; else an installed box's (so `cards` and `check`
        run from a shell see the daemon's cards); else the user's XDG state dir."""
        if self.state.dir:
            return Path(self.state.dir).expanduser()
        if os.environ.get("STATE_DIRECTORY"):  # set by systemd's StateDirectory=
            return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
        if installed.is_dir():
            return installed
        return self.user_state_dir()

    @staticmethod
    def user_state_dir() -> Path:
        base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        return Path(base) / "trap-companion"

    @classmethod
    def sim_state_dir(cls) -> Path:
        """The terminal simulator's own journal and cards, apart from any daemon's."""
        return cls.user_state_dir() / "sim"

    def simulated(self, state_dir: Path | None = None) -> Config:
        """The same box on simulated parts: mock pins, luma's dummy display."""
        state = replace(self.state, dir=str(state_dir)) if state_dir else self.state
        return replace(
            self,
            hardware=replace(self.hardware, pin_factory="mock"),
            display=replace(self.display, driver="dummy"),
            state=state,
        )


SECTIONS: dict[str, type] = {
    "hardware": HardwareConfig,
    "buttons": ButtonsConfig,
    "led": LedConfig,
    "buzzer": BuzzerConfig,
    "display": DisplayConfig,
    "reader": ReaderConfig,
    "dice": DiceConfig,
    "state": StateConfig,
    "phones": PhonesConfig,
}


def _typed(where: str, value: Any, want: type) -> Any:
    if want is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if want is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if want is str and isinstance(value, str):
        return value
    if want is bool and isinstance(value, bool):
        return value
    kind = {int: "a whole number", float: "a number", str: "text in quotes", bool: "true or false"}[
        want
    ]
    raise ConfigError(f"{where} = {toml_value(value)}: must be {kind}")


def _check(config: Config, src: str) -> None:
    def bad(key: str, value: Any, why: str) -> ConfigError:
        return ConfigError(f"{src}: {key} = {value!r}: {why}")

    hw, b, led, bz, d, r = (
        config.hardware,
        config.buttons,
        config.led,
        config.buzzer,
        config.display,
        config.reader,
    )
    if hw.pin_factory not in PIN_FACTORIES:
        raise bad("hardware.pin_factory", hw.pin_factory, f"use one of {', '.join(PIN_FACTORIES)}")
    pins: dict[int, str] = {}
    named = [(f"buttons.{n}", getattr(b, n)) for n in BUTTONS]
    named += [(f"led.{c}", getattr(led, c)) for c in ("red", "green", "blue")]
    named.append(("buzzer.pin", bz.pin))
    for key, pin in named:
        if not 0 <= pin <= 27:
            raise bad(key, pin, "a BCM GPIO number is 0..27")
        if pin in pins:
            raise bad(key, pin, f"GPIO {pin} is already used by {pins[pin]}")
        pins[pin] = key
    if d.driver in ("ssd1306", "sh1106"):
        for key in ("buttons", "led", "buzzer"):
            for pin_key, pin in named:
                if pin_key.startswith(key) and pin in (2, 3):
                    raise bad(pin_key, pin, "GPIO 2 and 3 are the display's I2C bus")
    if not 0.2 <= b.hold_seconds <= 5:
        raise bad("buttons.hold_seconds", b.hold_seconds, "must be 0.2..5 seconds")
    if not 0 <= b.debounce_ms <= 50:
        raise bad("buttons.debounce_ms", b.debounce_ms, "must be 0..50 ms")
    if not 0 <= led.brightness <= 1:
        raise bad("led.brightness", led.brightness, "must be 0..1")
    if not 0 <= bz.volume <= 1:
        raise bad("buzzer.volume", bz.volume, "must be 0..1 (0 is silent)")
    if d.driver not in DISPLAYS:
        raise bad("display.driver", d.driver, f"use one of {', '.join(DISPLAYS)}")
    if not 0 <= d.i2c_port <= 20:
        raise bad("display.i2c_port", d.i2c_port, "must be an I2C bus number 0..20")
    if not 0x03 <= d.i2c_address <= 0x77:
        raise bad("display.i2c_address", d.i2c_address, "must be a 7-bit I2C address")
    if d.rotate not in (0, 1, 2, 3):
        raise bad("display.rotate", d.rotate, "must be 0, 1, 2 or 3 quarter turns")
    if r.type not in READERS:
        raise bad("reader.type", r.type, f"use one of {', '.join(READERS)}")
    if r.type != "none" and not r.port:
        raise bad("reader.port", r.port, "name the serial port, e.g. /dev/serial0")
    if config.dice.source not in DICE_SOURCES:
        raise bad("dice.source", config.dice.source, f"use one of {', '.join(DICE_SOURCES)}")
    if not 0.1 <= r.removal_seconds <= 5:
        raise bad("reader.removal_seconds", r.removal_seconds, "must be 0.1..5 seconds")
    port = config.phones.port
    if not 1024 <= port <= 65535:
        why = "must be a TCP port 1024..65535"
        if 0 < port < 1024:
            why += " (the service may not open ports below 1024)"
        raise bad("phones.port", port, why)


def from_dict(data: dict[str, Any], src: str = "config") -> Config:
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in SECTIONS:
            raise ConfigError(f"{src}: unknown section [{name}] (known: {', '.join(SECTIONS)})")
        if not isinstance(value, dict):
            raise ConfigError(f"{src}: {name} must be a [{name}] table")
        cls = SECTIONS[name]
        known = {f.name: f for f in fields(cls)}
        kwargs = {}
        for key, raw in value.items():
            if key not in known:
                raise ConfigError(f"{src}: unknown key {name}.{key} (known: {', '.join(known)})")
            want = {"int": int, "float": float, "str": str, "bool": bool}[str(known[key].type)]
            kwargs[key] = _typed(f"{src}: {name}.{key}", raw, want)
        sections[name] = cls(**kwargs)
    config = Config(**sections, source=src)
    _check(config, src)
    return config


def load(path: Path | str | None) -> Config:
    """Read and validate a config file; None gives the defaults (or /etc's file if present)."""
    if path is None:
        if not DEFAULT_PATH.exists():
            return Config()
        path = DEFAULT_PATH
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read ({err})") from None
    try:
        data = parse_toml(text)
    except ValueError as err:
        raise ConfigError(f"{path}: not valid TOML ({err})") from None
    return from_dict(data, str(path))
