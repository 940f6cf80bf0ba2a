"""The Trapwords tables (monsters, curse cards, limits, presets), read once from the TOML files in
companion/games/data/ so that changing a number never means changing the rules' code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.errors import DataError
from companion.games.datafile import read_toml, shipped


@dataclass(frozen=True)
class Monster:
    id: str
    name: str
    extra_curses: int
    nasty_extra_curses: int

    def curses_per_battle(self, nasty: bool) -> int:
        return self.nasty_extra_curses if nasty else self.extra_curses


@dataclass(frozen=True)
class Curse:
    id: str
    name: str
    void_in_first_room: bool = False
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tables:
    max_rounds: int
    guesses: int
    tick_from: float
    max_rooms: int
    min_rooms: int
    default_rooms: tuple[int, ...]
    room_presets: tuple[tuple[int, ...], ...]
    default_seconds: float
    seconds_presets: tuple[float, ...]
    default_read_seconds: float
    read_presets: tuple[float, ...]
    team_colours: dict[str, tuple[float, float, float]]
    monsters: tuple[Monster, ...]
    curses: tuple[Curse, ...]

    def monster(self, monster_id: str) -> Monster:
        for monster in self.monsters:
            if monster.id == monster_id:
                return monster
        raise KeyError(monster_id)

    def curse(self, curse_id: str) -> Curse | None:
        return next((c for c in self.curses if c.id == curse_id), None)


def _numbers(path: str, value: Any) -> tuple[float, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int | float) for v in value):
        raise DataError(f"{path}: expected a list of numbers, got {value!r}")
    return tuple(value)


def _colour(path: str, value: Any) -> tuple[float, float, float]:
    numbers = _numbers(path, value)
    if len(numbers) != 3 or not all(0 <= v <= 1 for v in numbers):
        raise DataError(f"{path}: a colour is three numbers in 0..1, got {value!r}")
    return (float(numbers[0]), float(numbers[1]), float(numbers[2]))


def parse(setup: dict[str, Any], monsters: dict[str, Any], curses: dict[str, Any]) -> Tables:
    """Build the tables from the three parsed files; DataError names the bad key."""
    where = "trapwords_setup.toml"
    try:
        tables = Tables(
            max_rounds=int(setup["max_rounds"]),
            guesses=int(setup["guesses"]),
            tick_from=float(setup["tick_from"]),
            max_rooms=int(setup["max_rooms"]),
            min_rooms=int(setup["min_rooms"]),
            default_rooms=tuple(int(r) for r in setup["rooms"]["default"]),
            room_presets=tuple(
                tuple(int(r) for r in preset) for preset in setup["rooms"]["presets"]
            ),
            default_seconds=float(setup["seconds"]["default"]),
            seconds_presets=_numbers(f"{where}: seconds.presets", setup["seconds"]["presets"]),
            default_read_seconds=float(setup["read_seconds"]["default"]),
            read_presets=_numbers(
                f"{where}: read_seconds.presets", setup["read_seconds"]["presets"]
            ),
            team_colours={
                team: _colour(f"{where}: teams.{team}.colour", setup["teams"][team]["colour"])
                for team in ("A", "B")
            },
            monsters=tuple(
                Monster(
                    id=str(m["id"]),
                    name=str(m["name"]),
                    extra_curses=int(m["extra_curses"]),
                    nasty_extra_curses=int(m["nasty_extra_curses"]),
                )
                for m in monsters["monster"]
            ),
            curses=tuple(
                Curse(
                    id=str(c["id"]),
                    name=str(c["name"]),
                    void_in_first_room=bool(c.get("void_in_first_room", False)),
                    fields=tuple(str(f) for f in c.get("fields", ())),
                )
                for c in curses["curse"]
            ),
        )
    except KeyError as err:
        raise DataError(f"Trapwords tables: missing key {err.args[0]!r}") from None
    except (TypeError, ValueError) as err:
        raise DataError(f"Trapwords tables: bad value ({err})") from None
    if len(tables.monsters) != 5:
        raise DataError(
            f"trapwords_monsters.toml: the setup die has 5 faces, the table lists "
            f"{len(tables.monsters)} monsters"
        )
    if tables.max_rounds < 1 or tables.guesses < 1:
        raise DataError(f"{where}: max_rounds and guesses must be at least 1")
    return tables


def load() -> Tables:
    return parse(
        read_toml(shipped("trapwords_setup.toml")),
        read_toml(shipped("trapwords_monsters.toml")),
        read_toml(shipped("trapwords_curses.toml")),
    )


TABLES = load()
