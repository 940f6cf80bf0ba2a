"""What green and red do now, in one place: the control map acts on it and the screens write
their footer from it, so a footer never names what a button did a moment ago (after "entered"
or "built" green has nothing left to report, and the footer stops offering it)."""

from __future__ import annotations

from companion.games.base import Action, Rejected
from companion.games.cover_your_asps import rules, scoring
from companion.games.cover_your_asps.state import BUILD, COLLECT, SoloState, State, TableState

# Green's words on the footer, by what it does (an action's name, or "report": the seat's
# menu with the report its phase expects first).
GREEN_WORDS = {
    "plank": "plank",
    "enter": "enter",
    "move": "move",
    "entered": "entered",
    "report": "report",
}
END_TURN = "R end turn"


def primary(state: TableState) -> str:
    """The roll the seat on turn's phase needs: what green does before the turn's action."""
    seat = state.seat(state.turn)
    if seat.phase == BUILD:
        return "plank"
    if seat.phase == COLLECT and not seat.inside:
        return "enter"
    return "move"


def report_for(state: TableState) -> str:
    """The report the seat on turn's phase expects (the first entry of its menu)."""
    seat = state.seat(state.turn)
    if seat.phase == BUILD:
        return "built"
    if seat.phase == COLLECT:
        return "vault" if seat.inside else "entered"
    return "escaped"


def accepted(state: State, action: Action) -> bool:
    """Whether the rules take this roll-less action now."""
    try:
        rules.apply(state, action)
    except Rejected:
        return False
    return True


def green(state: TableState) -> str | None:
    """What green does on the table game's screen now; None: nothing (the footer leaves it out).

    Before the turn's action: the roll the phase needs. After it: the phase's report, if the
    rules would take it now ("entered" directly, the others through the seat's menu, since a
    roll rarely finishes a build or a walk). At the end: the next entry of the count, or the
    count's menu once it is complete (to correct an entry).
    """
    if state.over:
        return "count" if scoring.missing(state) else "edit"
    if state.acted is None:
        return primary(state)
    report = report_for(state)
    if not accepted(state, Action(report)):
        return None
    return "entered" if report == "entered" else "report"


def table_footer(state: TableState) -> str:
    """The footer of the table game's turn screens: green's word (if any), then red's."""
    does = green(state)
    if does is None:
        return f"ok menu  {END_TURN}"
    word = GREEN_WORDS[does]
    if does == "plank" and state.settings.planking == "draw":
        word = "draw"
    gap = " " if len(word) > 6 else "  "
    return f"G {word}{gap}{END_TURN}"


def solo_ok(state: SoloState) -> bool:
    """Whether ok has a plank to count now (one plank per roll)."""
    return state.unused_roll and not state.over
