"""Scores and standings as information pages for the table games (up/down turn them): the same
ranking, the same ties and the same page size everywhere, so 8 seats stay readable on the OLED
(three short lines a page, see ../shared/notes/screens.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.ui.screen import Screen

LINES_PER_PAGE = 3
SHOWN_ROUNDS = 4  # the scoreboard shows at most the last four rounds' points on a line


def ranking(totals: Mapping[int, int]) -> tuple[tuple[int, int, int], ...]:
    """(place, seat, total), best first; equal totals share a place (1, 1, 3), seats in order."""
    ordered = sorted(totals, key=lambda seat: (-totals[seat], seat))
    out = []
    for index, seat in enumerate(ordered):
        tied = index > 0 and totals[seat] == totals[ordered[index - 1]]
        place = out[-1][0] if tied else index + 1
        out.append((place, seat, totals[seat]))
    return tuple(out)


def paged(title: str, lines: Sequence[str], per_page: int = LINES_PER_PAGE) -> tuple[Screen, ...]:
    """Lines cut into pages of ``per_page``; the title says which page when there are several."""
    chunks = [tuple(lines[i : i + per_page]) for i in range(0, len(lines), per_page)] or [()]
    if len(chunks) == 1:
        return (Screen(title, chunks[0]),)
    return tuple(Screen(f"{title} {i + 1}/{len(chunks)}", chunk) for i, chunk in enumerate(chunks))


def scoreboard(
    title: str, history: Sequence[Mapping[int, int]], totals: Mapping[int, int]
) -> tuple[Screen, ...]:
    """Round by round, a line per seat in seat order: "S3 8+6+7=21" (the last rounds only when
    there are many, after ".."); after one round only the total ("S3 8")."""
    lines = []
    for seat in sorted(totals):
        rounds = [str(r[seat]) for r in history]
        shown = "+".join(rounds[-SHOWN_ROUNDS:])
        if len(rounds) > SHOWN_ROUNDS:
            shown = ".." + shown
        several = len(rounds) > 1
        lines.append(f"S{seat} {shown}={totals[seat]}" if several else f"S{seat} {totals[seat]}")
    return paged(title, lines)


def final(title: str, totals: Mapping[int, int], unit: str = "pts") -> tuple[Screen, ...]:
    """The final standings: who won first, then every seat by place ("2. Seat 5  17 pts")."""
    ranks = ranking(totals)
    winners = [seat for place, seat, _ in ranks if place == 1]
    if len(winners) == 1:
        head = f"Seat {winners[0]} wins!"
    elif len(winners) <= 3:
        head = "Shared win: " + " ".join(str(s) for s in winners)
    else:
        head = f"Shared win, {len(winners)} seats"
    lines = [head] + [f"{place}. Seat {seat}  {total} {unit}" for place, seat, total in ranks]
    return paged(title, lines)
