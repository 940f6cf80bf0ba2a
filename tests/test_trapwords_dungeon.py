"""The room row on its own: clue order, curse places, the monster's step and its curse pushes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.trapwords.dungeon import (
    clue_order,
    curse_pushes,
    default_curse_rooms,
    discard_in,
    glowing_for,
    monster_step,
    next_room,
)

ROOMS = (3, 4, 5, 6, 7)


@pytest.mark.parametrize(
    ("room_a", "room_b", "glowing", "order"),
    [
        (3, 4, "A", ("A", "B")),
        (5, 4, "A", ("B", "A")),
        (4, 4, "A", ("A", "B")),
        (4, 4, "B", ("B", "A")),
    ],
)
def test_the_team_behind_goes_first_else_the_glowing_book(
    room_a: int, room_b: int, glowing: str, order: tuple[str, str]
) -> None:
    assert clue_order(room_a, room_b, glowing) == order


def test_the_glowing_book_alternates_from_a() -> None:
    assert [glowing_for(n) for n in range(1, 9)] == ["A", "B"] * 4


def test_next_room_and_the_last_room() -> None:
    assert next_room((2, 4, 6, 8, 10), 4) == 6
    assert next_room(ROOMS, 7) == 7


def test_monster_step_without_curses() -> None:
    assert monster_step(ROOMS, 7, ()) == (6, ())


def test_monster_step_pushes_the_curse_in_the_room_it_enters() -> None:
    assert monster_step(ROOMS, 7, (4, 6)) == (6, (4, 5))


def test_monster_step_cascades_through_a_row_of_curses() -> None:
    assert monster_step(ROOMS, 7, (4, 5, 6)) == (6, (3, 4, 5))


def test_curses_pile_up_in_the_first_room() -> None:
    assert monster_step(ROOMS, 5, (3, 4)) == (4, (3, 3))
    assert monster_step(ROOMS, 4, (3, 3)) == (3, (3, 3))


def test_a_monster_in_the_first_room_stays() -> None:
    assert monster_step(ROOMS, 3, (3,)) == (3, (3,))


def test_discard_removes_every_curse_of_an_occupied_room() -> None:
    assert discard_in((3, 3, 5, 6), (3, 5)) == (6,)


@pytest.mark.parametrize(
    ("rooms", "curses"),
    [(ROOMS, (4, 6)), ((2, 4, 6, 8, 10), (4, 8)), ((3, 4, 5), (4, 4)), ((1, 2, 3, 4), (2, 3))],
)
def test_default_curses_beside_the_second_room_and_before_the_monster(
    rooms: tuple[int, ...], curses: tuple[int, ...]
) -> None:
    assert default_curse_rooms(rooms) == curses


rows = st.lists(st.integers(1, 99), min_size=2, max_size=7, unique=True).map(
    lambda r: tuple(sorted(r))
)


@st.composite
def dungeons(draw: st.DrawFn) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    rooms = draw(rows)
    monster_index = draw(st.integers(1, len(rooms) - 1))
    behind = rooms[:monster_index]
    curses = draw(st.lists(st.sampled_from(behind), max_size=4))
    return rooms, rooms[monster_index], tuple(sorted(curses))


@given(dungeons())
def test_a_step_keeps_every_curse_moves_the_monster_one_room_and_keeps_order(
    dungeon: tuple[tuple[int, ...], int, tuple[int, ...]],
) -> None:
    rooms, monster, curses = dungeon
    new_monster, new_curses = monster_step(rooms, monster, curses)
    assert rooms.index(new_monster) == rooms.index(monster) - 1
    assert len(new_curses) == len(curses)
    assert list(new_curses) == sorted(new_curses)
    assert all(c < monster for c in new_curses)
    assert new_monster not in new_curses or new_monster == rooms[0]
    # No curse moves away from the teams, and none moves more than one room.
    for before, after in zip(curses, new_curses, strict=True):
        assert rooms.index(before) - 1 <= rooms.index(after) <= rooms.index(before)


def test_curse_pushes_name_each_card_to_move() -> None:
    assert curse_pushes(ROOMS, 7, (4, 6)) == ((6, 5),)
    assert curse_pushes(ROOMS, 7, (4, 5, 6)) == ((6, 5), (5, 4), (4, 3))
    assert curse_pushes(ROOMS, 7, (4, 5)) == ()
    assert curse_pushes(ROOMS, 4, (3, 3)) == ()  # the first room keeps its curses


@given(dungeons())
def test_moving_the_named_cards_gives_the_monster_step(
    dungeon: tuple[tuple[int, ...], int, tuple[int, ...]],
) -> None:
    rooms, monster, curses = dungeon
    pushes = dict(curse_pushes(rooms, monster, curses))
    assert all(rooms.index(end) == rooms.index(start) - 1 for start, end in pushes.items())
    moved = sorted(pushes.get(room, room) for room in curses)  # all cards move at once
    assert tuple(moved) == monster_step(rooms, monster, curses)[1]
