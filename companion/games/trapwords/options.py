"""Trapwords options: the replay contract's names and values, parsed from the strings players
type (``--set rooms=2,4,6,8,10``) into checked values, defaults filled in."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from companion.games.base import BadAction, Option, decimal_number, whole_number
from companion.games.trapwords.data import TABLES
from companion.games.trapwords.dungeon import default_curse_rooms

START_MODES = ("official", "pickup", "clue")
ON_OFF = ("off", "on")
MONSTER_IDS = tuple(m.id for m in TABLES.monsters)
LONGEST_TURN = 3600.0


def _joined(rooms: tuple[int, ...] | tuple[float, ...]) -> str:
    return ",".join(f"{r:g}" for r in rooms)


OPTIONS: tuple[Option, ...] = (
    Option(
        "rooms",
        "Rooms",
        _joined(TABLES.default_rooms),
        presets=tuple(_joined(p) for p in TABLES.room_presets),
    ),
    Option(
        "seconds",
        "Turn time",
        f"{TABLES.default_seconds:g}",
        presets=tuple(f"{s:g}" for s in TABLES.seconds_presets),
    ),
    Option("start_mode", "Timer starts", "official", choices=START_MODES),
    Option(
        "read_seconds",
        "Read time",
        f"{TABLES.default_read_seconds:g}",
        presets=tuple(f"{s:g}" for s in TABLES.read_presets),
    ),
    Option("tiebreak", "Time tiebreak", "off", choices=ON_OFF),
    Option("monster", "Monster", "random", choices=("random", *MONSTER_IDS)),
    Option("nasty", "Nastier monster", "off", choices=ON_OFF),
    Option("tick", "Tick last 10 s", "on", choices=ON_OFF),
    Option("curses", "Curses in rooms", "auto", presets=("auto", "none")),
)
NAMES = tuple(o.name for o in OPTIONS)
DEFAULTS = {o.name: o.default for o in OPTIONS}


def _rooms(text: str) -> tuple[int, ...]:
    numbers = [whole_number(p.strip()) for p in text.split(",") if p.strip()]
    if None in numbers:
        raise BadAction(f"rooms={text!r}: room numbers are whole numbers, e.g. 3,4,5,6,7")
    rooms = tuple(n for n in numbers if n is not None)
    if not TABLES.min_rooms <= len(rooms) <= TABLES.max_rooms:
        raise BadAction(
            f"rooms={text!r}: a dungeon has {TABLES.min_rooms} to {TABLES.max_rooms} rooms,"
            f" not {len(rooms)}"
        )
    if any(not 1 <= r <= 99 for r in rooms):
        raise BadAction(f"rooms={text!r}: room numbers are 1..99")
    if any(b <= a for a, b in itertools.pairwise(rooms)):
        raise BadAction(f"rooms={text!r}: room numbers must increase")
    return rooms


def _seconds(key: str, text: str, low: float) -> float:
    value = decimal_number(text)
    if value is None:
        raise BadAction(f"{key}={text!r} is not a number of seconds ({low:g}..{LONGEST_TURN:g})")
    if not low <= value <= LONGEST_TURN:
        raise BadAction(f"{key}={text!r} must be {low:g}..{LONGEST_TURN:g} seconds")
    return value


def _curses(text: str, rooms: tuple[int, ...]) -> tuple[int, ...]:
    if text == "auto":
        return default_curse_rooms(rooms)
    if text == "none":
        return ()
    numbers = [whole_number(p.strip()) for p in text.split(",") if p.strip()]
    if None in numbers:
        raise BadAction(f"curses={text!r}: auto, none or room numbers like 4,6")
    chosen = tuple(n for n in numbers if n is not None)
    for room in chosen:
        if room not in rooms[:-1]:
            raise BadAction(
                f"curses={text!r}: {room} is not a room before the monster's ({_joined(rooms)})"
            )
    if any(chosen.count(room) > 2 for room in chosen):
        raise BadAction(f"curses={text!r}: at most two curses share a room at setup")
    return tuple(sorted(chosen))


def _choice(key: str, text: str, choices: tuple[str, ...]) -> str:
    if text not in choices:
        raise BadAction(f"{key}={text!r} is not one of {', '.join(choices)}")
    return text


def _text(value: Any) -> str:
    """Options may come back already parsed (from a menu or a saved game): make them text."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list | tuple):
        return _joined(tuple(value))
    return str(value).strip()


def check_options(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Parsed options, defaults filled in; BadAction names the first bad option."""
    unknown = sorted(set(raw) - set(NAMES))
    if unknown:
        raise BadAction(f"trapwords has no option {unknown[0]!r} (options: {', '.join(NAMES)})")
    text = {**DEFAULTS, **{k: _text(v) for k, v in raw.items()}}
    rooms = _rooms(text["rooms"])
    return {
        "rooms": rooms,
        "seconds": _seconds("seconds", text["seconds"], 1.0),
        "start_mode": _choice("start_mode", text["start_mode"], START_MODES),
        "read_seconds": _seconds("read_seconds", text["read_seconds"], 0.0),
        "tiebreak": _choice("tiebreak", text["tiebreak"], ON_OFF) == "on",
        "monster": _choice("monster", text["monster"], ("random", *MONSTER_IDS)),
        "nasty": _choice("nasty", text["nasty"], ON_OFF) == "on",
        "tick": _choice("tick", text["tick"], ON_OFF) == "on",
        "curses": _curses(text["curses"], rooms),
    }


def setup_dice(options: Mapping[str, Any]) -> tuple[int, ...]:
    """A random monster is one roll of a five-sided die, read in the monster table's order."""
    return (len(MONSTER_IDS),) if options["monster"] == "random" else ()


def monster_from(options: Mapping[str, Any], rolls: tuple[int, ...]) -> str:
    if options["monster"] != "random":
        if rolls:
            raise BadAction(f"monster={options['monster']} needs no setup roll, got {rolls}")
        return str(options["monster"])
    if len(rolls) != 1 or not 1 <= rolls[0] <= len(MONSTER_IDS):
        raise BadAction(f"a random monster needs one roll in 1..{len(MONSTER_IDS)}, got {rolls}")
    return MONSTER_IDS[rolls[0] - 1]
