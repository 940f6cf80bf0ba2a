"""What the box shows for Cover Your Asps: the turn screen (the seat large, in its colour, with
its phase and what green does), the roll (faces large; a double in words for this table), the
checklists after the vault and the escape, the count at the end, and the information pages
behind up/down (round and vault, each seat, the doubles table, the standings)."""

from __future__ import annotations

from companion.games import standings
from companion.games.base import Pages
from companion.games.cover_your_asps import scoring
from companion.games.cover_your_asps.buttons import END_TURN, primary, solo_ok, table_footer
from companion.games.cover_your_asps.rules import waits_for_round
from companion.games.cover_your_asps.scoring import counted
from companion.games.cover_your_asps.state import (
    BUILD,
    COLLECT,
    ESCAPE,
    SoloState,
    State,
    TableState,
)
from companion.games.cover_your_asps.tables import Allowance, page_lines, tables
from companion.games.seats import Ring, label, lights, looks, turn_screen
from companion.ui.screen import WHITE, Lights, Screen

SOLO_TITLE = "Asps  solo"
COUNTING = Lights(WHITE, "pulse")  # the whole table counts: no seat's colour
TURN_LINES = {
    (BUILD, False): "Build: plank roll",
    (COLLECT, False): "Collect: entry roll",
    (COLLECT, True): "Collect: move roll",
    (ESCAPE, True): "Escape: move roll",
}
# The screen after a report: what it changed, so the roll it followed no longer shows.
REPORTED = {
    "entered": "Raider in: move next",
    "built": "Built: enter next",
}
COUNT_WAYS = {None: "not yet", "sum": "a sum", "cards": ""}  # a seat page's first line
COUNT_FOOTER = "G enter  ok menu"  # green: the next entry the count needs
FINAL_FOOTER = "G edit  ^v standings"  # green: the count's menu, to correct an entry
PHASE_NAMES = {BUILD: "Building", COLLECT: "Collecting", ESCAPE: "Escaping"}
SOLO_SETUP = ("Lay a random plank", "near the middle, then", "fill the chamber")
# The solo rules: a plank showing one rolled number goes next to a plank showing the other.
SOLO_RULE = ("Lay a plank showing", "one number next to", "one with the other")
# "No plank fits" is only ever the lost game; a roll that cannot be laid is rolled again.
SOLO_LOST = "No plank fits: lost"
SOLO_NO_FIT = ("A roll you cannot lay:", "roll again.", SOLO_LOST)
CHECKLIST_FOOTER = f"^v more  {END_TURN}"
SETUP_TITLE = "Asps  setup"


def title(state: TableState) -> str:
    if state.over:
        return "Asps  final" if scoring.winner(state) else "Asps  game over"
    return f"Asps  R{state.round} V{state.vault}"


def faces(rolls: tuple[int, ...]) -> str:
    return "  ".join(map(str, rolls))


def view(state: State) -> tuple[Screen, Lights]:
    if isinstance(state, SoloState):
        return _solo(state)
    if state.over:
        return _over(state)
    if state.checklist is not None:
        screen = Screen(title(state), checklist(state), footer=CHECKLIST_FOOTER)
        return screen, lights(state.turn)
    if state.acted is None and not state.begun:
        screen = Screen(SETUP_TITLE, setup_lines(state), footer=table_footer(state))
        return screen, lights(state.turn)
    if state.acted is None and state.swap:
        return Screen(title(state), swap_lines(state), footer=table_footer(state)), lights(
            state.turn
        )
    if state.acted is None:
        return _turn(state)
    if state.reports:
        line = REPORTED.get(state.reports[-1], f"{label(state.turn)} reported")
        return turn_screen(title(state), state.turn, line, table_footer(state))
    return _acted(state)


def setup_lines(state: TableState) -> tuple[str, ...]:
    """The table's setup before the first roll, in three counts (the pages spell it out)."""
    t = tables()
    return (
        f"{state.treasure_left} treasure cards",
        f"{t.pit_covers} pit covers each",
        f"{t.chamber_pillars} pillars in chamber",
    )


def setup_pages(state: TableState) -> list[Screen]:
    t = tables()
    vault = t.vault(state.vault).name
    return [
        Screen(
            "Setup: the chamber",
            (
                f"Vault: the {vault}",
                "Cover pits of absent",
                f"colours; {t.chamber_pillars} pillars",
            ),
        ),
        Screen(
            "Setup: each raider",
            (
                f"{t.pit_covers} covers on own pits",
                f"{t.action_cards} action cards,",
                "1 plank at entrance",
            ),
        ),
        Screen(
            "Setup: the piles",
            (f"{state.treasure_left} treasure cards", "and action cards,", "shuffled, face down"),
        ),
    ]


def swap_lines(state: TableState) -> tuple[str, ...]:
    """A round has ended: the table puts the next taller vault in before the next turn."""
    vault = tables().vault(state.vault)
    return (
        f"Swap in the {vault.name}",
        f"vault: {vault.words}",
        f"Then {label(state.turn)}'s turn",
    )


def _turn(state: TableState) -> tuple[Screen, Lights]:
    seat = state.seat(state.turn)
    line = TURN_LINES.get((seat.phase, seat.inside), "Escape: move roll")
    if primary(state) == "plank" and state.settings.planking == "draw":
        line = "Build: draw a plank"
    if seat.phase == BUILD and waits_for_round(state, state.turn):
        line = f"Build on, collect R{state.round + 1}"
    return turn_screen(title(state), state.turn, line, table_footer(state))


def _acted(state: TableState) -> tuple[Screen, Lights]:
    who = label(state.turn)
    acted = state.acted
    rolls = state.last_roll
    footer = table_footer(state)
    if acted == "card":
        line = state.card_name or f"{who} played a card"
        return turn_screen(title(state), state.turn, line[:21], footer)
    if acted == "plank" and not rolls:
        return turn_screen(title(state), state.turn, f"{who}: lay the plank", footer)
    if state.doubles and acted == "plank":
        screen = Screen(title(state), double_lines(state), footer=footer)
        return screen, lights(state.turn, "blink")
    if state.doubles:
        line = f"Double: {tables().entry.short}"
    elif acted == "enter":
        line = f"{who}: enter on {rolls[0]}/{rolls[1]}"
    elif acted == "move":
        line = f"{who}: move {rolls[0]}"
    else:
        line = f"{who}: plank {rolls[0]}-{rolls[1]}"
    return Screen(title(state), (line,), big=faces(rolls), footer=footer), lights(state.turn)


def allowed(state: TableState) -> tuple[Allowance, ...]:
    t = tables()
    return tuple(a for a in (*t.general, *t.faces, t.entry) if a.id in (state.doubles or ()))


def double_lines(state: TableState) -> tuple[str, ...]:
    """A plank double in words: the two general options, then the face's own, if this table
    is big enough for it."""
    face = state.last_roll[0]
    t = tables()
    general = " or ".join(a.short for a in t.general)
    extra = [a.short for a in allowed(state) if a.face]
    lines = [f"Double {face}-{face}, either", general]
    lines += [f"or {short}" for short in extra]
    return tuple(lines)


def checklist(state: TableState) -> tuple[str, ...]:
    """The steps the table works through after the vault or an escape (rulings: by seat)."""
    right = label(Ring(state.settings.players).right(state.turn))
    if state.checklist == "vault":
        return ("Step off the vault", "Take a treasure card", f"{right}: a scorpion")
    return ("Scorpion off, +1 card", "Uncover one pit", f"{right} gets a pillar")


def checklist_page(state: TableState) -> Screen:
    right = label(Ring(state.settings.players).right(state.turn))
    if state.checklist == "vault":
        return Screen(
            "The scorpion",
            (f"{right} puts it on a", "plank, not in the two", "deepest rows"),
        )
    who = label(state.turn)
    return Screen("After the escape", (f"{who} puts a pillar", f"in {right}'s", "antechamber"))


def _over(state: TableState) -> tuple[Screen, Lights]:
    won = scoring.winner(state)
    if won is None:
        need = scoring.missing(state)
        lines = count_lines(state, need)
        return Screen(title(state), lines, footer=COUNT_FOOTER), COUNTING
    if len(won) == 1:
        head = f"{label(won[0])} wins!"
    else:
        head = "Shared: " + ", ".join(str(n) for n in won)
    rows = [_standing(place, n, pts) for place, n, pts in scoring.standings(state)[:2]]
    return Screen(title(state), (head, *rows), footer=FINAL_FOOTER), lights(won[0], "pulse")


def count_lines(state: TableState, need: tuple[str, int] | None) -> tuple[str, ...]:
    """The count's next entry, and which way a seat's treasure is being counted: a sum, or
    its cards one by one (then how many of them are in)."""
    if need is not None and need[0] == "treasure":
        seat = state.seat(need[1])
        if scoring.way(seat) == "cards":
            of = f"{len(seat.counted)} of {counted(seat.treasures, 'card')}"
            return ("Counting by cards", f"{label(need[1])}: {of}", f"{seat.points} points so far")
        return ("Last treasure taken", ask_line(state, need), "a sum, or tap cards")
    return ("Last treasure taken", ask_line(state, need))


def ask_line(state: TableState, need: tuple[str, int] | None) -> str:
    if need is None:
        return ""
    what, seat = need
    if what == "treasure":
        return f"{label(seat)}: points?"
    if what == "planks":
        return f"{label(seat)}: planks left?"
    tied = scoring.tied(state) or ()
    return f"Youngest of {', '.join(map(str, tied))}?"


def _standing(place: int, seat: int, points: int | None) -> str:
    if points is None:
        return f"{label(seat)}: not counted"
    return f"{place}. {label(seat)}  {points} pts"


# --- information pages -----------------------------------------------------------------------


def pages(state: State) -> Pages:
    if isinstance(state, SoloState):
        return Pages(_solo_pages(state))
    screens = []
    if state.over:
        screens += _standings_pages(state)
    else:
        if not state.begun:
            screens += setup_pages(state)
        screens.append(status_page(state))
        if state.checklist is not None:
            screens.append(checklist_page(state))
    screens += [_seat_page(state, n) for n in range(1, state.settings.players + 1)]
    screens += doubles_pages(state.settings.players)
    return Pages(tuple(screens))


def status_page(state: TableState) -> Screen:
    vault = tables().vault(state.vault)
    after = Ring(state.settings.players).left(state.turn)
    return Screen(
        title(state),
        (
            f"Round {state.round}: {vault.words}",
            f"Treasure left: {state.treasure_left}",
            f"Next: {label(after)}",
        ),
    )


def _seat_page(state: TableState, number: int) -> Screen:
    seat = state.seat(number)
    where = "inside" if seat.inside else "outside"
    lines = [
        f"{PHASE_NAMES[seat.phase]}, {where}",
        f"Cards {seat.cards}  Treasure {seat.treasures}",
        f"Escapes {seat.escapes}",
    ]
    if state.over:
        planks = "" if seat.planks is None else f"  planks {seat.planks}"
        lines[2] = f"Points {'-' if seat.points is None else seat.points}{planks}"
        lines[0] = f"Count: {COUNT_WAYS[scoring.way(seat)]}"
        if scoring.way(seat) == "cards":
            lines[0] += f"{len(seat.counted)} of {counted(seat.treasures, 'card')}"
    name = looks()[(number - 1) % len(looks())].name
    return Screen(f"{label(number)} ({name})", tuple(lines))


def doubles_pages(players: int) -> list[Screen]:
    t = tables()
    screens = [Screen("Any double", page_lines(a.words)) for a in t.general]
    for a in t.faces:
        lines = page_lines(a.words)
        if players < a.players:
            lines = (f"Needs {a.players}+ players:", *page_lines(a.words))[:3]
        screens.append(Screen(f"Double {a.face}-{a.face}, {players}p", lines))
    screens.append(Screen("Entry double", page_lines(t.entry.words)))
    return screens


def _standings_pages(state: TableState) -> list[Screen]:
    rows = [_standing(place, n, pts) for place, n, pts in scoring.standings(state)]
    heading = "Standings" if scoring.winner(state) else "Count so far"
    return list(standings.paged(heading, rows))


# --- solo --------------------------------------------------------------------------------------


def _solo(state: SoloState) -> tuple[Screen, Lights]:
    tally = f"{counted(state.rolls, 'roll')}, {counted(state.placed, 'plank')}"
    if state.result == "won":
        return Screen("Asps  solo won", ("Chamber full!", tally), footer="^v pages"), lights(
            1, "pulse"
        )
    if state.result == "lost":
        return Screen("Asps  solo lost", ("No plank fits", tally), footer="^v pages"), lights(1)
    footer = "G roll ok laid R end" if solo_ok(state) else "G roll  R end game"
    if not state.last_roll:
        return Screen(SOLO_TITLE, SOLO_SETUP, footer=footer), lights(1)
    line = plank_words(state.last_roll) if state.unused_roll else tally
    return Screen(SOLO_TITLE, (line,), big=faces(state.last_roll), footer=footer), lights(1)


def plank_words(roll: tuple[int, ...]) -> str:
    """A solo roll: a plank with one number goes next to a plank showing the other, either
    number first."""
    a, b = roll
    return f"{a} next to {b}" if a == b else f"{a} next to {b} or {b} to {a}"


def _solo_pages(state: SoloState) -> tuple[Screen, ...]:
    return (
        Screen(SOLO_TITLE, (f"Rolls: {state.rolls}", f"Planks laid: {state.placed}")),
        Screen("Solo setup", SOLO_SETUP),
        Screen("Solo planks", SOLO_RULE),
        Screen("Solo: no fit", SOLO_NO_FIT),
    )
