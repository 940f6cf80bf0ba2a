"""The game menu's "Records" page of players (issue 48): the top three by wins of this game's
plays kept, on one OLED page ("1. Ann 5/8" is five wins of eight plays)."""

from __future__ import annotations

from typing import Any

from companion.core import plays as playfile
from companion.core.players import short
from companion.ui.screen import Screen

TOP = 3
ROOM = 20  # characters of the title line


def top_page(title: str, plays: list[dict[str, Any]], game: str) -> Screen | None:
    """None when no play of the game has a named player."""
    ranked = playfile.wins(plays, game)[:TOP]
    if not ranked:
        return None
    lines = tuple(f"{i}. {short(n, 10)} {w}/{p} won" for i, (n, w, p) in enumerate(ranked, 1))
    heading = f"{title}: most wins"
    return Screen(heading if len(heading) <= ROOM else "Most wins", lines)
