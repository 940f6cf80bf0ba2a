"""The Deathtrap Dungeon pack as data: which sets exist, what each is worth, which cards are
special. The rulebook gives only a few values, so the owner may keep their own copy of the file
in the state directory; a copy that stops parsing never takes the box down: the last good copy
(or the shipped file) stays in use and the message names the file and the line."""

from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core import durable, statefile
from companion.errors import DataError
from companion.games.datafile import DATA_DIR, need

log = logging.getLogger(__name__)

SHIPPED = DATA_DIR / "deathtrap_dungeon_pack.toml"
OWNER_NAME = statefile.PACK.name  # the owner's copy, in the state directory
LAST_GOOD_NAME = statefile.PACK_LAST_GOOD.name

WILD = "wild"
KILLING_MACHINE = "killing-machine"
PIG = "pig"
ROLES = (WILD, KILLING_MACHINE, PIG)
MAX_VALUE = 99
MAX_CARDS = 30
ID_PATTERN = re.compile(r"[a-z][a-z0-9-]{0,23}")
NAME_LENGTH = 12  # a set name: "3 x Bloodbeast +2w" fits the line under the seats
SPECIAL_NAME_LENGTH = 16


@dataclass(frozen=True)
class CardSet:
    id: str
    name: str
    value: int
    cards: int
    known: bool  # the rulebook gives this value; otherwise it is the box's guess


@dataclass(frozen=True)
class Special:
    id: str
    name: str
    role: str
    cards: int


@dataclass(frozen=True)
class Pack:
    sets: tuple[CardSet, ...]
    specials: tuple[Special, ...]
    source: str = ""

    def set(self, set_id: str) -> CardSet | None:
        return next((s for s in self.sets if s.id == set_id), None)

    def special(self, card_id: str) -> Special | None:
        return next((s for s in self.specials if s.id == card_id), None)

    def name_of(self, set_id: str | None, value: int) -> str:
        """A set's name for the screen: by its id, else the one set worth ``value``."""
        if set_id is not None and (found := self.set(set_id)) is not None:
            return found.name
        worth = [s for s in self.sets if s.value == value]
        return worth[0].name if len(worth) == 1 else f"value {value}"

    @property
    def wilds(self) -> int:
        return sum(s.cards for s in self.specials if s.role == WILD)

    @property
    def largest_set(self) -> int:
        return max(s.cards for s in self.sets)


def parse(text: str, where: str) -> Pack:
    """A pack from TOML text; DataError names ``where`` and the line of the bad entry
    (statefile.Unreadable for a number too long or nesting too deep: no editor writes those)."""
    try:
        data = statefile.parse_toml(Path(where), text)
    except tomllib.TOMLDecodeError as err:
        raise DataError(f"{where}: not valid TOML: {err}") from None
    lines = _header_lines(text)
    sets = tuple(
        _card_set(entry, _entry(where, lines, "set", i))
        for i, entry in enumerate(_tables(data, "set", where))
    )
    specials = tuple(
        _special(entry, _entry(where, lines, "special", i))
        for i, entry in enumerate(_tables(data, "special", where))
    )
    if not sets:
        raise DataError(f"{where}: the pack needs at least one [[set]]")
    unknown = sorted(set(data) - {"set", "special"})
    if unknown:
        raise DataError(f"{where}: unknown key {unknown[0]!r} (a pack has [[set]] and [[special]])")
    ids = [s.id for s in sets] + [s.id for s in specials]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise DataError(f"{where}: the id {twice[0]!r} is used twice")
    for role in (KILLING_MACHINE, PIG):
        if sum(1 for s in specials if s.role == role) > 1:
            raise DataError(f"{where}: only one special card can have role {role!r}")
    return Pack(sets, specials, where)


def load(path: Path) -> Pack | None:
    """The pack in a state file, None if there is none; statefile.Unreadable for a file the
    box cannot read (a link, a FIFO, too big, not UTF-8...), DataError for a bad pack."""
    text = statefile.read_text(path, statefile.PACK_CAP)
    return None if text is None else parse(text, str(path))


def shipped() -> Pack:
    return parse(SHIPPED.read_text(encoding="utf-8"), str(SHIPPED))


def for_state_dir(state_dir: Path) -> tuple[Pack, str | None]:
    """The pack to use with this state directory, and the problem to tell the owner, if any.

    The owner's file wins when it parses (and becomes the last good copy); when it does not,
    the last good copy, else the shipped file, is used and the problem is returned. A file the
    box cannot read at all (either of them) is set aside; a pack that does not parse stays
    where it is, for the owner to mend."""
    owner = state_dir / OWNER_NAME
    last_good = state_dir / LAST_GOOD_NAME
    try:
        pack = load(owner)
    except statefile.Unreadable as err:
        problem = statefile.set_aside(owner, str(err), "keeping the previous pack")
    except DataError as err:
        problem = str(err)
        log.error("%s; keeping the previous pack", err)
    else:
        if pack is None:
            return shipped(), None  # the last good copy is not even looked at
        _keep_copy(owner, last_good)
        return pack, None
    return _last_good(last_good) or shipped(), problem


def _last_good(path: Path) -> Pack | None:
    """The box's own copy of the owner's last pack that parsed; set aside if it is not one."""
    try:
        return load(path)
    except (statefile.Unreadable, DataError) as err:
        statefile.set_aside(path, str(err), "using the shipped pack")
        return None


def _keep_copy(owner: Path, last_good: Path) -> None:
    """Make the last good copy the owner's file (read once more: both are small and capped)."""
    try:
        data = statefile.read_bytes(owner, statefile.PACK_CAP)
        try:
            same = statefile.read_bytes(last_good, statefile.PACK_CAP) == data
        except statefile.Unreadable as err:
            statefile.set_aside(last_good, str(err), "writing it afresh")
            same = False
        if data is not None and not same:
            durable.replace_whole(last_good, data)
    except (OSError, statefile.Unreadable) as err:
        log.warning("cannot keep a last good copy of %s: %s", owner, err)


# --- checking the entries -------------------------------------------------------------------


def _tables(data: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    entries = data.get(key, [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise DataError(f"{where}: {key!r} must be written as [[{key}]] tables")
    return entries


def _header_lines(text: str) -> dict[str, list[int]]:
    """The line number of every ``[[set]]`` and ``[[special]]`` header, in order."""
    found: dict[str, list[int]] = {"set": [], "special": []}
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"\s*\[\[\s*(set|special)\s*\]\]", line)
        if match:
            found[match.group(1)].append(number)
    return found


def _entry(where: str, lines: dict[str, list[int]], key: str, index: int) -> str:
    at = lines[key][index] if index < len(lines[key]) else None
    line = f" line {at}" if at is not None else ""
    return f"{where}{line} ([[{key}]] {index + 1})"


def _common(entry: dict[str, Any], where: str, longest: int) -> tuple[str, str, int]:
    card_id = need(entry, "id", str, where)
    if card_id == WILD or not ID_PATTERN.fullmatch(card_id):
        raise DataError(
            f"{where}.id: {card_id!r} must be lowercase letters, digits and dashes "
            f"(not {WILD!r}), at most 24"
        )
    name = need(entry, "name", str, where).strip()
    if not name or len(name) > longest:
        raise DataError(f"{where}.name: {name!r} must be 1 to {longest} characters")
    cards = need(entry, "cards", int, where)
    if not 1 <= cards <= MAX_CARDS:
        raise DataError(f"{where}.cards: {cards} is outside 1..{MAX_CARDS}")
    return card_id, name, cards


def _card_set(entry: dict[str, Any], where: str) -> CardSet:
    _only(entry, ("id", "name", "value", "cards", "known"), where)
    card_id, name, cards = _common(entry, where, NAME_LENGTH)
    value = need(entry, "value", int, where)
    if not 1 <= value <= MAX_VALUE:
        raise DataError(f"{where}.value: {value} is outside 1..{MAX_VALUE}")
    known = entry.get("known", False)
    if not isinstance(known, bool):
        raise DataError(f"{where}.known: expected true or false")
    return CardSet(card_id, name, value, cards, known)


def _special(entry: dict[str, Any], where: str) -> Special:
    _only(entry, ("id", "name", "role", "cards"), where)
    card_id, name, cards = _common(entry, where, SPECIAL_NAME_LENGTH)
    role = need(entry, "role", str, where)
    if role not in ROLES:
        raise DataError(f"{where}.role: {role!r} is not one of {', '.join(ROLES)}")
    return Special(card_id, name, role, cards)


def _only(entry: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    extra = sorted(set(entry) - set(keys))
    if extra:
        raise DataError(f"{where}: unknown key {extra[0]!r} (keys: {', '.join(keys)})")
