"""Shared scoreboard and standings pages for the table games."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from test_screen_support import uncut

from companion.games import standings


def test_ranking_shares_places_on_ties() -> None:
    assert standings.ranking({1: 5, 2: 9, 3: 5, 4: 2}) == (
        (1, 2, 9),
        (2, 1, 5),
        (2, 3, 5),
        (4, 4, 2),
    )


def test_pages_of_three_lines_with_their_number_in_the_title() -> None:
    pages = standings.paged("Scores", [f"line {i}" for i in range(7)])
    assert [p.title for p in pages] == ["Scores 1/3", "Scores 2/3", "Scores 3/3"]
    assert pages[2].lines == ("line 6",)
    assert standings.paged("Scores", ["a"])[0].title == "Scores"


def test_scoreboard_round_by_round() -> None:
    pages = standings.scoreboard("Scores", [{1: 4, 2: 3}, {1: 1, 2: 4}], {1: 5, 2: 7})
    assert pages[0].lines == ("S1 4+1=5", "S2 3+4=7")
    assert standings.scoreboard("Scores", [], {1: 0})[0].lines == ("S1 0",)
    assert standings.scoreboard("Scores", [{1: 4}], {1: 4})[0].lines == ("S1 4",)


def test_final_standings_name_the_winner_or_the_shared_win() -> None:
    assert standings.final("Final", {1: 5, 2: 9})[0].lines[:2] == (
        "Seat 2 wins!",
        "1. Seat 2  9 pts",
    )
    assert standings.final("Final", {1: 5, 2: 5})[0].lines[0] == "Shared win: 1 2"
    assert standings.final("Final", dict.fromkeys(range(1, 9), 3))[0].lines[0] == (
        "Shared win, 8 seats"
    )


@given(
    st.integers(min_value=2, max_value=8).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(min_value=0, max_value=99), min_size=n, max_size=n),
            max_size=12,
        )
    )
)
def test_eight_seats_and_many_rounds_stay_readable(rounds: list[list[int]]) -> None:
    if not rounds:
        return
    seats = range(1, len(rounds[0]) + 1)
    history = [dict(zip(seats, r, strict=True)) for r in rounds]
    totals = {s: sum(h[s] for h in history) for s in seats}
    for page in standings.scoreboard("Scores", history, totals) + standings.final("Final", totals):
        uncut(page)
