"""The count once the last treasure card is taken (rulings 5): each seat's treasure points,
entered as a sum or added card by card from tapped treasure cards, then the tiebreak (planks
left over, or the youngest player), and the standings.

A sum replaces whatever was counted for the seat and stands for all its cards; cards added one
by one never exceed the cards the seat took, nor can they be added to a sum. So a count never
holds more cards, or more points, than the seat's cards can be worth."""

from __future__ import annotations

from dataclasses import replace

from companion.games.base import Action, BadAction, Effect, Log, Rejected, Sound
from companion.games.cover_your_asps.state import Seat, TableState
from companion.games.cover_your_asps.tables import tables
from companion.games.seats import label, seat_arg

ACTIONS = ("treasure", "planks", "youngest")
MOST = 999
Effects = tuple[Effect, ...]


def apply(state: TableState, action: Action) -> tuple[TableState, Effects]:
    number = seat_arg(action, "player", state.settings.players)
    amount = _amount(action)  # a malformed entry is a script error even before the end
    if not state.over:
        raise Rejected("count points after the last treasure")
    seat = state.seat(number)
    if action.name == "youngest":
        new = replace(state, youngest=number)
        return _settled(state, new, Log(f"{label(number)} is the youngest"))
    if action.name == "planks":
        n = amount
        most = tables().planks_per_set
        if n > most:
            raise Rejected(f"a set has {most} planks: at most {most} left over")
        new = _seat(state, number, replace(seat, planks=n))
        return _settled(state, new, Log(f"{label(number)}: {counted(n, 'plank')} left over"))
    return _treasure(state, action, number, seat, amount)


def _amount(action: Action) -> int:
    """The number an entry gives: points (a sum), add (one card) or n (planks left)."""
    if action.name == "planks":
        return action.int_arg("n", 0, MOST)
    if action.name != "treasure":
        return 0
    given = [key for key in ("points", "add") if key in action.args]
    if len(given) != 1:
        raise BadAction("'treasure' needs points=N (the sum) or add=N (one card)")
    return action.int_arg(given[0], 0, MOST)


def _treasure(
    state: TableState, action: Action, number: int, seat: Seat, amount: int
) -> tuple[TableState, Effects]:
    low, high = tables().points
    who = label(number)
    if "points" in action.args:
        points = amount
        lowest, highest = seat.treasures * low, seat.treasures * high
        if not lowest <= points <= highest:
            cards = counted(seat.treasures, "card")
            raise Rejected(f"{who}: {cards}, {lowest}..{highest} points")
        new = _seat(state, number, replace(seat, points=points, counted=(), summed=True))
        cards = counted(seat.treasures, "card")
        return _settled(state, new, Log(f"{who}: {points} treasure points, the sum of {cards}"))
    value = amount
    if not low <= value <= high:
        raise Rejected(f"a treasure card is worth {low}..{high} points")
    if seat.summed:
        raise Rejected(
            f"all {seat.treasures} of {who}'s cards are counted: the sum {seat.points} covers them"
        )
    card = str(action.args.get("card", "")).strip()
    twice = already_counted(state, card)
    if twice:
        raise Rejected(twice)
    if len(seat.counted) >= seat.treasures:
        if not seat.treasures:
            raise Rejected(f"{who} took no treasure")
        raise Rejected(f"all {seat.treasures} of {who}'s cards are counted")
    cards = (*seat.counted, card)
    total = (seat.points or 0) + value
    new = replace(
        _seat(state, number, replace(seat, points=total, counted=cards, summed=False)),
        last_counted=number,
    )
    return _settled(state, new, Log(f"{who}: +{value}, {total} treasure points"))


def already_counted(state: TableState, card: str) -> str | None:
    """Why this card cannot be counted again (the seat it was counted for), if it was."""
    if card:
        for other, held in enumerate(state.seats, start=1):
            if card in held.counted:
                return f"that card is already counted for {label(other)}"
    return None


def counted(n: int, word: str) -> str:
    """``3 treasure cards``, ``1 roll``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def way(seat: Seat) -> str | None:
    """How the seat is being counted: ``sum`` (one entry for all its cards), ``cards`` (tapped
    or added one by one), or None before any entry."""
    if seat.points is None:
        return None
    return "sum" if seat.summed else "cards"


def cards_counted(seat: Seat) -> int:
    """The seat's cards the count holds: all of them for a sum, else those added so far."""
    return seat.treasures if seat.summed else len(seat.counted)


def done(seat: Seat) -> bool:
    """A seat's count is made: a sum, or every card it took added one by one. Until then the
    count decides nothing (a seat half counted by cards is no score to win or lose on)."""
    return seat.points is not None and cards_counted(seat) >= seat.treasures


def _seat(state: TableState, number: int, seat: Seat) -> TableState:
    return replace(state, seats=state.with_seat(number, seat))


def _settled(before: TableState, after: TableState, log: Log) -> tuple[TableState, Effects]:
    """The entry, and the winner's announcement the moment the count decides it."""
    effects: list[Effect] = [log]
    won = winner(after)
    if won is not None and winner(before) != won:
        names = " and ".join(label(s) for s in won)
        effects += [Sound("win"), Log(f"{names} win{'s' if len(won) == 1 else ''}")]
    return after, tuple(effects)


def tied(state: TableState) -> tuple[int, ...] | None:
    """The seats sharing the most points once every seat is counted (one seat: no tie)."""
    if not all(done(s) for s in state.seats):
        return None
    top = max(s.points or 0 for s in state.seats)
    return tuple(n for n, s in enumerate(state.seats, start=1) if s.points == top)


def winner(state: TableState) -> tuple[int, ...] | None:
    """Rulings 5: the most points; a tie goes to the fewest planks left over, or to the
    youngest player (who decides only if among the tied)."""
    if not state.over:
        return None
    top = tied(state)
    if top is None or len(top) == 1:
        return top
    if state.settings.tiebreak == "youngest":
        if state.youngest is None:
            return None
        return (state.youngest,) if state.youngest in top else top
    planks = [state.seat(n).planks for n in top]
    if any(p is None for p in planks):
        return None
    fewest = min(p for p in planks if p is not None)
    return tuple(n for n in top if state.seat(n).planks == fewest)


def missing(state: TableState) -> tuple[str, int] | None:
    """The next entry the count needs, as (what, seat): points first, then the tiebreak."""
    for number, seat in enumerate(state.seats, start=1):
        if not done(seat):
            return ("treasure", number)
    top = tied(state) or ()
    if len(top) < 2 or winner(state) is not None:
        return None
    if state.settings.tiebreak == "youngest":
        return ("youngest", top[0])
    return next(("planks", n) for n in top if state.seat(n).planks is None)


def standings(state: TableState) -> tuple[tuple[int, int, int | None], ...]:
    """(place, seat, points) best first; the winners share first place, the rest follow by
    points (seats not counted yet last)."""
    won = winner(state) or ()
    order = sorted(
        range(1, state.settings.players + 1),
        key=lambda n: (n not in won, -(state.seat(n).points or -1), n),
    )
    out = []
    place = 0
    previous: tuple[bool, int | None] | None = None
    for i, n in enumerate(order, start=1):
        key = (n in won, state.seat(n).points)
        if key != previous:
            place = i
            previous = key
        out.append((place, n, state.seat(n).points))
    return tuple(out)
