"""Configuration: TOML in, validated dataclasses out. Every error names the key and the value,
so an owner editing /etc/trap-companion/config.toml over SSH knows exactly what to fix."""

from __future__ import annotations

import os
import re
from dataclasses import field, fields, replace
from pathlib import Path
from typing import Any

from companion.core import statefile, values
from companion.core.tomltext import toml_value
from companion.errors import ConfigError

BUTTONS = ("up", "down", "ok", "back", "green", "red")
PIN_FACTORIES = ("auto", "mock", "lgpio", "rpigpio", "native")
DISPLAYS = ("ssd1306", "sh1106", "dummy", "none")
READERS = ("rdm6300", "pn532", "none")
DICE_SOURCES = ("box", "table")
PHONE_SERVERS = ("process", "thread")
DEFAULT_PATH = Path("/etc/trap-companion/config.toml")
INSTALLED_STATE_DIR = Path("/var/lib/trap-companion")  # systemd's StateDirectory=


@values.value
class HardwareConfig:
    pin_factory: str = "auto"


@values.value
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


@values.value
class LedConfig:
    red: int = 17
    green: int = 27
    blue: int = 22
    brightness: float = 1.0


@values.value
class BuzzerConfig:
    pin: int = 18
    volume: float = 0.5


@values.value
class DisplayConfig:
    driver: str = "ssd1306"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    rotate: int = 0


@values.value
class ReaderConfig:
    type: str = "rdm6300"
    port: str = "/dev/serial0"
    removal_seconds: float = 0.5


@values.value
class DiceConfig:
    source: str = "box"


@values.value
class StateConfig:
    dir: str = ""


@values.value
class PhonesConfig:
    """Phones at the table (companion/web/): off unless the owner turns it on, and then the
    box listens on ``port`` on its LAN addresses (plain HTTP; pairing with a code)."""

    enabled: bool = False
    port: int = 8080
    # "process": the phones' server in a process of its own, linked over a UNIX socket (the
    # box's process then holds no network socket); "thread": inside the box's process
    server: str = "process"


@values.value
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
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def at(self, key: str) -> str:
        """Where ``key`` was written: ``file:line``, else the file (or "defaults")."""
        return f"{self.source}:{self.lines[key]}" if key in self.lines else self.source

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


class _Source:
    """Where each key of a config file was written, so every message names the file, the line
    and the key the owner wrote (not one filled in from the defaults)."""

    def __init__(self, src: str, data: dict[str, Any], text: str | None) -> None:
        self.src = src
        self.lines = key_lines(text) if text is not None else {}
        self.written = {
            f"{name}.{key}": value
            for name, table in data.items()
            if isinstance(table, dict)
            for key, value in table.items()
        }

    def at(self, key: str) -> str:
        """``file:line`` of ``key`` (or of its section), else the file alone."""
        while key:
            if key in self.lines:
                return f"{self.src}:{self.lines[key]}"
            key = key.rpartition(".")[0]
        return self.src

    def error(self, key: str, value: Any, why: str) -> ConfigError:
        return ConfigError(f"{self.at(key)}: {key} = {toml_value(value)}: {why}")


_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def _dotted(raw: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in raw.split("."))


def key_lines(text: str) -> dict[str, int]:
    """The line of every ``[section]`` header and ``key =`` in TOML text, by dotted name (the
    first line wins; a key inside an inline table is found by its table's line)."""
    found: dict[str, int] = {}
    section = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            section = _dotted(header.group(1))
            found.setdefault(section, number)
            continue
        key = _KEY.match(line)
        if key:
            name = _dotted(key.group(1))
            found.setdefault(f"{section}.{name}" if section else name, number)
    return found


def key_at(text: str, line: int) -> str:
    """The dotted key (or ``[section]``) that line ``line`` of TOML text shows, or ""."""
    section = ""
    for number, row in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(row)
        if header:
            section = _dotted(header.group(1))
        if number == line:
            if header:
                return f"[{section}]"
            key = _KEY.match(row)
            if not key:
                return ""
            name = _dotted(key.group(1))
            return f"{section}.{name}" if section else name
    return ""


_AT_LINE = re.compile(r"\(at line (\d+)|\(line (\d+)")


def _where(path: Path, text: str, why: str) -> str:
    """``file:line: key`` for a message about a file that could not be parsed: the line the
    parser names (or where nesting went too deep), and the key that line shows."""
    found = _AT_LINE.search(why)
    line = int(found.group(1) or found.group(2)) if found else None
    if line is None:
        return str(path)
    key = key_at(text, line)
    return f"{path}:{line}: {key}" if key else f"{path}:{line}"


def _typed(source: _Source, key: str, value: Any, want: type) -> Any:
    if want is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if want is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if want is str and isinstance(value, str):
        return value
    if want is bool and isinstance(value, bool):
        return value
    kind = {int: "a whole number", float: "a number", str: "text in quotes", bool: "true or false"}
    raise source.error(key, value, f"must be {kind[want]}")


def _check(config: Config, source: _Source) -> None:
    def bad(key: str, value: Any, why: str) -> ConfigError:
        return source.error(key, source.written.get(key, value), why)

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
    for key, pin in named:
        if pin in pins:  # a clash names a key the owner wrote, not one from the defaults
            first = pins[pin]
            mine = key in source.written or first not in source.written
            blamed, other = (key, first) if mine else (first, key)
            default = "" if other in source.written else " (its default: move that one too)"
            raise bad(blamed, pin, f"GPIO {pin} is already used by {other}{default}")
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
    if config.phones.server not in PHONE_SERVERS:
        raise bad("phones.server", config.phones.server, f"use one of {', '.join(PHONE_SERVERS)}")


def _home_of(key: str) -> str:
    """The sections that have ``key``, for a key written above every section header."""
    homes = [name for name, cls in SECTIONS.items() if key in {f.name for f in fields(cls)}]
    return f" ({key} is a key of {' and '.join(f'[{h}]' for h in homes)})" if homes else ""


def from_dict(data: dict[str, Any], src: str = "config", text: str | None = None) -> Config:
    """A checked Config from parsed TOML; ``text`` (the file's) lets messages name the line."""
    source = _Source(src, data, text)
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if not isinstance(value, dict):
            if name in SECTIONS:
                raise source.error(name, value, f"must be a [{name}] table")
            raise source.error(
                name, value, f"a key belongs under a [section] header{_home_of(name)}"
            )
        if name not in SECTIONS:
            raise ConfigError(
                f"{source.at(name)}: unknown section [{name}] (known: {', '.join(SECTIONS)})"
            )
        cls = SECTIONS[name]
        known = {f.name: f for f in fields(cls)}
        kwargs = {}
        for key, raw in value.items():
            if key not in known:
                raise ConfigError(
                    f"{source.at(f'{name}.{key}')}: unknown key {name}.{key} "
                    f"(known: {', '.join(known)})"
                )
            want = {"int": int, "float": float, "str": str, "bool": bool}[str(known[key].type)]
            kwargs[key] = _typed(source, f"{name}.{key}", raw, want)
        sections[name] = cls(**kwargs)
    config = Config(**sections, source=src, lines=source.lines)
    _check(config, source)
    return config


def load(path: Path | str | None) -> Config:
    """Read and validate a config file; None gives the defaults (or /etc's file if present).
    The file is read as the box reads its state files (a regular file, no link, no FIFO, a
    size cap): anything else is a ConfigError naming it."""
    given = path is not None
    path = Path(path) if path is not None else DEFAULT_PATH
    try:
        text = statefile.read_text(path, statefile.CONFIG_CAP)
    except statefile.Unreadable as err:
        where = str(path)
        if "UTF-8" in err.why:  # read again, as far as it is text, to name the key
            raw = statefile.read_bytes(path, statefile.CONFIG_CAP) or b""
            where = _where(path, raw.decode("utf-8", errors="replace"), err.why)
        raise ConfigError(f"{where}: cannot read the config: it {err.why}") from None
    if text is None:
        if not given:
            return Config()
        raise ConfigError(f"{path}: no such config file")
    try:
        data = statefile.parse_toml(path, text)
    except statefile.Unreadable as err:
        raise ConfigError(f"{_where(path, text, err.why)}: not valid TOML: it {err.why}") from None
    except ValueError as err:
        raise ConfigError(f"{_where(path, text, str(err))}: not valid TOML ({err})") from None
    return from_dict(data, str(path), text)
