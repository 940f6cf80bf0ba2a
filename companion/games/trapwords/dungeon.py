"""The room row: where teams, the monster and the face-down curses are, and how they move.

Rooms are the numbers printed on the tiles, in increasing order; "closer to the teams" means
towards the first room. Curse positions are a sorted tuple with one entry per curse, so a room
holding two (only the first room can) appears twice.
"""

from __future__ import annotations

from collections.abc import Sequence

TEAMS = ("A", "B")


def other(team: str) -> str:
    return "B" if team == "A" else "A"


def glowing_for(round_number: int) -> str:
    """A receives the glowing book in round 1; the books swap every round."""
    return "A" if round_number % 2 == 1 else "B"


def clue_order(room_a: int, room_b: int, glowing: str) -> tuple[str, str]:
    """The team behind gives clues first; when level, the team receiving the glowing book."""
    if room_a < room_b:
        return ("A", "B")
    if room_b < room_a:
        return ("B", "A")
    return (glowing, other(glowing))


def next_room(rooms: Sequence[int], room: int) -> int:
    index = rooms.index(room)
    return rooms[min(index + 1, len(rooms) - 1)]


def default_curse_rooms(rooms: Sequence[int]) -> tuple[int, ...]:
    """Two curses, always: one beside the second room and one beside the room before the
    monster; where those are the same room (three rooms), both lie there."""
    return tuple(sorted((rooms[1], rooms[-2])))


def monster_step(
    rooms: Sequence[int], monster_room: int, curse_rooms: Sequence[int]
) -> tuple[int, tuple[int, ...]]:
    """The monster moves one room closer. A curse in the room it enters is pushed one room
    closer, pushing any curse already there on in turn; nothing leaves the first room."""
    index = rooms.index(monster_room)
    if index == 0:
        return monster_room, tuple(curse_rooms)
    entered = index - 1
    counts = [0] * len(rooms)
    for room in curse_rooms:
        counts[rooms.index(room)] += 1
    if entered > 0:
        moving, counts[entered] = counts[entered], 0
        slot = entered
        while moving and slot > 0:
            slot -= 1
            if slot == 0:
                counts[0] += moving
                break
            moving, counts[slot] = counts[slot], moving
    curses = tuple(room for room, n in zip(rooms, counts, strict=True) for _ in range(n))
    return rooms[entered], curses


def curse_pushes(
    rooms: Sequence[int], monster_room: int, curse_rooms: Sequence[int]
) -> tuple[tuple[int, int], ...]:
    """The moves ``monster_step`` makes the curses do, nearest the monster first, as (from, to)
    rooms, one per curse card: the table has to move those cards by hand."""
    entered = rooms.index(monster_room) - 1
    moves: list[tuple[int, int]] = []
    slot = entered
    while slot > 0 and rooms[slot] in curse_rooms:
        moves += [(rooms[slot], rooms[slot - 1])] * list(curse_rooms).count(rooms[slot])
        slot -= 1
    return tuple(moves)


def discard_in(curse_rooms: Sequence[int], occupied: Sequence[int]) -> tuple[int, ...]:
    """Curses in a room where a team played this round have applied: they go."""
    return tuple(room for room in curse_rooms if room not in occupied)
