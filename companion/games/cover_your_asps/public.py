"""The replay contract's state object for Cover Your Asps (../shared/notes/replay.md): exactly
its keys, plus a few that help a reader of the output (the checklist, the phase on turn)."""

from __future__ import annotations

from typing import Any

from companion.games.cover_your_asps.scoring import cards_counted, way, winner
from companion.games.cover_your_asps.state import SoloState, State, TableState
from companion.games.seats import by_seat


def public(state: State) -> dict[str, Any]:
    if isinstance(state, SoloState):
        return _solo(state)
    return _table(state)


def _doubles(doubles: tuple[str, ...] | None) -> list[str] | None:
    return list(doubles) if doubles is not None else None


def _table(state: TableState) -> dict[str, Any]:
    won = winner(state)
    seats = {
        n: {
            "phase": s.phase,
            "inside": s.inside,
            "cards": s.cards,
            "treasures": s.treasures,
            "escapes": s.escapes,
            "points": s.points,
            "planks": s.planks,
            "count": way(s),
            "counted": cards_counted(s),
        }
        for n, s in enumerate(state.seats, start=1)
    }
    return {
        "players": state.settings.players,
        "turn": None if state.over else state.turn,
        "round": state.round,
        "vault": state.vault,
        "treasure_left": state.treasure_left,
        "last_roll": list(state.last_roll),
        "doubles": _doubles(state.doubles),
        "acted": state.acted is not None,
        "over": state.over,
        "winner": list(won) if won is not None else None,
        "seats": by_seat(seats),
        "action": state.acted,
        "checklist": state.checklist,
        "card": state.card_name,
        "youngest": state.youngest,
        "planking": state.settings.planking,
        "tiebreak": state.settings.tiebreak,
        # named only when the table chose the race: the default's outputs stay as they were
        **({"collect": state.settings.collect} if state.settings.collect != "per-round" else {}),
    }


def _solo(state: SoloState) -> dict[str, Any]:
    return {
        "players": 1,
        "last_roll": list(state.last_roll),
        "doubles": None,  # rulings 8: the solo rules have no doubles table
        "over": state.over,
        "rolls": state.rolls,
        "placed": state.placed,
        "result": state.result,
        "rolled": state.unused_roll,
    }
