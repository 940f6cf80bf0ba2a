"""The simulator's picture for a terminal of a given size: the OLED in a frame and a panel of
what the box's other parts do (LED, sounds, reader, cards) with the keys.

Pure text in, text out, so every size can be tested without a terminal. No line is ever wider
than the terminal (a wrapped line garbles the whole frame): the OLED is drawn in the largest
way that fits, the panel goes beside it or under it and shortens its help, and a terminal too
small for anything gets one line saying the size it needs.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from companion.sim.frame import braille, halfblocks
from companion.ui.screen import Screen

TITLE = "Trap Companion simulator"
# How the OLED is drawn: its inside size in character cells.
DRAWINGS: dict[str, tuple[int, int]] = {
    "blocks": (128, 32),  # two pixels per cell with half blocks: every pixel
    "braille": (64, 16),  # eight pixels per cell
    "text": (34, 5),  # the screen's words only, for very small terminals
}
DISPLAYS = ("auto", *DRAWINGS)
PANEL_WIDTH = 30  # the narrowest panel worth putting beside the OLED
GUTTER = 2  # columns between the OLED and the panel beside it

HELP = (
    "Keys (capital = long press)",
    "  up/down  arrows or k/j",
    "  ok       Enter or o",
    "  back     b (B: undo)",
    "  green    g (G: long)",
    "  red      r (R: long)",
    "Cards",
    "  c / C    next / previous",
    "  t        tap the chosen one",
    "  u        type a UID, Enter",
    "q or Ctrl-C  quit",
)
SHORT_HELP = (
    "k j ↑↓ up/down  o ok  b back  B undo",
    "g r green/red  G R long  q quit",
    "c C pick card  t tap  u type UID",
)
NARROW_HELP = (  # the short help for a panel beside the OLED: PANEL_WIDTH columns at most
    "k j ↑↓ up/down  o ok  b back",
    "B undo  g r green/red",
    "G R long press  q quit",
    "c C pick card  t tap",
    "u type a UID, Enter",
)
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass(frozen=True)
class Panel:
    """What the parts around the OLED show now."""

    led: str  # the LED as a coloured block (escape codes allowed)
    pattern: str
    sounds: str
    reader: str
    card: str
    uid: str
    message: str = ""  # the UID being typed, a tap, a problem


def visible_width(text: str) -> int:
    return len(ESCAPE.sub("", text))


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` visible columns (escape codes kept whole and closed)."""
    if visible_width(text) <= width:
        return text
    out, shown, i = [], 0, 0
    while i < len(text) and shown < width:
        match = ESCAPE.match(text, i)
        if match:
            out.append(match.group())
            i = match.end()
            continue
        out.append(text[i])
        shown += 1
        i += 1
    if out and width > 0 and not ESCAPE.fullmatch(out[-1]):
        out[-1] = "…"
    return "".join(out) + ("\x1b[0m" if "\x1b" in text else "")


def drawing_size(display: str) -> tuple[int, int]:
    """Columns and rows the framed OLED takes."""
    inner_w, inner_h = DRAWINGS[display]
    return inner_w + 2, inner_h + 2


def _oled_rows(display: str, image: Image.Image | None, screen: Screen | None) -> list[str]:
    inner_w, inner_h = DRAWINGS[display]
    if display == "text":
        rows = [fit(line, inner_w).center(inner_w) for line in _words(screen)[:inner_h]]
    elif image is None:
        rows = []
    else:
        rows = halfblocks(image) if display == "blocks" else braille(image)
    rows = rows[:inner_h] + [" " * inner_w] * (inner_h - len(rows))
    return [row + " " * (inner_w - visible_width(row)) for row in rows]


def _words(screen: Screen | None) -> list[str]:
    """The screen's text top to bottom; a menu's rows (indented) keep one left edge."""
    if screen is None:
        return []
    middle = list(screen.lines)
    if any(line[:1].isspace() for line in middle):
        widest = max(len(line) for line in middle)
        middle = [line.ljust(widest) for line in middle]
    big = [screen.big] if screen.big is not None else []
    footer = [screen.footer] if screen.footer else []
    return [screen.title, *big, *middle, *footer]


def _wrapped(label: str, text: str, width: int) -> list[str]:
    """``label`` and ``text`` on as many lines as the panel's width needs (names whole, the
    lines after the first indented under the text)."""
    indent = " " * len(label)
    return textwrap.wrap(
        label + text, max(len(label) + 8, width), subsequent_indent=indent, break_on_hyphens=False
    ) or [label]


def _beside(panel: Panel, width: int = 10**6) -> list[list[str]]:
    """The panel beside the OLED (``width`` columns), fullest first."""
    status = [
        f"LED {panel.led} {panel.pattern}",
        *_wrapped("Sound: ", panel.sounds, width),
        f"Reader: {panel.reader}",
        *_wrapped("Card: ", panel.card, width),
        f"      {panel.uid}",
        panel.message,
    ]
    return [
        [TITLE, *status, "", *HELP],
        [TITLE, *status, *HELP],
        [TITLE, *status, "", *NARROW_HELP],
        [TITLE, *status, *NARROW_HELP],
        [TITLE, *[s for s in status if s], *NARROW_HELP],
        [TITLE, *[s for s in status if s], NARROW_HELP[0], NARROW_HELP[2]],
    ]


def _under(panel: Panel) -> list[list[str]]:
    """The panel under the OLED (a narrow terminal), fullest first."""
    led = f"LED {panel.led} {panel.pattern}  Sound: {panel.sounds}"
    card = f"Card: {panel.card} {panel.uid}"
    message = [panel.message] if panel.message else []
    return [
        [led, f"Reader: {panel.reader}", card, *message, *SHORT_HELP],
        [led, card, *message, *SHORT_HELP],
        [led, *(message or [card]), *SHORT_HELP],
        [*(message or [card]), *SHORT_HELP],
        [*(message or [card]), *SHORT_HELP[:2]],
    ]


def _first_fitting(choices: list[list[str]], rows: int) -> list[str] | None:
    return next((lines for lines in choices if len(lines) <= rows), None)


UNDER_WIDTH = max(len(line) for line in SHORT_HELP)  # the panel under the OLED needs its help


def needed(display: str = "auto") -> tuple[int, int]:
    """The smallest terminal that shows ``display`` (auto: any drawing)."""
    if display == "auto":
        display = "text"
    width, height = drawing_size(display)
    least_under = min(len(lines) for lines in _under(Panel("", "", "", "", "", "", "")))
    return max(width, UNDER_WIDTH) + 1, height + least_under


def compose(
    width: int,
    height: int,
    panel: Panel,
    image: Image.Image | None = None,
    screen: Screen | None = None,
    display: str = "auto",
) -> list[str]:
    """The terminal's lines, top to bottom: never more than ``height`` of them, none wider
    than ``width - 1`` (writing the last column would leave the cursor waiting to wrap)."""
    usable = max(0, width - 1)
    for drawing in DRAWINGS if display == "auto" else (display,):
        frame_w, frame_h = drawing_size(drawing)
        if frame_w > usable or frame_h > height:
            continue
        rows = _oled_rows(drawing, image, screen)
        framed = ["┌" + "─" * (frame_w - 2) + "┐", *(f"│{r}│" for r in rows)]
        framed.append("└" + "─" * (frame_w - 2) + "┘")
        side = usable - frame_w - GUTTER
        lines = _first_fitting(_beside(panel, side), frame_h) if side >= PANEL_WIDTH else None
        if lines is not None:
            lines = lines + [""] * (frame_h - len(lines))
            return [
                left + " " * GUTTER + fit(right, side) if right else left
                for left, right in zip(framed, lines, strict=True)
            ]
        lines = _first_fitting(_under(panel), height - frame_h)
        if lines is not None and usable >= UNDER_WIDTH:
            title = fit(TITLE, frame_w - 6)
            framed[0] = f"┌─ {title} " + "─" * (frame_w - 5 - len(title)) + "┐"
            return framed + [fit(line, usable) for line in lines]
    need_w, need_h = needed(display)
    what = f" for --display {display}" if display != "auto" else ""
    message = f"terminal too small{what}: need {need_w}x{need_h} (now {width}x{height})"
    if len(message) > usable:  # a tiny window: the same words on as many lines as it takes
        message = f"terminal too small{what}:\nneed {need_w}x{need_h}\n(now {width}x{height})"
    return [fit(line, usable) for line in message.splitlines()[: max(1, height)]]


def joined(lines: Sequence[str]) -> str:
    """The lines as one write: from the top-left corner, each line cleared to its end, and
    everything below the last one cleared (a shrunk picture leaves nothing behind)."""
    return "\x1b[H" + "\x1b[K\r\n".join(lines) + "\x1b[K\x1b[J"
