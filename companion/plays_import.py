"""Player names from a BG Stats export (issue 48): the JSON of its backup export, as BG Stats
writes it and as `trap-companion records export --format bgstats` does. Only the players'
names are taken, to pick from on the box and the faces; the plays stay in BG Stats. Anonymous
players and names the box does not take (core/players.py:clean) are left out and said."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from companion.core.players import GUEST, BadName, clean
from companion.plays_export import ANONYMOUS

MAX_NAMES = 500  # names taken from one file (the box keeps at most as many players)


@dataclass
class Names:
    names: list[str] = field(default_factory=list)  # as the box keeps them, first seen first
    refused: list[str] = field(default_factory=list)  # each with why


def bgstats_names(data: Any, where: str = "the file") -> Names:
    """The players' names of a BG Stats export (its JSON, parsed); ValueError naming ``where``
    when it is no BG Stats export."""
    players = data.get("players") if isinstance(data, dict) else None
    if not isinstance(players, list):
        raise ValueError(f"{where}: not a BG Stats export (no list of 'players')")
    out = Names()
    for i, player in enumerate(players):
        if not isinstance(player, dict):
            out.refused.append(f"player {i + 1}: not a player")
            continue
        name = player.get("name")
        if player.get("isAnonymous") or name == ANONYMOUS:
            continue
        if not isinstance(name, str):
            out.refused.append(f"player {i + 1}: no name")
            continue
        try:
            kept = clean(name)
        except BadName as err:
            out.refused.append(str(err))
            continue
        if kept != GUEST and kept not in out.names and len(out.names) < MAX_NAMES:
            out.names.append(kept)
    return out


def read_bgstats_names(text: str, where: str) -> Names:
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ValueError(f"{where}: not JSON ({err})") from None
    return bgstats_names(data, where)
