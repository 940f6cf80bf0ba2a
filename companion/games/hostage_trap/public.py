"""The replay contract's state object for Hostage Trap! (../shared/notes/replay.md): the keys it
names, then a few more. A claim being tapped shows only its seat and how many hostages were
seen, never which: the contract's output is read by people too."""

from __future__ import annotations

from typing import Any

from companion.games.hostage_trap.rules import claim_left
from companion.games.hostage_trap.state import HostageState
from companion.games.seats import by_seat


def public(state: HostageState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "players": state.settings.players,
        "turn": state.turn,
        "turn_no": state.turn_no,
        "held": by_seat(state.held()),
        "ability_used": state.ability_used,
        "drew": state.drew,
        "attack": state.attack,
    }
    if state.timer is not None:
        out["timer"] = {
            "remaining": round(state.timer.remaining(state.shown_at), 2),
            "running": state.timer.running,
        }
    out["winner"] = state.winner
    showing = state.showing
    out |= {
        "hand": state.settings.hand,
        "hostages": state.settings.hostages,
        "spares": state.settings.spares,
        "attacked": state.attacked,
        "trapped": state.trapped,
        "allowed": list(state.allowed()) if not state.over else [],
        "take_trap": list(state.take_back),
        "claim": None
        if showing is None
        else {
            "player": showing.seat,
            "seen": len(showing.colours),
            "wait": round(claim_left(state), 2),  # seconds left for the next tap
        },
        "winning": list(state.winning),
        "notice": list(state.notice),
    }
    return out
