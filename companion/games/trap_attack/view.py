"""What the OLED and the LED show: one instruction at a time, and no relic or loot values
before the race is over (rulebook: Victory condition, Important note).

The LED is the colour of whoever must act: solid for the turn's owner, blinking for the player
who must say blocked or taken and for the AI's card waiting to be tapped; red blinking after a
knock-out.
"""

from __future__ import annotations

from companion.games.trap_attack.forms import FORMS, players_menu, progress
from companion.games.trap_attack.pawns import next_seat
from companion.games.trap_attack.scoring import cards_held, leaders, question, scores
from companion.games.trap_attack.state import AI, Form, State, name, short
from companion.ui.menus import window
from companion.ui.screen import BLUE, GREEN, PURPLE, RED, YELLOW, Lights, Screen

TITLE = "Trap Attack"
SEAT_COLORS = {"1": BLUE, "2": GREEN, "3": YELLOW, AI: PURPLE}


def view(state: State) -> tuple[Screen, Lights]:
    turn_light = Lights(SEAT_COLORS[state.turn])
    if state.ui.mode == "menu":
        return menu_screen(state), turn_light
    if state.ui.mode == "form":
        return form_screen(state), turn_light
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
    return f"{TITLE}  {short(state.turn)}"


def play_screen(state: State) -> Screen:
    lines = state.message or (f"{name(state.turn)}'s turn",)
    if state.options.ai and len(lines) < 3:
        spot = state.ai_spot
        held = "*" if spot.has_crystal else ""
        lines = (*lines, f"AI {spot.label()}{held}  life {state.pawn(AI).life}")
    ai_due = state.options.ai and AI in (state.turn, next_seat(state, state.turn))
    footer = "G AI turn  R menu" if ai_due else "G next  R menu"
    return Screen(title(state), tuple(lines), footer=footer, inverted=state.alert)


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


def menu_screen(state: State) -> Screen:
    """The players' menu in the kit's list layout, with this game's own footer."""
    menu = players_menu(state)
    rows = window([entry.label for entry in menu.forms], state.ui.cursor)
    return Screen(menu.title, rows, footer="G ok  R back")


def form_screen(state: State) -> Screen:
    form = state.ui.form
    assert form is not None
    p = progress(state, form)
    shown = p.field.shown(form.cursor)
    return Screen(form_title(state, form), (p.field.label, f"< {shown} >"), footer="G ok  R back")


def form_title(state: State, form: Form) -> str:
    """The form's name, and for whom when that is settled: "Relic AI 1/2" counts the cards."""
    head = FORMS[form.kind].title
    who = dict(form.preset).get("player")
    if who is None:
        return head
    head = f"{head} {short(who)}"
    held = cards_held(state, who)
    if held is not None and form.kind in ("relic", "loot"):
        entry = state.entry(who)
        count, filed = (held[0], entry.relics) if form.kind == "relic" else (held[1], entry.loot)
        if len(filed) < count:
            head = f"{head} {len(filed) + 1}/{count}"
    return head


def score_screen(state: State) -> Screen:
    table = scores(state)
    order = list(table)
    if state.ui.mode == "detail" and order:
        who = order[min(state.ui.cursor, len(order) - 1)]
        s = table[who]
        return Screen(
            f"Score {name(who)}",
            (
                f"Race {s.race}  Relics {s.relics}",
                f"Loot {s.loot}  Coins {s.coins}",
                f"Total {s.total}",
            ),
            footer="G menu  R back",
        )
    asked = question(state)
    if asked is not None:
        kind, who = asked
        wanted = FORMS[kind].title.lower()
        lines = ("Before the scores:", f"{name(who)}: {wanted}")
        return Screen(f"{TITLE}  Scores", lines, footer="G go on  R menu")
    cells = [f"{short(who)} {s.total}" for who, s in table.items()]
    lines = ["  ".join(cells[i : i + 2]) for i in range(0, len(cells), 2)][:2]
    best = leaders(state)
    if len(best) > 1:
        lines.append("Tie: " + " ".join(map(short, best)))
    elif best:
        lines.append(f"Best: {name(best[0])}")
    return Screen(f"{TITLE}  Scores", tuple(lines), footer="G menu  ^v detail")


def race_light(state: State) -> Lights:
    best = leaders(state)
    if len(best) == 1:
        return Lights(SEAT_COLORS[best[0]], "pulse")
    return Lights(GREEN, "pulse")
