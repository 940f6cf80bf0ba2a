"""The board profile and walking along it.

A pawn's place is a ``Spot``: a numbered space and whether it holds the crystal (then it is on
the way back to the boat). The AI's whole journey is one list of spots, start -> crystal ->
start -> boat, so moving forward or back is index arithmetic that can never leave the board.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from companion.errors import DataError
from companion.games.trap_attack.tables import DATA, need_int, no_extra, read_toml

BOARD_FILE = DATA / "trap_attack_board.toml"
CRYSTAL = 0
ROUTES = ("long", "shortcut")


@dataclass(frozen=True)
class Fork:
    """The track splits after ``start`` and joins at ``end``: mine path or shortcut."""

    start: int
    end: int
    mines: tuple[int, ...]


@dataclass(frozen=True)
class Board:
    start: int
    forks: tuple[Fork, ...]
    source: str

    def route(self, kind: str) -> tuple[int, ...]:
        """The spaces from the start to the crystal on the long route or the shortcut."""
        skipped: set[int] = set()
        if kind == "shortcut":
            for fork in self.forks:
                skipped.update(range(fork.end + 1, fork.start))
        return tuple(s for s in range(self.start, CRYSTAL - 1, -1) if s not in skipped)


@dataclass(frozen=True)
class Spot:
    position: int
    has_crystal: bool = False
    at_boat: bool = False

    def label(self) -> str:
        if self.at_boat:
            return "boat"
        return str(self.position)


def parse_board(data: dict, where: str) -> Board:
    no_extra(data, {"start", "forks"}, where)
    start = need_int(data, "start", where, 2, 99)
    forks_raw = data.get("forks", [])
    if not isinstance(forks_raw, list):
        raise DataError(f"{where}: forks must be a list of [[forks]] tables")
    forks: list[Fork] = []
    for n, raw in enumerate(forks_raw, 1):
        at = f"{where} [[forks]] #{n}"
        if not isinstance(raw, dict):
            raise DataError(f"{at}: must be a table")
        no_extra(raw, {"from", "to", "mines"}, at)
        begin = need_int(raw, "from", at, 2, start)
        end = need_int(raw, "to", at, 0, begin - 2)
        mines = raw.get("mines", [])
        if not isinstance(mines, list) or not all(
            isinstance(m, int) and end < m < begin for m in mines
        ):
            raise DataError(f"{at}: mines must be spaces between {end} and {begin}, not {mines!r}")
        if forks and forks[-1].end < begin:
            raise DataError(f"{at}: forks must be listed from the start down and not overlap")
        forks.append(Fork(begin, end, tuple(mines)))
    return Board(start, tuple(forks), where)


def load_board(path: str | Path = "") -> Board:
    """The default profile, or the owner's own file (named by the option ``board``)."""
    if not path:
        return default_board()
    return parse_board(read_toml(Path(path)), str(path))


@cache
def default_board() -> Board:
    return parse_board(read_toml(BOARD_FILE), str(BOARD_FILE))


@cache
def journey(board: Board, route_kind: str) -> tuple[Spot, ...]:
    """Every spot of the route in walking order, the boat last."""
    route = board.route(route_kind)
    out = [Spot(s) for s in route[:-1]]
    out.append(Spot(CRYSTAL, has_crystal=True))
    out.extend(Spot(s, has_crystal=True) for s in reversed(route[:-1]))
    out.append(Spot(board.start, has_crystal=True, at_boat=True))
    return tuple(out)


def index_of(board: Board, route_kind: str, spot: Spot) -> int:
    return journey(board, route_kind).index(spot)


def on_route(board: Board, route_kind: str, spot: Spot) -> bool:
    return spot in journey(board, route_kind)


def forward(board: Board, route_kind: str, spot: Spot, steps: int) -> Spot:
    """Walk toward the goal; the crystal stops the walk, and past the start lies the boat."""
    path = journey(board, route_kind)
    here = path.index(spot)
    crystal = path.index(Spot(CRYSTAL, has_crystal=True))
    target = here + steps
    if here < crystal:
        target = min(target, crystal)
    return path[min(target, len(path) - 1)]


def back(board: Board, route_kind: str, spot: Spot, steps: int) -> Spot:
    """Walk away from the goal, along the path the pawn came, never past the start or crystal."""
    path = journey(board, route_kind)
    here = path.index(spot)
    crystal = path.index(Spot(CRYSTAL, has_crystal=True))
    floor = crystal if spot.has_crystal else 0
    return path[max(here - steps, floor)]


def distance(board: Board, route_kind: str, start: Spot, end: Spot) -> int:
    path = journey(board, route_kind)
    return path.index(end) - path.index(start)
