"""The card registry: which tagged card is which game card. A TOML file in the state directory,
written atomically, so a power cut during enrolment leaves the old registry or the new one.

The file says its format (``format = 1`` at the top; none is 1, as every file before it). One of
a newer format is a newer release's: refused whole (``formats.NewerFormat``), left as it is, no
card enrolled or forgotten over it (``formats.Refused``) while it is there."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import zlib
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path
from typing import Any

from companion.core import durable, formats, statefile, values
from companion.core.tomltext import toml_value
from companion.errors import DataError

log = logging.getLogger(__name__)

UID_RE = re.compile(r"^[0-9A-F]{2,20}$")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
FORMAT = 1


@values.value
class Card:
    uid: str
    game: str
    card: str
    name: str
    fields: dict[str, Any] = field(default_factory=dict)

    def as_tap(self) -> dict[str, Any]:
        return {"game": self.game, "card": self.card, "name": self.name, **self.fields}


def demo_uid(game: str, card: str) -> str:
    """A stable made-up UID for a catalog card: the simulator's and replay's demo deck."""
    return f"{zlib.crc32(f'{game}:{card}'.encode()):08X}"


class Registry:
    def __init__(self, path: Path, demo: Iterable[Card] = (), read: bool = True) -> None:
        """``read=False``: start with no enrolled cards (the file was just set aside); an
        edit made later is still picked up."""
        self.path = path
        self.cards: dict[str, Card] = {}
        self.demo: dict[str, Card] = {c.uid: c for c in demo}
        self._mtime: float | None = None
        self.newer: formats.NewerFormat | None = None  # a newer release's file: left alone
        # A file this process may not open (root's, say): left where it is, never written over,
        # read as soon as it is given back (statefile.set_aside names the command).
        self.blocked: statefile.NoAccess | None = None
        if read:
            self._reload()
        else:
            with contextlib.suppress(OSError):
                self._mtime = os.lstat(path).st_mtime_ns  # a file that could not be moved

    def _reload(self) -> None:
        """Pick up edits made by `trap-companion cards` while the daemon runs (the link
        itself, if it is one: the read names it)."""
        try:
            mtime = os.lstat(self.path).st_mtime_ns
        except FileNotFoundError:
            return
        except OSError as err:
            raise DataError(f"{self.path}: card registry unreadable ({err.strerror})") from None
        if self.blocked is not None:
            if statefile.blocks(self.path) is not None:
                return  # still not ours: the cards read before (none) stay
            self.blocked, self._mtime = None, None  # given back: read it now
        if mtime != self._mtime:
            self.cards = self._load()
            self._mtime = mtime

    def _load(self) -> dict[str, Card]:
        """Every value checked here, so a hand-edited file fails at start (and is set aside),
        never later at a tap."""
        cards: dict[str, Card] = {}
        try:
            text = statefile.read_text(self.path, statefile.CARDS.cap)
            if text is None:
                return cards
            if not text.strip():
                raise statefile.Unreadable(self.path, "is empty (the box never writes it so)")
            data = statefile.parse_toml(self.path, text)
        except statefile.NoAccess:
            raise  # whose it is and the fix, as it says (77 from a shell)
        except statefile.Unreadable as err:
            raise DataError(f"{self.path}: card registry unreadable: {err.why}") from None
        except ValueError as err:  # not TOML
            raise DataError(f"{self.path}: card registry unreadable ({err})") from None
        formats.check(data.get("format"), FORMAT, self.path)
        table = data.get("cards", {})
        if not isinstance(table, dict):
            raise DataError(
                f'{self.path}: cards = {toml_value(table)}: must be [cards."UID"] tables'
            )
        for uid, entry in table.items():
            where = f"{self.path}: [cards.{uid}]"
            if not UID_RE.match(uid):
                raise DataError(f"{where}: a UID is 2..20 upper-case hex characters")
            if not isinstance(entry, dict):
                raise DataError(f"{where} = {toml_value(entry)}: must be a table")
            for key in ("game", "card", "name"):
                if key not in entry:
                    raise DataError(f"{where}: missing {key}")
                if not isinstance(entry[key], str):
                    raise DataError(f"{where}: {key} = {toml_value(entry[key])}: must be text")
            extra = {k: v for k, v in entry.items() if k not in ("game", "card", "name")}
            for key, value in extra.items():
                if not isinstance(value, str | int | float):  # a card value, as a tap gives it
                    raise DataError(
                        f"{where}: {key} = {toml_value(value)}: must be a number or text"
                    )
            cards[uid] = Card(uid, entry["game"], entry["card"], entry["name"], extra)
        return cards

    @classmethod
    def open_or_set_aside(cls, path: Path, demo: Iterable[Card] = ()) -> tuple[Registry, str]:
        """For the daemon: a broken registry file is kept aside, never a reason to stop."""
        try:
            return cls(path, demo), ""
        except formats.NewerFormat as err:
            log.error("card registry %s; starting with no enrolled cards", err)
            registry = cls(path, demo, read=False)
            registry.newer = err
            return registry, str(err)
        except DataError as err:
            message = statefile.set_aside(path, str(err), "starting with no enrolled cards")
            registry = cls(path, demo, read=False)
            registry.blocked = statefile.blocks(path)
            return registry, message

    def lookup(self, uid: str) -> Card | None:
        try:
            self._reload()
        except DataError as err:
            log.error("%s (keeping the cards read before)", err)
        return self.cards.get(uid) or self.demo.get(uid)

    def find(self, card_id: str) -> Card | None:
        """A card by its catalog id (replay's ``tap @CARD``): enrolled ones first, then demo."""
        for pool in (self.cards, self.demo):
            for card in pool.values():
                if card.card == card_id:
                    return card
        return None

    def enrol(self, card: Card) -> None:
        if not UID_RE.match(card.uid):
            raise DataError(f"UID {card.uid!r} is not 2..20 upper-case hex characters")
        old = self.cards.get(card.uid)
        self.cards[card.uid] = card
        try:
            self.save()
        except OSError:  # not kept on disk, so not enrolled: the caller says why
            if old is None:
                del self.cards[card.uid]
            else:
                self.cards[card.uid] = old
            raise

    def forget(self, uid: str) -> Card | None:
        card = self.cards.pop(uid, None)
        if card:
            try:
                self.save()
            except OSError:  # still on disk, so still enrolled: the caller says why
                self.cards[uid] = card
                raise
        return card

    def refresh(self) -> None:
        """Read the file again if it changed since (an edit by hand); a damaged one keeps the
        cards read before, as a tap's lookup does."""
        try:
            self._reload()
        except DataError as err:
            log.error("%s (keeping the cards read before)", err)

    def save(self) -> None:
        if self.newer is not None and statefile.exists(self.path):
            raise formats.Refused(self.newer)
        if self.blocked is not None and (refusal := statefile.blocks(self.path)) is not None:
            raise PermissionError(errno.EACCES, refusal.why, str(self.path))
        lines = [
            "# Trap Companion card registry: UID -> card. Edit with `trap-companion cards`.",
            f"format = {FORMAT}",
            "",
        ]
        for uid in sorted(self.cards):
            c = self.cards[uid]
            lines.append(f'[cards."{uid}"]')
            lines.append(f"game = {toml_value(c.game)}")
            lines.append(f"card = {toml_value(c.card)}")
            lines.append(f"name = {toml_value(c.name)}")
            for key, value in sorted(c.fields.items()):
                lines.append(f"{key} = {toml_value(value)}")
            lines.append("")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        durable.replace_whole(self.path, "\n".join(lines).encode("utf-8"))
