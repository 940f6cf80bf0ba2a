"""Checking screens as drawn: every text shown whole on the 128x64 OLED."""

from __future__ import annotations

from companion.ui.fonts import ELLIPSIS
from companion.ui.render import layout
from companion.ui.screen import Screen


def uncut(screen: Screen) -> list[str]:
    """The texts as drawn; fails when one was cut or left out."""
    placed = layout(screen).texts
    drawn = [p.text for p in placed]
    for text in drawn:
        assert ELLIPSIS not in text, (screen, text)
    wanted = [
        t for t in (screen.title, screen.footer, screen.big, *screen.lines) if t and t.strip()
    ]
    assert sorted(drawn) == sorted(wanted), (screen, drawn)
    return drawn
