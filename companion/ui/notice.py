"""Notices over the screen (a refusal, a card's name, a problem at start) say all their words.

A notice is any number of pieces of text. Each piece is wrapped to lines that fit across the
OLED at a readable size, and the lines are dealt out three to a page; the pages are shown one
after the other, each saying which it is ("1/2"), so a long sentence goes on to a second page
instead of losing its end.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.ui import fonts
from companion.ui.render import MARGIN, MEDIUM, WIDTH
from companion.ui.screen import Screen

LINES_PER_PAGE = 3  # what the middle of the screen holds at a glance
WRAP_SIZE = 10  # lines are wrapped to fit at this size of the notice's face, or larger
ROOM = WIDTH - 2 * MARGIN


def wrap(text: str) -> list[str]:
    """``text`` as lines that fit across the screen at WRAP_SIZE; words are never split
    (one too long for a line keeps a line of its own and the renderer shrinks it)."""
    lines: list[str] = []
    for word in text.split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and fonts.width(joined, WRAP_SIZE, MEDIUM.face) <= ROOM:
            lines[-1] = joined
        else:
            lines.append(word)
    return lines


def pages(title: str, pieces: Sequence[str]) -> tuple[Screen, ...]:
    """The screens of a notice: every word of ``pieces``, in order, three lines a page."""
    lines = [line for piece in pieces for line in wrap(piece)]
    chunks = [lines[i : i + LINES_PER_PAGE] for i in range(0, len(lines), LINES_PER_PAGE)]
    chunks = chunks or [[]]
    if len(chunks) == 1:
        return (Screen(title, tuple(chunks[0])),)
    return tuple(
        Screen(title, tuple(chunk), footer=f"{n}/{len(chunks)}")
        for n, chunk in enumerate(chunks, start=1)
    )
