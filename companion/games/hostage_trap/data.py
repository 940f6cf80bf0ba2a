"""The Hostage Trap! tables (hostage colours, the claim window, the timer warning), read once
from companion/games/data/ so that a number or a colour is changed without touching the rules."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from companion.errors import DataError
from companion.games.datafile import need, read_toml, shipped

COLOURS_FILE = "hostage_trap_colours.toml"
SETTINGS_FILE = "hostage_trap_settings.toml"


@dataclass(frozen=True)
class Tables:
    colours: tuple[str, ...]
    claim_seconds: float
    warn_seconds: float
    longest_trap: int
    turn_seconds_presets: tuple[int, ...]


def _colours() -> tuple[str, ...]:
    entries = need(read_toml(shipped(COLOURS_FILE)), "colour", list, COLOURS_FILE)
    names: list[str] = []
    for i, entry in enumerate(entries, start=1):
        where = f"{COLOURS_FILE} colour {i}"
        if not isinstance(entry, dict):
            raise DataError(f"{where}: expected a table")
        name = need(entry, "name", str, where)
        if not (name.isascii() and name.isalpha() and name.islower()):
            raise DataError(f"{where}.name: one lower-case word, got {name!r}")
        if name in names:
            raise DataError(f"{where}.name: {name!r} is listed twice")
        names.append(name)
    if not names:
        raise DataError(f"{COLOURS_FILE}: list at least one colour")
    return tuple(names)


def _positive(table: dict, key: str) -> int:
    value = need(table, key, int, SETTINGS_FILE)
    if value < 1:
        raise DataError(f"{SETTINGS_FILE}.{key}: must be 1 or more, got {value}")
    return value


@cache
def tables() -> Tables:
    settings = read_toml(shipped(SETTINGS_FILE))
    presets = need(settings, "turn_seconds_presets", list, SETTINGS_FILE)
    if not presets or not all(type(p) is int and 0 <= p <= 600 for p in presets):
        raise DataError(f"{SETTINGS_FILE}.turn_seconds_presets: whole numbers 0..600")
    return Tables(
        colours=_colours(),
        claim_seconds=float(_positive(settings, "claim_seconds")),
        warn_seconds=float(_positive(settings, "warn_seconds")),
        longest_trap=_positive(settings, "longest_trap"),
        turn_seconds_presets=tuple(presets),
    )
