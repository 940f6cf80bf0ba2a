"""The control map: buttons and curse-card taps to Trapwords actions.

ok starts and pauses, green is a correct guess, red a wrong one, a long red ends the turn as a
failure and asks why (up/down choose, green or ok confirm, red goes back). Between turns up/down
flip to the dungeon picture and back; after a round, ok first moves from the round's report to
the new round's page. A tapped curse card names the curse just revealed.

Whatever is given while the timer stands paused carries ``paused=yes``, so that the journal
alone can tell it (see rules.py).
"""

from __future__ import annotations

from companion.games.base import Action, Input, Press, Tap
from companion.games.trapwords.data import TABLES
from companion.games.trapwords.rules import PAUSED_ARG
from companion.games.trapwords.state import (
    IN_TURN,
    OVER,
    PAUSED,
    READING,
    READY,
    REASONS,
    RUNNING,
    WAITING,
    WHY,
    TrapwordsState,
)

OK_IN_PHASE = {READY: "start", READING: "go", WAITING: "go", RUNNING: "pause", PAUSED: "resume"}


def control(state: TrapwordsState, event: Input) -> Action | None:
    action = _action(state, event)
    if action is not None and _paused(state):
        return Action(action.name, {**action.args, PAUSED_ARG: "yes"})
    return action


def _paused(state: TrapwordsState) -> bool:
    return state.phase == PAUSED or (state.phase == WHY and state.before_why == PAUSED)


def _action(state: TrapwordsState, event: Input) -> Action | None:
    if isinstance(event, Tap):
        return _tap(event)
    if not isinstance(event, Press):
        return None
    button = event.button
    if state.phase == WHY:
        return _why_press(state, button)
    if state.phase in (READY, OVER) and button in ("up", "down"):
        return Action("map")
    if state.phase == READY and button in ("ok", "green"):
        return Action("next" if state.report is not None and not state.show_map else "start")
    if state.phase == READY:
        return None
    if state.phase not in IN_TURN:
        return None
    if button == "ok":
        return Action(OK_IN_PHASE[state.phase])
    if button == "green":
        return Action("correct")
    if button == "red":
        return Action("fail") if event.long else Action("wrong")
    return None


def _why_press(state: TrapwordsState, button: str) -> Action | None:
    if button in ("up", "down"):
        step = 1 if button == "down" else -1
        reason = REASONS[(REASONS.index(state.why) + step) % len(REASONS)]
        return Action("why", {"reason": reason})
    if button in ("ok", "green"):
        return Action(state.why)
    if button == "red":
        return Action("keep")
    return None


def _tap(event: Tap) -> Action | None:
    card = event.card
    if card is None or card.get("game") != "trapwords":
        return None
    card_id = str(card.get("card", ""))
    kind = TABLES.curse(card_id)
    if kind is None:
        return None
    args: dict[str, str] = {"card": card_id}
    if "name" in kind.fields and card.get("name"):
        args["name"] = str(card["name"])
    return Action("curse", args)
