"""The options a table picks before a game: how many play, the AI's route and die, whether the
AI pawn plays, and which board profile the track is read from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import BadAction, Option
from companion.games.trap_attack.board import ROUTES, load_board

DEFAULT_BOARD = "default"  # the profile shipped in companion/games/data/
# The AI's route and die matter only when the AI pawn plays: on, or "auto" with one player.
AI_PLAYS = (("ai", ("on",)),)
AI_BY_DEFAULT = (("ai", ("auto",)), ("players", ("1",)))
OPTIONS = (
    Option("players", "Players", "1", choices=("1", "2", "3")),
    Option("ai_route", "AI route", "long", ROUTES, only_if=AI_PLAYS, also_if=AI_BY_DEFAULT),
    Option(
        "ai_move", "AI move", "d4", ("d4", "d4-only", "d3"), only_if=AI_PLAYS, also_if=AI_BY_DEFAULT
    ),
    Option("ai", "AI pawn", "auto", choices=("auto", "on", "off")),
    Option("board", "Board", DEFAULT_BOARD),  # or the path of the owner's own profile
)


def check_options(options: Mapping[str, str]) -> dict[str, Any]:
    """The options with defaults filled in; BadAction names the first bad one."""
    known = {o.name: o for o in OPTIONS}
    unknown = sorted(set(options) - set(known))
    if "dice" in unknown:
        raise BadAction(
            "trap-attack has no option 'dice': the box's dice setting (config dice.source,"
            " or 'Dice: table' in the game menu) applies to every game"
        )
    if unknown:
        raise BadAction(f"trap-attack has no option {unknown[0]!r} (options: {', '.join(known)})")
    out: dict[str, Any] = {}
    for option in OPTIONS:
        value = str(options.get(option.name, option.default))
        if option.choices and value not in option.choices:
            raise BadAction(f"{option.name}={value!r} is not one of {', '.join(option.choices)}")
        out[option.name] = value
    out["players"] = int(out["players"])
    if out["ai"] == "auto":
        out["ai"] = "on" if out["players"] == 1 else "off"
    if out["board"] in ("", DEFAULT_BOARD):
        out["board"] = DEFAULT_BOARD
    else:
        load_board(out["board"])  # a broken file is named now, not mid-game
    return out
