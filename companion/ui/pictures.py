"""Named drawings a screen can ask for in its middle area (``Screen.picture``).

A picture is a function ``(draw, box, data)``: it draws in white inside ``box`` (left, top,
right, bottom; right and bottom exclusive) from the plain data a game's view put in the screen,
so the rules never deal with pixels. Bad data raises ValueError naming the picture.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import ImageDraw

from companion.ui import fonts
from companion.ui.fonts import DIGIT_REFERENCE, Box

Picture = Callable[[ImageDraw.ImageDraw, tuple[int, int, int, int], tuple], None]

# --- dungeon (Trapwords): the row of rooms, the teams, the monster and the curses ------------

LABEL_SIZE = 11  # room numbers
# Team letters: the largest that leaves a column between "A" and "B" in a narrow room.
TEAM_FONTS = ((11, "bold"), (10, "bold"), (9, "bold"), (9, "regular"))
SLOT = 8  # rows of one line of marks inside a room
MIN_ROOM_WIDTH = 17  # wall to wall: two 7-pixel marks side by side, a column from each wall
MAX_ROOM_WIDTH = 30

# The monster: a 7x7 skull, "#" lit.
SKULL = (
    ".#####.",
    "#######",
    "#..#..#",
    "#######",
    ".##.##.",
    ".#####.",
    ".#.#.#.",
)


def dungeon(draw: ImageDraw.ImageDraw, box: Box, data: tuple) -> None:
    """Rooms left to right as boxes under their numbers. In each room: team A top left,
    team B top right, the monster bottom left, the curses there bottom right (one triangle, two
    small ones stacked, or their number when more share the room)."""
    rooms, team_a, team_b, monster, curses = _dungeon_data(data)
    left, top, right, bottom = box
    count = len(rooms)
    room_width = min(MAX_ROOM_WIDTH, (right - left - 1) // count)
    if room_width < MIN_ROOM_WIDTH:
        raise ValueError(
            f"picture 'dungeon': {count} rooms do not fit {right - left} pixels "
            f"(at most {(right - left - 1) // MIN_ROOM_WIDTH})"
        )
    label_top, label_bottom = fonts.band("0", LABEL_SIZE, reference=DIGIT_REFERENCE)
    label_height = label_bottom - label_top
    wall_height = 2 * SLOT + 5  # walls, a padding row inside each, a row between the lines
    total = label_height + 1 + wall_height
    x0 = left + (right - left - (count * room_width + 1)) // 2
    y0 = top + max(0, (bottom - top - total) // 2)
    wall_top = y0 + label_height + 1
    first_line = wall_top + 2
    second_line = first_line + SLOT + 1
    for index, room in enumerate(rooms):
        rx = x0 + index * room_width
        draw.rectangle((rx, wall_top, rx + room_width, wall_top + wall_height - 1), outline=1)
        _centred_text(draw, str(room), (LABEL_SIZE, "regular"), rx + 1, rx + room_width, y0)
        inner_left, inner_right = rx + 2, rx + room_width - 1
        middle = inner_left + (inner_right - inner_left) // 2
        team_font = _team_font(middle - inner_left - 1)
        if room == team_a:
            _centred_text(draw, "A", team_font, inner_left, middle, first_line, SLOT)
        if room == team_b:
            _centred_text(draw, "B", team_font, middle, inner_right, first_line, SLOT)
        if room == monster:
            _skull(draw, inner_left, middle, second_line)
        here = curses.count(room)
        if here:
            _curses(draw, here, middle, inner_right, second_line)


def _team_font(max_width: int) -> tuple[int, str]:
    for size, face in TEAM_FONTS:
        if max(fonts.width("A", size, face), fonts.width("B", size, face)) <= max_width:
            return size, face
    return TEAM_FONTS[-1]


def _dungeon_data(data: tuple) -> tuple[tuple[int, ...], int, int, int, tuple[int, ...]]:
    try:
        rooms, team_a, team_b, monster, curses = data
        rooms = tuple(int(room) for room in rooms)
        curses = tuple(int(room) for room in curses)
        team_a, team_b, monster = int(team_a), int(team_b), int(monster)
    except (TypeError, ValueError):
        raise ValueError(
            "picture 'dungeon' needs (rooms, team_a_room, team_b_room, monster_room, "
            f"curse_rooms), got {data!r}"
        ) from None
    if not rooms:
        raise ValueError("picture 'dungeon': no rooms")
    for what, room in (("team A", team_a), ("team B", team_b), ("the monster", monster)):
        if room not in rooms:
            raise ValueError(f"picture 'dungeon': {what} is in room {room}, not one of {rooms}")
    for room in curses:
        if room not in rooms:
            raise ValueError(f"picture 'dungeon': a curse is in room {room}, not one of {rooms}")
    return rooms, team_a, team_b, monster, curses


def _centred_text(
    draw: ImageDraw.ImageDraw,
    text: str,
    font: tuple[int, str],
    left: int,
    right: int,
    top: int,
    rows: int = 0,
    fill: int = 1,
) -> None:
    """``text`` centred between columns ``left`` and ``right``; its digit band starts at row
    ``top``, or is centred in ``rows`` rows from there."""
    size, face = font
    ink_left, _, ink_right, _ = fonts.ink(text, size, face)
    band_top, band_bottom = fonts.band(text, size, face, DIGIT_REFERENCE)
    x = left + (right - left - (ink_right - ink_left)) // 2 - ink_left
    y = top - band_top + max(0, rows - (band_bottom - band_top)) // 2
    draw.text((x, y), text, font=fonts.font(size, face), fill=fill)


def _skull(draw: ImageDraw.ImageDraw, left: int, right: int, top: int) -> None:
    x0 = left + (right - left - len(SKULL[0])) // 2
    y0 = top + (SLOT - len(SKULL)) // 2
    draw.point(
        [
            (x0 + x, y0 + y)
            for y, row in enumerate(SKULL)
            for x, pixel in enumerate(row)
            if pixel == "#"
        ],
        fill=1,
    )


def _triangle(draw: ImageDraw.ImageDraw, centre: int, top: int, rows: int) -> None:
    """A filled warning triangle ``rows`` high and ``2 * rows - 1`` wide, apex at ``top``."""
    for row in range(rows):
        draw.line((centre - row, top + row, centre + row, top + row), fill=1)


def _curses(draw: ImageDraw.ImageDraw, count: int, left: int, right: int, top: int) -> None:
    centre = left + (right - left - 1) // 2
    if count == 1:
        _triangle(draw, centre, top + (SLOT - 4) // 2, 4)
    elif count == 2:
        _triangle(draw, centre, top, 3)
        _triangle(draw, centre, top + 4, 3)
    else:
        _centred_text(draw, str(count), (9, "bold"), left, right, top, SLOT)


# --- seats (table games): a row of seat numbers with a mark under each ----------------------

SEAT_FONT = (11, "regular")
MAX_SEAT_CELL = 16
MARK_ROWS = 5  # the mark under a seat number


def seats(draw: ImageDraw.ImageDraw, box: Box, data: tuple) -> None:
    """Seat numbers left to right; the seat on turn drawn black on white; under a number a bar
    when the seat passed, a tick when it has gone out (no cards left: done for the round), a
    triangle when its cards lie on the table. Eight seats fit 88 pixels."""
    players, turn, passed, out, holder = _seats_data(data)
    left, top, right, bottom = box
    cell = min(MAX_SEAT_CELL, (right - left) // players)
    if cell < 9:
        raise ValueError(f"picture 'seats': {players} seats do not fit {right - left} pixels")
    band_top, band_bottom = fonts.band("0", SEAT_FONT[0], reference=DIGIT_REFERENCE)
    digit_rows = band_bottom - band_top
    total = digit_rows + 3 + MARK_ROWS
    x0 = left + (right - left - players * cell) // 2
    y0 = top + max(0, (bottom - top - total) // 2)
    mark_top = y0 + digit_rows + 3
    for seat in range(1, players + 1):
        cx = x0 + (seat - 1) * cell
        centre = cx + cell // 2
        if seat == turn:
            draw.rectangle((cx + 1, y0 - 2, cx + cell - 1, y0 + digit_rows + 1), fill=1)
            _centred_text(draw, str(seat), SEAT_FONT, cx + 1, cx + cell, y0, fill=0)
        else:
            _centred_text(draw, str(seat), SEAT_FONT, cx + 1, cx + cell, y0)
        if seat in out:  # a tick: done for the round (an x would read "eliminated")
            draw.line((centre - 2, mark_top + 2, centre, mark_top + 4), fill=1)
            draw.line((centre, mark_top + 4, centre + 3, mark_top), fill=1)
        elif seat == holder:
            _triangle(draw, centre, mark_top, 4)
        elif seat in passed:
            draw.line((centre - 2, mark_top + 2, centre + 2, mark_top + 2), fill=1)


def _seats_data(data: tuple) -> tuple[int, int, tuple[int, ...], tuple[int, ...], int]:
    try:
        players, turn, passed, out, holder = data
        players, turn, holder = int(players), int(turn), int(holder)
        passed = tuple(int(s) for s in passed)
        out = tuple(int(s) for s in out)
    except (TypeError, ValueError):
        raise ValueError(
            f"picture 'seats' needs (players, turn, passed, out, holder), got {data!r}"
        ) from None
    if not 1 <= players <= 12:
        raise ValueError(f"picture 'seats': {players} seats")
    return players, turn, passed, out, holder


PICTURES: dict[str, Picture] = {
    "dungeon": dungeon,
    "seats": seats,
}
