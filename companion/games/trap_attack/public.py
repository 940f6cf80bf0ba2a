"""The replay contract's state object (shared/notes/replay.md, section trap-attack).

Relic and loot values appear here for replay checks; the screen keeps them hidden. The key
``menu`` (what of the players' menu is open) is the app's to add: view.menu_public.
"""

from __future__ import annotations

from typing import Any

from companion.games.trap_attack.scoring import leaders, question, scores
from companion.games.trap_attack.state import AI, State


def public(state: State) -> dict[str, Any]:
    ai = state.pawn(AI)
    spot = state.ai_spot
    threat = state.threat
    asked = question(state)
    return {
        "ai": {
            "position": spot.position,
            "life": ai.life,
            "paralyzed": ai.paralyzed,
            "has_crystal": spot.has_crystal,
            "relics": state.ai_relics,
            "loot": ai.loot,
            "at_boat": spot.at_boat,
            "plays": state.options.ai,
            "route": state.options.ai_route,
        },
        "players": {
            h: {"life": p.life, "paralyzed": p.paralyzed, "loot": p.loot}
            for h in state.humans
            for p in (state.pawn(h),)
        },
        "turn": state.turn,
        "turn_no": state.turn_no,
        "last_roll": {
            "move": state.last_roll.move,
            "action": state.last_roll.action,
            "spaces": state.last_roll.spaces,
            "action_face": state.last_roll.action_face,
        },
        "pending": state.pending,
        "threat": None
        if threat is None
        else {
            "card": threat.card,
            "kind": threat.kind,
            "amount": threat.amount,
            "target": threat.target,
            "by": threat.by,
        },
        "discarded": state.discarded,
        "first_tie": list(state.first_tie),
        "winner": state.winner,
        "race_over": state.race_over,
        "scores": {
            who: {
                "race": s.race,
                "relics": s.relics,
                "loot": s.loot,
                "coins": s.coins,
                "total": s.total,
            }
            for who, s in scores(state).items()
        },
        "leaders": list(leaders(state)) if state.race_over else [],
        "asking": None if asked is None else {"entry": asked[0], "player": asked[1]},
        "played": [{"by": p.by, "group": p.group, "target": p.target} for p in state.played],
        "options": {
            "players": state.options.players,
            "ai_route": state.options.ai_route,
            "ai_move": state.options.ai_move,
            "ai": "on" if state.options.ai else "off",
        },
    }
