"""What the OLED shows in Deathtrap Dungeon: whose turn (large) beside the row of seats (who
passed, who is out, whose cards lie on the table), the table or the play being tapped under
them; the deal with the round's results and the exchanges; the scoreboard and the standings as
pages. Every line is short enough for 8 seats on 128x64 (tests render them all)."""

from __future__ import annotations

from companion.games import seats, standings
from companion.games.deathtrap_dungeon.pack import Pack
from companion.games.deathtrap_dungeon.state import (
    BIG_HERO,
    BY_PIG,
    DEAL,
    HAND_WON,
    HERO,
    KILLED,
    OVER,
    TOTAL_WIMP,
    WIMP,
    DeathtrapState,
    Exchange,
)
from companion.ui import fonts
from companion.ui.screen import Lights, Screen

TITLES = {BIG_HERO: "Big hero", HERO: "Hero", WIMP: "Wimp", TOTAL_WIMP: "Total wimp"}
LINE_SIZE = 9  # the smallest size of the line under the seats (render.SMALL)
LINE_WIDTH = 124  # its width in pixels, inside the margins
DEAL_LIGHT = Lights((0.25, 0.25, 0.25), "solid")


def title(state: DeathtrapState) -> str:
    if state.phase == OVER:
        return "Deathtrap  over"
    return f"Deathtrap  R{state.round}/{state.settings.rounds}"


def cards(n: int, name: str, wild: int, before: str = "") -> str:
    """``n`` cards as players say them after ``before``: "3 x Orc +1 wild" (three Orcs and a
    wild), shortened to "3x Bloodbeast +1w" only when the long form would not fit the line;
    wilds alone: "2 wilds"."""
    if wild == n:
        return before + f"{n} wild" + ("s" if n > 1 else "")
    text = before + f"{n - wild} x {name}" + (f" +{wild} wild" if wild else "")
    if fonts.width(text, LINE_SIZE) > LINE_WIDTH:
        text = before + f"{n - wild}x {name}" + (f" +{wild}w" if wild else "")
    return text


def view(state: DeathtrapState, pack: Pack) -> tuple[Screen, Lights]:
    if state.phase == DEAL:
        return deal_screen(state), DEAL_LIGHT
    if state.phase == OVER:
        return over_screen(state), seats.lights(state.winner[0] if state.winner else 1, "pulse")
    assert state.turn is not None
    turn = state.turn
    holder = state.table.by if state.table is not None else 0
    picture = ("seats", (state.settings.players, turn, state.passed, state.finished, holder))
    screen = Screen(
        title(state),
        (play_line(state, pack),),
        big=str(turn),
        footer=footer(state),
        picture=picture,
    )
    return screen, seats.lights(turn, "blink" if state.building is not None else "solid")


def footer(state: DeathtrapState) -> str:
    if state.building is not None:
        return "G play  R clear"
    if state.table is None:
        return "G play  ok menu"
    return "G play  R pass"


def play_line(state: DeathtrapState, pack: Pack) -> str:
    building = state.building
    if building is not None:
        name = pack.name_of(building.set, building.value)
        return cards(building.n, name, building.wild, "Play? ")
    table = state.table
    if table is not None:
        return cards(table.n, pack.name_of(table.set, table.value), table.wild, f"S{table.by}: ")
    start = state.start
    if start is None:
        return "Lead: any set"
    # The words name the seat that leads (the big digit): the pig's holder, a seat gone out
    # with the hand or The Killing Machine hands the lead on (issue 42, point 9).
    if start.why == HAND_WON and start.by == state.turn:
        return f"S{start.by} won the hand: lead"
    if start.why == HAND_WON:
        return f"S{start.by} won, is out: S{state.turn} leads"
    if start.why == KILLED and start.by == state.turn:
        return f"Killing Machine S{start.by}"
    if start.why == KILLED:
        return f"Killing Machine: S{state.turn} leads"
    if start.why == BY_PIG:
        return f"Pig S{start.by}: S{state.turn} leads"
    return "Lead: any set"


def deal_screen(state: DeathtrapState) -> Screen:
    if state.round == 1 or not state.titles:
        return Screen(title(state), ("Deal all cards", "Pig holder:", "press G"), footer="G pig")
    best = dict((t, s) for s, t in state.titles)[BIG_HERO]
    lines = (f"R{state.round - 1}: S{best} big hero", "Deal, then swap", "^v who gives what")
    return Screen(title(state), lines, footer="G pig  ^v swaps")


def over_screen(state: DeathtrapState) -> Screen:
    winner = state.winner or ()
    best = max(state.points) if state.points else 0
    if len(winner) == 1:
        head = f"Seat {winner[0]} wins!"
    elif len(winner) <= 3:
        head = "Seats " + ", ".join(str(s) for s in winner) + " win!"
    else:
        head = f"{len(winner)} seats share it"
    rounds = len(state.history)
    return Screen(
        title(state),
        (head, f"{best} points", f"in {rounds} rounds"),
        footer="^v standings  back: menu",  # back opens the game menu (a new game, undo)
    )


# --- information pages (up/down) ---------------------------------------------------------------


def pages(state: DeathtrapState, pack: Pack) -> tuple[Screen, ...]:
    if state.phase == DEAL:
        return results_pages(state) + exchange_pages(state) + scoreboard_pages(state)
    if state.phase == OVER:
        return final_pages(state) + results_pages(state) + scoreboard_pages(state)
    return (seats_page(state, pack), *scoreboard_pages(state), *results_pages(state))


def seats_page(state: DeathtrapState, pack: Pack) -> Screen:
    table = state.table
    if table is None:
        first = "Table: empty"
    else:
        first = cards(table.n, pack.name_of(table.set, table.value), table.wild, f"S{table.by}: ")
    passed = " ".join(str(s) for s in state.passed) or "nobody"
    out = " ".join(str(s) for s in state.finished) or "nobody"
    return Screen(f"Seats  R{state.round}", (first, f"Passed: {passed}", f"Out: {out}"))


def scoreboard_pages(state: DeathtrapState) -> tuple[Screen, ...]:
    seat_list = state.ring.seats
    history = [{s: r[s - 1] for s in seat_list} for r in state.history]
    totals = {s: state.points[s - 1] for s in seat_list}
    return standings.scoreboard("Scores", history, totals)


def results_pages(state: DeathtrapState) -> tuple[Screen, ...]:
    """The last scored round: places, titles and points."""
    if not state.history:
        return ()
    scored = state.history[-1]
    named = dict(state.titles)
    order = state.finished
    lines = [
        f"{place}. S{seat} "
        + (TITLES[named[seat]] + " " if seat in named else "")
        + f"+{scored[seat - 1]}"
        for place, seat in enumerate(order, start=1)
    ]
    played = len(state.history)
    return standings.paged(f"Round {played}", lines)


def exchange_pages(state: DeathtrapState) -> tuple[Screen, ...]:
    """One page per pair: who gives whom their highest cards (never a special card), and what
    comes back; the cards pass face down, so the title says the swap is secret."""
    gives = [e for e in state.exchanges if e.highest]
    return tuple(
        Screen(f"Swap {i}/{len(gives)}, in secret", exchange_lines(e), footer="")
        for i, e in enumerate(gives, start=1)
    )


def exchange_lines(exchange: Exchange) -> tuple[str, str, str]:
    n = exchange.cards
    best = f"{n} highest" if n > 1 else "highest"
    return (
        f"Seat {exchange.giver} gives seat {exchange.to}",
        f"{best}, no specials;",
        f"seat {exchange.to} gives back any {n}",
    )


def final_pages(state: DeathtrapState) -> tuple[Screen, ...]:
    totals = {s: state.points[s - 1] for s in state.ring.seats}
    return standings.final("Final", totals)
