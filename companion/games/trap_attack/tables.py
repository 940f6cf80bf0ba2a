"""The rule tables and the card catalog, read from TOML under companion/games/data/.

Numbers of the rules live in data so that a rule change is a data change; a broken file names
itself and the bad key (DataError), because an owner may edit these files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from companion.errors import DataError
from companion.games.datafile import read_toml

DATA = Path(__file__).resolve().parent.parent / "data"
RULES_FILE = DATA / "trap_attack_rules.toml"
CARDS_FILE = DATA / "trap_attack_cards.toml"

READINGS = ("block", "relic", "cast")


def need_int(table: Mapping[str, Any], key: str, where: str, lo: int, hi: int) -> int:
    if key not in table:
        raise DataError(f"{where}: missing {key}")
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise DataError(f"{where}: {key} must be a whole number in {lo}..{hi}, not {value!r}")
    return value


def need_range(table: Mapping[str, Any], key: str, where: str) -> tuple[int, int]:
    value = table.get(key)
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        or value[0] > value[1]
    ):
        raise DataError(f"{where}: {key} must be [lowest, highest], not {value!r}")
    return value[0], value[1]


def no_extra(table: Mapping[str, Any], known: set[str], where: str) -> None:
    extra = sorted(set(table) - known)
    if extra:
        raise DataError(f"{where}: unknown key {extra[0]!r} (known: {', '.join(sorted(known))})")


@dataclass(frozen=True)
class MoveRule:
    free: int
    die: int


@dataclass(frozen=True)
class RuleTable:
    life: int
    knockout_back: int
    crystal_heal: int
    race_winner_points: int
    combo_bonus: int
    coin_points: int
    pawn_die: int
    action_faces: int
    readings: tuple[str, ...]  # the reading of each action-die face, face 1 first
    moves: tuple[tuple[str, MoveRule], ...]
    ranges: tuple[tuple[str, tuple[int, int]], ...]
    hand_cards: int = 3  # action cards a player holds at the start of each turn
    skull_cards: int = 6  # skull cards a player holds at the start of each turn

    def move(self, option: str) -> MoveRule:
        return dict(self.moves)[option]

    def range(self, name: str) -> tuple[int, int]:
        return dict(self.ranges)[name]

    def reading(self, face: int) -> str:
        return self.readings[face - 1]


RANGE_NAMES = ("amount", "relic_value", "combo", "loot_value", "coins", "relics_held", "loot_held")


def parse_rules(data: Mapping[str, Any], where: str) -> RuleTable:
    scalars = (
        "life",
        "knockout_back",
        "crystal_heal",
        "race_winner_points",
        "combo_bonus",
        "coin_points",
        "pawn_die",
    )
    hand = ("hand_cards", "skull_cards")  # optional: files written before them still load
    no_extra(data, {*scalars, *hand, "action_die", "ai_move", "ranges"}, where)
    values = {key: need_int(data, key, where, 0, 100) for key in scalars}
    values |= {key: need_int(data, key, where, 0, 100) for key in hand if key in data}
    if values["life"] < 1 or values["pawn_die"] < 2:
        raise DataError(f"{where}: life must be at least 1 and pawn_die at least 2")

    die = data.get("action_die")
    if not isinstance(die, dict):
        raise DataError(f"{where}: missing [action_die]")
    no_extra(die, {"faces", *READINGS}, f"{where} [action_die]")
    faces = need_int(die, "faces", f"{where} [action_die]", 2, 20)
    readings: list[str | None] = [None] * faces
    for reading in READINGS:
        listed = die.get(reading, [])
        if not isinstance(listed, list):
            raise DataError(f"{where} [action_die]: {reading} must be a list of faces")
        for face in listed:
            if not isinstance(face, int) or not 1 <= face <= faces or readings[face - 1]:
                raise DataError(f"{where} [action_die]: {reading} lists a bad face {face!r}")
            readings[face - 1] = reading
    if None in readings:
        missing = readings.index(None) + 1
        raise DataError(f"{where} [action_die]: face {missing} has no reading")

    moves_raw = data.get("ai_move")
    if not isinstance(moves_raw, dict) or not moves_raw:
        raise DataError(f"{where}: missing [ai_move.<option>] tables")
    moves = []
    for name, rule in moves_raw.items():
        at = f"{where} [ai_move.{name}]"
        if not isinstance(rule, dict):
            raise DataError(f"{at}: must be a table")
        no_extra(rule, {"free", "die"}, at)
        moves.append(
            (name, MoveRule(need_int(rule, "free", at, 0, 6), need_int(rule, "die", at, 2, 20)))
        )

    ranges_raw = data.get("ranges")
    if not isinstance(ranges_raw, dict):
        raise DataError(f"{where}: missing [ranges]")
    no_extra(ranges_raw, set(RANGE_NAMES), f"{where} [ranges]")
    ranges = tuple(
        (name, need_range(ranges_raw, name, f"{where} [ranges]")) for name in RANGE_NAMES
    )
    return RuleTable(
        **values,
        action_faces=faces,
        readings=tuple(r for r in readings if r is not None),
        moves=tuple(moves),
        ranges=ranges,
    )


@cache
def rules() -> RuleTable:
    return parse_rules(read_toml(RULES_FILE), str(RULES_FILE))


# --- the card catalog ------------------------------------------------------------------------


@dataclass(frozen=True)
class CardEffect:
    """What an action card does: ``kind`` is damage, push, paralysis, heal, forward or item."""

    id: str
    kind: str
    amount: int
    name: str
    short: str
    group: str  # attack or item

    @property
    def no_effect_for_ai(self) -> bool:
        return self.kind == "item"


@dataclass(frozen=True)
class ScoringCard:
    id: str
    name: str
    fields: tuple[str, ...]
    ranges: tuple[str, ...] = ()  # per field, a name in the rules' [ranges] table


@dataclass(frozen=True)
class Catalog:
    effects: tuple[CardEffect, ...]
    scoring: tuple[ScoringCard, ...]

    def effect(self, card_id: str) -> CardEffect | None:
        for effect in self.effects:
            if effect.id == card_id:
                return effect
        return None

    def amounts(self, kind: str) -> tuple[int, ...]:
        return tuple(e.amount for e in self.effects if e.kind == kind)


EFFECT_KINDS = ("damage", "push", "paralysis", "heal", "forward")
GROUPS = ("attack", "item")


def parse_catalog(data: Mapping[str, Any], where: str) -> Catalog:
    no_extra(data, {"effects", "items", "scoring"}, where)
    effects: list[CardEffect] = []
    for kind, spec in data.get("effects", {}).items():
        at = f"{where} [effects.{kind}]"
        if kind not in EFFECT_KINDS or not isinstance(spec, dict):
            raise DataError(f"{at}: an effect is one of {', '.join(EFFECT_KINDS)}, as a table")
        no_extra(spec, {"name", "group", "amounts"}, at)
        name, group = spec.get("name"), spec.get("group")
        if not isinstance(name, str) or group not in GROUPS:
            raise DataError(f"{at}: needs a name and a group ({', '.join(GROUPS)})")
        if "amounts" in spec:
            lo, hi = need_range(spec, "amounts", at)
            for n in range(lo, hi + 1):
                text = name.replace("{n}", str(n))
                effects.append(CardEffect(f"{kind}-{n}", kind, n, text, text, group))
        else:
            effects.append(CardEffect(kind, kind, 1, name, name, group))
    for item_id, spec in data.get("items", {}).items():
        at = f"{where} [items.{item_id}]"
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise DataError(f"{at}: needs a name")
        no_extra(spec, {"name", "short"}, at)
        short = spec.get("short", spec["name"])
        if not isinstance(short, str) or len(short) > 18:
            raise DataError(f"{at}: short must be text of at most 18 characters")
        effects.append(CardEffect(item_id, "item", 0, spec["name"], short, "item"))
    scoring = []
    for card_id, spec in data.get("scoring", {}).items():
        at = f"{where} [scoring.{card_id}]"
        if card_id not in ("relic", "loot") or not isinstance(spec, dict):
            raise DataError(f"{at}: scoring cards are relic and loot")
        no_extra(spec, {"name", "fields", "ranges"}, at)
        fields = spec.get("fields", [])
        ranges = spec.get("ranges", [])
        if not isinstance(spec.get("name"), str) or not isinstance(fields, list):
            raise DataError(f"{at}: needs a name and a list of fields")
        if not isinstance(ranges, list) or len(ranges) != len(fields):
            raise DataError(f"{at}: ranges must name one range per field")
        unknown = [r for r in ranges if r not in RANGE_NAMES]
        if unknown:
            raise DataError(f"{at}: unknown range {unknown[0]!r} (known: {', '.join(RANGE_NAMES)})")
        scoring.append(
            ScoringCard(card_id, spec["name"], tuple(map(str, fields)), tuple(map(str, ranges)))
        )
    ids = [e.id for e in effects] + [s.id for s in scoring]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise DataError(f"{where}: card id {dupes[0]!r} is defined twice")
    return Catalog(tuple(effects), tuple(scoring))


@cache
def catalog() -> Catalog:
    return parse_catalog(read_toml(CARDS_FILE), str(CARDS_FILE))
