"""What the OLED and the LED show: one instruction at a time, and no relic or loot values
before the race is over (rulebook: Victory condition, Important note).

The LED is the colour of whoever must act: solid for the turn's owner, blinking for the player
who must say blocked or taken and for the AI's card waiting to be tapped; red blinking after a
knock-out.
"""

from __future__ import annotations

from companion.games.base import Showing
from companion.games.trap_attack.forms import FORMS
from companion.games.trap_attack.pawns import next_seat, turn_start_lines
from companion.games.trap_attack.scoring import leaders, question, scores
from companion.games.trap_attack.state import AI, State, name, short
from companion.ui.menus import footer, window
from companion.ui.screen import BLUE, GREEN, PURPLE, RED, YELLOW, Lights, Screen

TITLE = "Trap Attack"
SEAT_COLORS = {"1": BLUE, "2": GREEN, "3": YELLOW, AI: PURPLE}


def view(state: State) -> tuple[Screen, Lights]:
    turn_light = Lights(SEAT_COLORS[state.turn])
    if state.race_over:
        return score_screen(state), race_light(state)
    if state.pending == "block" and state.threat is not None:
        return block_screen(state), Lights(SEAT_COLORS[state.threat.target], "blink")
    if state.pending == "card":
        return card_screen(state), Lights(PURPLE, "blink")
    if state.alert:
        return play_screen(state), Lights(RED, "blink")
    return play_screen(state), turn_light


def title(state: State) -> str:
    if state.awaits_first_roll:
        return TITLE  # nobody's turn yet: the pawn dice say who starts
    return f"{TITLE}  {short(state.turn)}"


def ai_line(state: State) -> str:
    spot = state.ai_spot
    held = "+crystal" if spot.has_crystal else ""  # it holds the crystal, said in words
    return f"AI {spot.label()}{held}  life {state.pawn(AI).life}"


def play_screen(state: State) -> Screen:
    lines = state.message or (f"{name(state.turn)}'s turn",)
    if state.options.ai and len(lines) < 3:
        lines = (*lines, ai_line(state))
    ai_due = state.options.ai and AI in (state.turn, next_seat(state, state.turn))
    footer = "G AI turn  R menu" if ai_due else "G next  R menu"
    if state.awaits_first_roll:
        footer = "G roll  R menu"
    # A chore of the moment (the relic row, a turn's start) takes the top line until the next
    # action; the title is back after it.
    top = state.heading or title(state)
    return Screen(top, tuple(lines), footer=footer, inverted=state.alert)


def turn_pages(state: State) -> tuple[Screen, ...]:
    """Up/down on the race's screen: whose turn it is and what its start asks (the news may
    have taken every line), then the news itself, under the chore of the moment if any."""
    seat = state.turn
    if seat == AI:
        lines: tuple[str, ...] = ("Green plays it",)
    else:
        lines = turn_start_lines(state, seat)
    if state.options.ai:
        lines = (*lines, ai_line(state))
    pages = [Screen(f"{name(seat)}'s turn", lines, footer=footer(updown="page"))]
    if state.message:
        top = state.heading or "News"
        pages.append(Screen(top, state.message, footer=footer(updown="page")))
    return tuple(pages)


def card_screen(state: State) -> Screen:
    lines = state.message or ("Draw top action card", "and tap it")
    return Screen(title(state), tuple(lines), footer="G pick  R menu")


def block_screen(state: State) -> Screen:
    threat = state.threat
    assert threat is not None
    lines = [f"{threat.name} on {short(threat.target)}", "Block it with skulls?"]
    if len([h for h in state.humans if h != threat.by]) > 1:
        lines.append("^v other player")
    return Screen(title(state), tuple(lines), footer="G blocked  R taken")


# How to leave a screen, said on it (issue 42, point 14): red leaves the players' menu and the
# score pages (the back button opens the box's menu over them, as on the game screen).
RED_OUT = "R out"
BACK_MENU = "back: menu"


def menu_view(state: State, showing: Showing) -> tuple[Screen, Lights]:
    """The players' menu, its questions and the score pages, drawn in this game's own way
    ("< value >"), with the footers of the box's menu convention (README) and the game's LED
    kept as it was. They are a part of play (forms.WALK): red steps back and the back button
    opens the box's menu over them, as on the game screen, so the footer names no "back out"
    (which would say the back button leaves)."""
    turn_light = Lights(SEAT_COLORS[state.turn])
    if showing.kind == "pages" and showing.page is not None:
        return showing.page, race_light(state) if state.race_over else turn_light
    if showing.kind == "question" and showing.question is not None:
        question = showing.question
        shown = question.shown(showing.cursor)
        lines = (question.label, f"< {shown} >")
        last = _last_question(showing)
        foot = footer(updown="change", ok="done" if last else "next")
        return Screen(showing.title, lines, footer=foot), turn_light
    rows = window(list(showing.labels), showing.cursor)  # the kit's list layout
    return Screen(showing.title, rows, footer=f"{footer(ok='pick')}  {RED_OUT}"), turn_light


def _last_question(showing: Showing) -> bool:
    """Whether ok on this choice ends the form (later questions may follow from it)."""
    form, question = showing.form, showing.question
    if form is None or question is None:
        return True
    answers = {**showing.answers, question.key: question.choices[showing.cursor]}
    keys = [f.key for f in form.questions(answers)]
    return question.key not in keys or keys.index(question.key) == len(keys) - 1


def menu_public(showing: Showing | None) -> dict[str, str | None]:
    """The replay state's ``menu``: what of the players' menu is open (menu, form, detail)."""
    kinds = {"list": "menu", "question": "form", "pages": "detail"}
    return {"menu": None if showing is None else kinds[showing.kind]}


def score_pages(state: State) -> tuple[Screen, ...]:
    """One player's score a page, in the order of the overview."""
    return tuple(
        Screen(
            f"Score {name(who)}",
            (
                f"Race {s.race}  Relics {s.relics}",
                f"Loot {s.loot}  Coins {s.coins}",
                f"Total {s.total}",
            ),
            footer=f"{footer(updown='page')}  {RED_OUT}",
        )
        for who, s in scores(state).items()
    )


def score_screen(state: State) -> Screen:
    table = scores(state)
    asked = question(state)
    if asked is not None:
        kind, who = asked
        wanted = FORMS[kind].title.lower()
        lines = ("Before the scores:", f"{name(who)}: {wanted}")
        return Screen(f"{TITLE}  Scores", lines, footer="G go on  R edit")
    cells = [f"{short(who)} {s.total}" for who, s in table.items()]
    lines = ["  ".join(cells[i : i + 2]) for i in range(0, len(cells), 2)][:2]
    best = leaders(state)
    if len(best) > 1:
        lines.append("Tie: " + " ".join(map(short, best)))
    elif best:
        lines.append(f"Best: {name(best[0])}")
    # green shows each score in detail; red opens the entries to correct one; back, as on
    # every final screen, the game menu (a new game, undo)
    return Screen(f"{TITLE}  Scores", tuple(lines), footer=f"G detail  R fix  {BACK_MENU}")


def race_light(state: State) -> Lights:
    best = leaders(state)
    if len(best) == 1:
        return Lights(SEAT_COLORS[best[0]], "pulse")
    return Lights(GREEN, "pulse")
