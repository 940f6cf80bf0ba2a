"""Cover Your Asps data: the setup counts, the vaults and the doubles table, read from
companion/games/data/cover_your_asps_*.toml and checked on load, so an owner who edits them
learns exactly what to fix (DataError, exit 65) instead of a game that quietly misbehaves."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from companion.errors import DataError
from companion.games.datafile import need, read_toml, shipped

SETUP_FILE = "cover_your_asps_setup.toml"
DOUBLES_FILE = "cover_your_asps_doubles.toml"
SCREEN_WIDTH = 21  # characters of a short text on the turn screen
PAGE_LINES = 3  # lines of an information page
FACES = range(1, 7)
TABLE_PLAYERS = range(2, 5)  # the multiplayer game; 1 is the solo mode


@dataclass(frozen=True)
class Vault:
    name: str
    steps: int  # stepped planks needed to reach its top
    words: str


@dataclass(frozen=True)
class Allowance:
    """One thing a double allows: the replay contract's id and how the screens say it."""

    id: str
    short: str
    words: str
    face: int = 0  # 0: any double
    players: int = 2  # the fewest players at the table for it to apply


@dataclass(frozen=True)
class Tables:
    action_cards: int
    keep: int
    escape_draw: int
    pit_covers: int  # each raider covers this many of its pits at setup
    chamber_pillars: int  # set in the treasure chamber at setup
    planks_per_set: int
    treasure: dict[int, int]  # players -> treasure cards
    points: tuple[int, int]  # lowest and highest points on one treasure card
    vaults: tuple[Vault, ...]
    general: tuple[Allowance, ...]
    faces: tuple[Allowance, ...]
    entry: Allowance

    def plank_double(self, face: int, players: int) -> tuple[Allowance, ...]:
        """What a double of ``face`` on a plank roll allows with ``players`` at the table."""
        extra = [a for a in self.faces if a.face == face and players >= a.players]
        return (*self.general, *extra)

    def vault(self, number: int) -> Vault:
        return self.vaults[number - 1]


def _whole(table: dict[str, Any], key: str, where: str, low: int, high: int = 999) -> int:
    value = need(table, key, int, where)
    if not low <= value <= high:
        raise DataError(f"{where}.{key}: must be {low}..{high}, got {value}")
    return value


def _text(table: dict[str, Any], key: str, where: str, width: int | None = None) -> str:
    value = need(table, key, str, where).strip()
    if not value:
        raise DataError(f"{where}.{key}: must not be empty")
    if width is not None and len(value) > width:
        raise DataError(f"{where}.{key}: {value!r} is longer than {width} characters")
    return value


def page_lines(text: str) -> tuple[str, ...]:
    """A sentence as the lines of an information page."""
    return tuple(textwrap.wrap(text, SCREEN_WIDTH))


def _words(table: dict[str, Any], key: str, where: str) -> str:
    value = _text(table, key, where)
    if len(page_lines(value)) > PAGE_LINES:
        raise DataError(f"{where}.{key}: {value!r} needs more than {PAGE_LINES} lines of 21")
    return value


def _tables_of(data: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    items = need(data, key, list, where)
    if not items or not all(isinstance(item, dict) for item in items):
        raise DataError(f"{where}: [[{key}]] must be one or more tables")
    return items


def _allowance(item: dict[str, Any], where: str, face: int = 0, players: int = 2) -> Allowance:
    return Allowance(
        _text(item, "id", where),
        _text(item, "short", where, SCREEN_WIDTH),
        _words(item, "words", where),
        face,
        players,
    )


def parse_setup(data: dict[str, Any], where: str) -> dict[str, Any]:
    treasure_table = need(data, "treasure", dict, where)
    treasure = {}
    for players in TABLE_PLAYERS:
        treasure[players] = _whole(treasure_table, str(players), f"{where} [treasure]", 1)
    points_table = need(data, "points", dict, where)
    low = _whole(points_table, "lowest", f"{where} [points]", 0)
    high = _whole(points_table, "highest", f"{where} [points]", max(low, 1))
    vaults = tuple(
        Vault(
            _text(v, "name", f"{where} vault {i}"),
            _whole(v, "steps", f"{where} vault {i}", 0, 9),
            _text(v, "words", f"{where} vault {i}", SCREEN_WIDTH),
        )
        for i, v in enumerate(_tables_of(data, "vault", where), start=1)
    )
    if len(vaults) != 3:
        raise DataError(f"{where}: the game has 3 vaults, the file lists {len(vaults)}")
    return {
        "action_cards": _whole(data, "action_cards", where, 1, 9),
        "keep": _whole(data, "keep", where, 0, 9),
        "escape_draw": _whole(data, "escape_draw", where, 0, 9),
        "pit_covers": _whole(data, "pit_covers", where, 0, 20),
        "chamber_pillars": _whole(data, "chamber_pillars", where, 0, 20),
        "planks_per_set": _whole(data, "planks_per_set", where, 1),
        "treasure": treasure,
        "points": (low, high),
        "vaults": vaults,
    }


def parse_doubles(data: dict[str, Any], where: str) -> dict[str, Any]:
    general = tuple(
        _allowance(item, f"{where} general {i}")
        for i, item in enumerate(_tables_of(data, "general", where), start=1)
    )
    faces = []
    for i, item in enumerate(_tables_of(data, "face", where), start=1):
        at = f"{where} face {i}"
        face = _whole(item, "face", at, 1, 6)
        players = _whole(item, "players", at, 2, 4)
        faces.append(_allowance(item, at, face, players))
    missing = sorted(set(FACES) - {a.face for a in faces})
    if missing:
        raise DataError(f"{where}: no [[face]] for double {missing[0]}")
    entry = _allowance(need(data, "entry", dict, where), f"{where} [entry]")
    ids = [a.id for a in (*general, *faces, entry)]
    if len(set(ids)) != len(ids):
        raise DataError(f"{where}: an id is used twice")
    return {"general": general, "faces": tuple(faces), "entry": entry}


def load(setup: Path | None = None, doubles: Path | None = None) -> Tables:
    """The shipped tables, or an owner's files (tests give damaged ones)."""
    setup = setup or shipped(SETUP_FILE)
    doubles = doubles or shipped(DOUBLES_FILE)
    return Tables(
        **parse_setup(read_toml(setup), str(setup)),
        **parse_doubles(read_toml(doubles), str(doubles)),
    )


@cache
def tables() -> Tables:
    return load()
