"""The end-of-round report: everything the table moves by hand, in the order the rulings give
(rulings, Trapwords 5): teams that advance, the curses to discard (the Mummy's included), then
the monster's step and every curse it pushes. It runs over as many pages as it needs; no part
is ever dropped to fit the screen."""

from __future__ import annotations

import textwrap
from collections import Counter

from companion.games.trapwords.state import RoundReport, TrapwordsState

LINE = 21  # characters on one screen line
PAGE = 3  # text lines on one screen

RESULT_LINES = {
    "correct": "{team} guessed it!",
    "wrong": "{team}: out of guesses",
    "trap": "{team}: trapword said",
    "illegal": "{team}: illegal clue",
    "timeout": "{team}: time is up",
}


def report_lines(state: TrapwordsState, report: RoundReport) -> tuple[str, ...]:
    last = report.last
    sentences = [RESULT_LINES[last.result].format(team=last.team)]
    monster = state.settings.monster_info.name
    if report.advanced:
        rooms = {room for _, room in report.advanced}
        if len(report.advanced) == 2 and len(rooms) == 1:
            sentences.append(f"A and B to room {rooms.pop()}")
        elif len(report.advanced) == 2:
            sentences.append(", ".join(f"{team} to {room}" for team, room in report.advanced))
        else:
            team, room = report.advanced[0]
            sentences.append(f"{team} to room {room}")
    elif report.monster_to is None:
        sentences.append("No one moves")
    rooms = sorted(set(report.discarded))
    if len(rooms) == 1:
        n = len(report.discarded)
        sentences.append(
            f"Discard {n} curses of {rooms[0]}" if n > 1 else f"Discard curse of {rooms[0]}"
        )
    elif rooms:
        sentences.append(f"Discard curses of {', '.join(map(str, report.discarded))}")
    if report.monster_discards:
        n = report.monster_discards
        sentences.append(
            f"Discard {monster}'s {n} curses" if n > 1 else f"Discard {monster}'s curse"
        )
    if report.monster_to is not None:
        sentences.append(f"{monster} to room {report.monster_to}")
    for (start, end), n in Counter(report.pushes).items():
        sentences.append(
            f"{n} curses {start} to room {end}" if n > 1 else f"Curse {start} to room {end}"
        )
    return tuple(line for text in sentences for line in textwrap.wrap(text, LINE))


def report_pages(state: TrapwordsState, report: RoundReport) -> tuple[tuple[str, ...], ...]:
    lines = report_lines(state, report)
    return tuple(lines[i : i + PAGE] for i in range(0, len(lines), PAGE))
