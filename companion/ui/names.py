"""Players' names where a game's screen names a seat (issue 48): "Seat 2 wins!" reads
"Bob wins!" once seat 2 is named Bob, "S3 8+6" reads "Cy 8+6", Trap Attack's "P1" and
"Player 1", Trapwords' "Team A" and "A:" likewise, and a turn screen's large seat number
("2" reads "Bob"; Hostage Trap!'s timer "S2 56s" reads "Bob 56s"). A name goes in whole when
the line stays within ``ROOM`` characters (or no longer than it was), else its short form (at
most 8 characters, core/players.py:short), else the line stays as the game wrote it; large
text takes the whole name where it fits across the screen, else the short form. Seats without
a name are left exactly as they are, so a game with no names shows what it always did."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from companion.core.players import short
from companion.ui.render import big_fits
from companion.ui.screen import Screen

ROOM = 20  # characters a line of the OLED holds in its usual size


def _patterns(seat: object) -> tuple[re.Pattern[str], ...]:
    if isinstance(seat, str):  # a team
        return (re.compile(rf"\bTeam {seat}\b"), re.compile(rf"^{seat}(?=:)"))
    return (
        re.compile(rf"\bSeat {seat}\b"),
        re.compile(rf"\bPlayer {seat}\b"),
        re.compile(rf"\b[SP]{seat}\b"),
    )


def line(text: str, names: Mapping[object, str]) -> str:
    """One line with the names in."""
    for seat, name in names.items():
        for pattern in _patterns(seat):
            if not pattern.search(text):
                continue
            room = max(ROOM, len(text))
            for shown in (name, short(name)):
                new = pattern.sub(lambda _m, s=shown: s, text)
                if len(new) <= room:
                    text = new
                    break
    return text


def with_names(screen: Screen, names: Mapping[object, str]) -> Screen:
    """``screen`` with the named seats' names in its title and lines."""
    if not names:
        return screen
    return replace(
        screen,
        title=line(screen.title, names),
        lines=tuple(line(text, names) for text in screen.lines),
        big=_big(screen, names),
    )


def _big(screen: Screen, names: Mapping[object, str]) -> str | None:
    """The large text with the seat it stands for named: the whole name where it fits across
    the screen (the renderer sizes large text down to fit), else its short form."""
    big = screen.big
    if big is None:
        return None
    seat = screen.big_seat
    name = names.get(seat) if seat is not None else None
    if name is not None and big == str(seat):
        return name if big_fits(name) else short(name)
    for shown in (names, {s: short(n) for s, n in names.items()}):
        named = line(big, shown)
        if big_fits(named):
            return named
    return big
