"""The replay contract's state object for Deathtrap Dungeon (../shared/notes/replay.md): the
contract's keys exactly, plus ``building`` (the cards tapped for a play not yet submitted) and
``start`` (why the table is empty: the pig, a won hand or The Killing Machine)."""

from __future__ import annotations

from typing import Any

from companion.games.deathtrap_dungeon.state import DeathtrapState
from companion.games.seats import by_seat


def public(state: DeathtrapState) -> dict[str, Any]:
    seats = state.ring.seats
    table = state.table
    building = state.building
    return {
        "players": state.settings.players,
        "rounds": state.settings.rounds,
        "pig": state.settings.pig,
        "round": state.round,
        "phase": state.phase,
        "turn": state.turn,
        "leader": state.leader,
        "table": None
        if table is None
        else {
            "n": table.n,
            "value": table.value,
            "by": table.by,
            "wild": table.wild,
            "set": table.set,
        },
        "passed": list(state.passed),
        "finished": list(state.finished),
        "titles": by_seat(dict(state.titles)),
        "points": by_seat({s: state.points[s - 1] for s in seats}),
        "history": [by_seat({s: r[s - 1] for s in seats}) for r in state.history],
        "exchanges": [
            {"from": e.giver, "to": e.to, "cards": e.cards, "highest": e.highest}
            for e in state.exchanges
        ],
        "winner": None if state.winner is None else list(state.winner),
        "building": None
        if building is None
        else {
            "seat": building.seat,
            "set": building.set,
            "value": building.value,
            "n": building.n,
            "wild": building.wild,
        },
        "start": None if state.start is None else {"why": state.start.why, "by": state.start.by},
    }
