"""What the box shows for Hostage Trap!: whose turn (the seat large, the LED in its colour, or
the timer's colour while a turn timer runs), what the turn still needs or allows, the seats
sitting out, and the pages up/down turn through.

Nothing here names a tapped hostage: a claim being shown says only how many the box has seen,
and a won claim names the hostages (the one moment they are shown to the table).
"""

from __future__ import annotations

from companion.games.hostage_trap.data import tables
from companion.games.hostage_trap.rules import claim_left
from companion.games.hostage_trap.state import HostageState
from companion.games.seats import lights, turn_screen
from companion.games.timer import show
from companion.ui.screen import Lights, Screen, fraction_color

TITLE = "Hostage"
WIDTH = 21  # characters in a line of the small font
TITLE_WIDTH = 22  # characters the title band holds at its smaller size


def title(state: HostageState) -> str:
    """The top line: what the box last said (news for the table) or that the timer stands
    paused, else the turn number and the seats sitting out. The line under the seat number is
    kept for what the seat must do (``turn_line``)."""
    if state.notice:
        return state.notice[0]
    if paused(state):
        return f"T{state.turn_no}  timer paused"
    held = state.held()
    if not held:
        return f"{TITLE}  T{state.turn_no}"
    turn = f"T{state.turn_no}"
    for text in (
        f"{turn}  skip " + " ".join(f"{s}x{n}" for s, n in held.items()),
        f"{turn}  skip " + ",".join(map(str, held)),
    ):
        if len(text) <= TITLE_WIDTH:
            return text
    return f"{turn}  {len(held)} sit out"


def remaining(state: HostageState) -> float:
    return state.timer.remaining(state.shown_at) if state.timer is not None else 0.0


def paused(state: HostageState) -> bool:
    return state.timer is not None and not state.timer.running


def turn_line(state: HostageState) -> str:
    """The one line under the seat number: what the seat must do now. At the start of every
    turn that is drawing up to the hand size (with taking back a trap card, if owed): news and
    a paused timer go in the title, never here. The hostage cards a seat holds are on top of
    the hand it draws up to, and the reminder says so ("+ hostages")."""
    seat = state.turn
    hand = state.settings.hand
    if seat in state.take_back and state.fresh:
        return f"Take trap, to {hand}+hostages"
    if state.attack is not None:
        return f"Draw from seat {state.attack}"
    if state.fresh:
        return f"Draw to {hand} + hostages"
    allowed = state.allowed()
    return f"Can: {', '.join(allowed)}" if allowed else "Done: R ends turn"


def footer(state: HostageState) -> str:
    if paused(state):
        return "G resume  R end turn"
    if state.may_draw() is None:
        return "G draw  R end turn"
    return "ok more  R end turn"


def view(state: HostageState) -> tuple[Screen, Lights]:
    if state.winner is not None:
        return _over(state)
    if state.showing is not None:
        showing = state.showing
        seen = f"{len(showing.colours)} of {state.settings.hostages} seen: tap more"
        screen = Screen(
            f"Claim: seat {showing.seat}",
            (seen,),
            big=show(claim_left(state)),  # the wait for the next tap, counted down
            footer="R done",
        )
        return screen, lights(showing.seat, "pulse")
    seat = state.turn
    assert seat is not None
    screen, led = turn_screen(title(state), seat, turn_line(state), footer(state))
    if state.timer is None:
        return screen, led
    big = timer_big(seat, remaining(state))
    colour = fraction_color(state.timer.fraction_left(state.shown_at))
    if paused(state):
        pattern = "pulse"
    elif remaining(state) <= tables().warn_seconds + 1e-6:
        pattern = "blink"
    else:
        pattern = "solid"
    return Screen(screen.title, screen.lines, big=big, footer=screen.footer), Lights(
        colour, pattern
    )


def timer_big(seat: int, seconds: float) -> str:
    """The seat and its time, named apart so they cannot read as a clock ("1 · 56" read as
    1:56): "S1 56s", or "S1 2:20" from 100 s on."""
    shown = show(seconds)
    return f"S{seat} {shown}" if ":" in shown else f"S{seat} {shown}s"


def _over(state: HostageState) -> tuple[Screen, Lights]:
    winner = state.winner
    assert winner is not None
    n = len(state.winning)
    shown = " ".join(state.winning)
    named = (shown,) if len(shown) <= WIDTH else ("^v: which ones",)
    screen = Screen(
        f"{TITLE}  T{state.turn_no}",
        (f"Seat {winner} wins!", f"with {n} hostages", *named),
        footer="back: game menu",  # short back opens the box's menu (new game, undo...)
    )
    return screen, lights(winner, "blink")


def pages(state: HostageState) -> tuple[Screen, ...]:
    """Up/down: this turn, what the box last said, the seats sitting out, how to win."""
    news = (Screen("News", state.notice[:3]),) if state.notice else ()
    return (_turn_page(state), *news, *_sitting_out_pages(state), _win_page(state))


def _wrap(words: list[str], first: str) -> list[str]:
    lines, line = [], first
    for word in words:
        if len(line) + 1 + len(word) > WIDTH:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line]


def _turn_page(state: HostageState) -> Screen:
    if state.winner is not None:
        return Screen(f"Seat {state.winner} won", ("Showed:", *_wrap(list(state.winning), "")))
    lines: list[str] = []
    if state.fresh:
        lines.append(f"Draw to {state.settings.hand} + hostages")
    allowed = [f"{word}," for word in state.allowed()]
    if allowed:
        allowed[-1] = allowed[-1].rstrip(",")
        lines.extend(_wrap(allowed, "Can:"))
    else:
        lines.append("Nothing left: R ends")
    return Screen(f"Turn {state.turn_no}: seat {state.turn}", tuple(lines))


def _sitting_out_pages(state: HostageState) -> tuple[Screen, ...]:
    held = state.held()
    rows = [f"Seat {s}: {n} turn{'s' if n > 1 else ''}" for s, n in held.items()]
    rows += [f"Seat {s}: trap to hand" for s in state.take_back if s not in held]
    if not rows:
        return (Screen("Sitting out", ("No one sits out",)),)
    return tuple(Screen("Sitting out", tuple(rows[i : i + 3])) for i in range(0, len(rows), 3))


def _win_page(state: HostageState) -> Screen:
    need = state.settings.hostages
    return Screen("To win", (f"Show {need} hostages:", "tap them one by one", "or ok: Claim a win"))
