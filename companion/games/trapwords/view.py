"""What the box shows for Trapwords: the replay's public state, the OLED screen and the LED.

Everything is worked out from the state alone, so the time shown is the time left as of the
last applied action; while a timer runs, the ticks (one a second) keep it fresh.

Between turns there are up to three pages: after a round, its report (how the last turn ended
and which pieces to move); the round's page (the monster or what to mind, how many trapwords
each team writes, who gives clues first); and the dungeon picture, reached with up/down.
"""

from __future__ import annotations

from typing import Any

from companion.games.timer import show
from companion.games.trapwords.data import TABLES
from companion.games.trapwords.report import RESULT_LINES, report_pages
from companion.games.trapwords.state import (
    OVER,
    PAUSED,
    READING,
    READY,
    RUNNING,
    WAITING,
    WHY,
    TrapwordsState,
)
from companion.ui.screen import RED, WHITE, Lights, Screen, fraction_color

TITLE = "Trapwords"
TURN_FOOTER = "G got it  R wrong"
RUNNING_FOOTER = "G got  R no  ok pause"  # the clock runs: ok stops it
READY_FOOTER = "ok start  ^v map"
REPORT_FOOTER = "ok next  ^v map"
WHY_LABELS = {"trap": "trapword said", "illegal": "illegal clue"}


def remaining(state: TrapwordsState) -> float:
    return state.timer.remaining(state.shown_at)


def public(state: TrapwordsState) -> dict[str, Any]:
    room_a, room_b = state.team_rooms
    return {
        "round": state.round,
        "rooms": list(state.settings.rooms),
        "teams": {"A": {"room": room_a}, "B": {"room": room_b}},
        "monster_room": state.monster_room,
        "curse_rooms": list(state.curse_rooms),
        "glowing": state.glowing,
        "clue_team": state.clue_team,
        "traps_to_write": {"A": room_b, "B": room_a},
        "guesses_left": state.guesses_left,
        "timer": {
            "remaining": round(remaining(state), 2),
            "running": state.timer.running,
            "limit": round(state.timer.limit, 2),
        },
        "result": state.result,
        "winner": state.winner,
        "phase": state.phase,
        "monster": state.settings.monster,
        "nasty": state.settings.nasty,
        "monster_frozen": state.battled,
        "battling": list(state.battling) if state.phase != OVER else [],
        "cursed": list(state.cursed_teams) if state.phase != OVER else [],
        "curses_to_reveal": state.curses_to_name if state.phase != OVER else 0,
        "curses_revealed": [
            {"card": n.card, "name": n.name, "where": n.where, "void": n.void} for n in state.named
        ],
        "why": state.why if state.phase == WHY else None,
        "map": state.show_map,
        "page": page(state),
    }


def page(state: TrapwordsState) -> str | None:
    """Which page the screen shows between turns (None during a turn)."""
    if state.phase not in (READY, OVER):
        return None
    if state.show_map:
        return "map"
    if state.phase == READY and state.report is not None:
        return "report"
    return "over" if state.phase == OVER else "round"


def dungeon_picture(state: TrapwordsState) -> tuple[str, tuple[object, ...]]:
    room_a, room_b = state.team_rooms
    data = (state.settings.rooms, room_a, room_b, state.monster_room, state.curse_rooms)
    return ("dungeon", data)


LINE = 21  # characters on one screen line
VOID_LINE = "No effect: discard it"  # the curse just revealed does nothing where it lies


def _note(state: TrapwordsState, team: str) -> str:
    """The one thing the table must know before ``team`` plays, if any."""
    monster = state.settings.monster_info.name
    unrevealed = state.curses_to_name - len(state.named)
    if unrevealed > 0 and state.monster_curses and team in state.battling:
        n = state.monster_curses
        return f"{monster}: draw {n} curse{'s' if n > 1 else ''}"
    if unrevealed > 0 and state.cursed_teams:
        return f"Reveal curse: {' '.join(state.cursed_teams)}"
    if state.named and state.named[-1].void:
        return VOID_LINE
    fights = team in state.battling and (team not in state.cursed_teams or not state.named)
    if fights and len(state.battling) > 1:  # both in the monster's room
        return f"A and B vs {monster}"  # (as the turn line: "A vs Troll: 5 left")
    if fights:
        return f"{team} fights the {monster}"
    if state.named:
        return f"Curse: {state.named[-1].name}"[:21]
    return ""


def _ready_lines(state: TrapwordsState) -> tuple[str, ...]:
    team = state.clue_team or "A"
    if state.turns:
        last = state.turns[-1]
        lines = [RESULT_LINES[last.result].format(team=last.team), f"Next: {team} gives clues"]
        tiebreak = state.settings.tiebreak and len(state.battling) == 2 and last.guessed
        if tiebreak:
            lines.append(f"{team} has {state.timer.limit:.1f} s to win")
        else:
            lines.append(_note(state, team))
        return tuple(line for line in lines if line)
    room_a, room_b = state.team_rooms
    note = _note(state, team)
    if state.round == 1 and note:
        # The drawn monster is named on the game's first screen whatever else it says; both
        # teams start in the first room, so one line says the lists and who starts.
        both = f"Both write {room_a}, {team} first"
        return (
            _monster_line(state),
            note,
            both if len(both) <= LINE else f"Write {room_a}, {team} first",
        )
    last = state.round >= TABLES.max_rounds  # the last list on the sheet: the last round
    writes = f"{'Last list: A' if last else 'A writes'} {room_b}, B {room_a}"
    if state.round == 1:
        return (_monster_line(state), writes, f"{team} gives clues first")
    # a new round: the clue-givers pass their torches to the next in line (CHANGE CLUE-GIVERS)
    return (note or _monster_line(state), writes, f"Pass torches: {team} first")


def _monster_line(state: TrapwordsState) -> str:
    """Which monster waits where: a random draw is announced here, on the first page."""
    name = state.settings.monster_info.name
    if state.settings.nasty:
        name = f"Nasty {name}"
    line = f"{name} in room {state.monster_room}"
    return line if len(line) <= 21 else f"{name}: {state.monster_room}"


def _map_line(state: TrapwordsState, team: str) -> str:
    """The one line that fits under the dungeon picture."""
    if state.turns:
        return f"Next: {team} gives clues"
    room_a, room_b = state.team_rooms
    return f"{team} first  A:{room_b} B:{room_a}"


def _turn_line(state: TrapwordsState, team: str) -> str:
    left = state.guesses_left
    monster = state.settings.monster_info.name
    if team in state.battling and team in state.cursed_teams:
        line = f"{team} cursed vs {monster}: {left}"
        if len(line) <= LINE:
            return line
    elif team in state.battling:
        return f"{team} vs {monster}: {left} left"
    if team in state.cursed_teams:
        return f"{team} cursed, {left} guess{'' if left == 1 else 'es'}"
    return f"{team}: {left} guesses left"


def _over_lines(state: TrapwordsState) -> tuple[str, ...]:
    monster = state.settings.monster_info.name
    if state.winner == "monster":
        return (f"The {monster} wins", f"{TABLES.max_rounds} rounds are over")
    if state.winner == "both":
        return ("A and B both win!", f"The {monster} is beaten")
    return (f"Team {state.winner} wins!", f"The {monster} is beaten")


OVER_FOOTER = "^v map  back: menu"  # back opens the game menu (a new game, undo)


def view(state: TrapwordsState) -> tuple[Screen, Lights]:
    last = state.round >= TABLES.max_rounds and state.phase != OVER
    title = f"{TITLE}  R{state.round}{' last' if last else ''}"
    team = state.clue_team
    left = remaining(state)
    if state.phase == OVER:
        colour = {"monster": RED, "both": WHITE}.get(state.winner or "")
        if colour is None:
            colour = _team_colour(state.winner or "A")
        lines = _over_lines(state)
        if state.show_map:
            screen = Screen(title, lines[:1], footer=OVER_FOOTER, picture=dungeon_picture(state))
            return screen, Lights(colour, "blink")
        return Screen(title, lines, footer=OVER_FOOTER), Lights(colour, "blink")
    assert team is not None
    if state.phase == READY:
        time_up = state.result == "timeout"
        if state.show_map:
            screen = Screen(
                title,
                (_map_line(state, team),),
                footer=READY_FOOTER,
                picture=dungeon_picture(state),
            )
        elif state.report is not None:
            pages = report_pages(state, state.report)
            head = f"End of round {state.report.round}"
            if len(pages) > 1:
                head = f"{head}  {state.report_page + 1}/{len(pages)}"
            screen = Screen(head, pages[state.report_page], footer=REPORT_FOOTER, inverted=time_up)
        else:
            screen = Screen(
                title,
                _ready_lines(state),
                footer=READY_FOOTER,
                inverted=time_up and bool(state.turns),
            )
        return screen, Lights(_team_colour(team))
    if state.phase == WHY:
        marks = {reason: ("> " if state.why == reason else "  ") for reason in WHY_LABELS}
        lines = ("Turn failed: why?", *(marks[r] + label for r, label in WHY_LABELS.items()))
        return Screen(title, lines, footer="G pick  R go back"), Lights(RED, "blink")
    big = show(left)
    if state.phase == READING:
        screen = Screen(title, (f"{team} reads the word",), big=big, footer=TURN_FOOTER)
        return screen, Lights(_team_colour(team), "blink")
    if state.phase == WAITING:
        screen = Screen(title, (f"{team}: ok at 1st clue",), big=big, footer=TURN_FOOTER)
        return screen, Lights(_team_colour(team), "blink")
    colour = fraction_color(state.timer.fraction_left(state.shown_at))
    if state.phase == PAUSED:
        screen = Screen(title, ("Paused: ok resumes",), big=big, footer=TURN_FOOTER)
        return screen, Lights(colour, "pulse")
    assert state.phase == RUNNING
    screen = Screen(title, (_turn_line(state, team),), big=big, footer=RUNNING_FOOTER)
    return screen, Lights(colour)


def _team_colour(team: str) -> tuple[float, float, float]:
    return TABLES.team_colours[team]
