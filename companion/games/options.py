"""Parsing a game's options from the text players type (``--set players=4``) or a menu gives,
for games whose options are plain choices and bounded whole numbers: one parser, so every game
names a bad option the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import BadAction, Option


def whole_number(key: str, text: str, low: int, high: int) -> int:
    """ASCII digits only: ``int()`` would also take '٣' or '²'-like forms players never type."""
    if not (text.isascii() and text.isdigit()):
        raise BadAction(f"{key}={text!r} is not a whole number ({low}..{high})")
    value = int(text)
    if not low <= value <= high:
        raise BadAction(f"{key}={value} is outside {low}..{high}")
    return value


def parse(game: str, specs: tuple[Option, ...], raw: Mapping[str, Any]) -> dict[str, Any]:
    """Checked options with defaults filled in: a bounded option becomes an int, a choice stays
    text (an int when every choice is a number). BadAction names the first bad one."""
    known = {spec.name: spec for spec in specs}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise BadAction(f"{game} has no option {unknown[0]!r} (options: {', '.join(known)})")
    out: dict[str, Any] = {}
    for spec in specs:
        text = str(raw.get(spec.name, spec.default)).strip()
        if spec.choices:
            if text not in spec.choices:
                raise BadAction(f"{spec.name}={text!r} is not one of {', '.join(spec.choices)}")
            numeric = all(c.isascii() and c.isdigit() for c in spec.choices)
            out[spec.name] = int(text) if numeric else text
        elif spec.bounds is not None:
            out[spec.name] = whole_number(spec.name, text, *spec.bounds)
        else:
            out[spec.name] = text
    return out


def numbers(low: int, high: int) -> tuple[str, ...]:
    """The choices of a small whole-number option (players 2..4)."""
    return tuple(str(n) for n in range(low, high + 1))
