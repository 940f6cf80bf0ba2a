"""The records as information pages: how the game just finished stands, and the best results
with their dates. Any game that reports results gets the same pages."""

from __future__ import annotations

from companion.core.records import Records, Result
from companion.ui.forms import Pages
from companion.ui.screen import Screen


def _amount(result: Result) -> str:
    unit = result.unit.removesuffix("s") if result.score == 1 else result.unit
    return f"{result.score} {unit}"


def finished_page(title: str, records: Records, result: Result) -> Screen:
    """The game just finished: how it went, where it stands, how many were played."""
    played, won = records.tally(result.game, result.board)
    if not result.won:
        return Screen(title, ("Lost this time", f"{won} won of {played}"))
    place = records.place(result)
    best = records.best(result.game, result.board, 1)[0]
    if place == 1:
        standing = "Best so far!" if played > 1 else "First win!"
    else:
        standing = f"Best: {_amount(best)} ({place}.)"
    return Screen(title, (f"Won: {_amount(result)}", standing, f"{won} won of {played}"))


def best_pages(records: Records, game: str) -> list[Screen]:
    """One page per board: its three best results with their dates."""
    screens = []
    for board in records.boards(game):
        best = records.best(game, board)
        played, won = records.tally(game, board)
        lines = [f"{_amount(r)}  {r.shown_date}" for r in best]
        if len(lines) < 3:
            lines.append(f"{won} won of {played}")
        screens.append(Screen(f"Best {board} games", tuple(lines)))
    return screens


def pages(title: str, records: Records, game: str, latest: Result | None = None) -> Pages:
    screens = [finished_page(title, records, latest)] if latest is not None else []
    screens += best_pages(records, game)
    if not screens:
        screens = [Screen(title, ("No results yet",))]
    return Pages(tuple(screens))
