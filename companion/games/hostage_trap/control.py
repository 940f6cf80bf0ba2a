"""The control map: buttons and card taps to Hostage Trap! actions, menus and pages.

green draws (asking from whom), red ends the turn (asking first while no card is drawn: the
draw is part of every turn), ok opens the seat's menu (what the turn still allows: attack, look
at a hand, an ability, a drawn trap; a claim; the end), up/down turn the information pages.
A tapped attack card asks whom it hit, a defence card files the attack it blocked, a trap
card files itself with the turns it costs, and a hostage card starts or continues a claim.
Hostage taps never name the card: the menus ask only who claims.
"""

from __future__ import annotations

from companion.games.base import Action, Ask, Field, Form, Input, Pages, Press, Reply, Tap
from companion.games.hostage_trap.data import tables
from companion.games.hostage_trap.state import HostageState
from companion.games.hostage_trap.view import pages, paused
from companion.games.seats import label
from companion.ui.screen import Screen

GAME_NAME = "hostage-trap"
HOSTAGE_PREFIX = "hostage-"
TRAP_KINDS = {"trap": "yes", "trap-on": "no"}  # card kind -> does it end the turn
NO_DRAW = "No card drawn"
END_ANYWAY = "End turn anyway"
END_UNDRAWN = "End turn, no draw"


def control(state: HostageState, event: Input) -> Reply:
    if isinstance(event, Tap):
        return _tap(state, event)
    if not isinstance(event, Press):
        return None
    button = event.button
    if button in ("up", "down"):
        screens = pages(state)
        return Pages(screens, 0 if button == "down" else len(screens) - 1)
    if state.over:
        return None
    if button == "red":
        if state.showing is not None:
            return Action("shown")
        return Action("next") if state.drew else undrawn_end(state)
    if button == "green":
        if state.showing is not None:
            return None  # a claim is open: hostage taps, or red when done
        if paused(state):
            return Action("resume")
        if state.may_draw() is None:
            if state.attack is not None:
                return Action("draw", {"target": str(state.attack)})
            return Ask("Draw", (_draw_form(state),))
        return seat_menu(state)
    if button == "ok":
        return seat_menu(state)
    return None


# --- the seat's menu -------------------------------------------------------------------------


def _others(state: HostageState, question: str) -> Field:
    seats = [s for s in state.ring.seats if s != state.turn]
    return Field("target", question, tuple(map(str, seats)), tuple(map(label, seats)))


def _seat_field(state: HostageState, question: str) -> Field:
    seats = state.ring.seats
    start = (state.turn or 1) - 1
    return Field("player", question, tuple(map(str, seats)), tuple(map(label, seats)), start)


def _colour_field(question: str, many: bool = False) -> Field:
    colours = tables().colours
    return Field("color" if not many else "hostages", question, colours, many=many)


def _draw_form(state: HostageState) -> Form:
    if state.attack is not None:
        target = Field("target", "Draw from", (str(state.attack),), (label(state.attack),))
    else:
        target = _others(state, "Draw from whom?")
    return Form("Draw a card", "draw", (target,), refused=state.may_draw())


def _attack_form(state: HostageState) -> Form:
    result = Field("result", "The attack...", ("hit", "failed"), ("hit / no defence", "failed"))
    return Form(
        "Attack", "attack", (_others(state, "Attack whom?"), result), refused=state.may_attack()
    )


def _trap_form(state: HostageState, ends: str | None = None) -> Form:
    turns = tuple(str(n) for n in range(tables().longest_trap + 1))
    names = tuple(f"sit out {n}" for n in turns)
    fields = [Field("turns", "Turns it costs?", turns, names)]
    args = {}
    if ends is None:
        fields.append(Field("ends", "Turn ends now?", ("yes", "no")))
    else:
        args["ends"] = ends
    return Form("Drew a trap", "trap", tuple(fields), args, refused=state.may_trap())


def undrawn_end(state: HostageState) -> Ask:
    """Red before the turn's draw: the draw is part of every turn, so the box asks first
    (draw now, or end the turn anyway: a card's text may say so; back: the turn goes on)."""
    return Ask(NO_DRAW, (_draw_form(state), Form(END_ANYWAY, "next")))


def seat_menu(state: HostageState) -> Ask:
    """What the turn still allows, and nothing else (a turn's draw, attack, look, ability or
    trap that the rules would refuse now is left out); a claim and the end are always there,
    the end saying when no card was drawn."""
    offered = [
        _draw_form(state),
        _attack_form(state),
        Form("Look at a hand", "peek", (_others(state, "Whose hand?"),), refused=state.may_peek()),
        Form(
            "Hostage ability",
            "ability",
            (_colour_field("Which hostage?"),),
            refused=state.may_use_ability(),
        ),
        _trap_form(state),
    ]
    forms = [form for form in offered if form.refused is None]
    forms.append(
        Form(
            "Claim a win",
            "claim",
            (_seat_field(state, "Who claims?"), _colour_field("Hostages held", many=True)),
        )
    )
    forms.append(Form("End turn" if state.drew else END_UNDRAWN, "next"))
    if state.timer is not None and state.timer.running:
        forms.append(Form("Pause timer", "pause"))
    return Ask(f"Seat {state.turn}", tuple(forms))


# --- cards -----------------------------------------------------------------------------------


def _tap(state: HostageState, event: Tap) -> Reply:
    card = event.card
    if card is None or card.get("game") != GAME_NAME:
        return None
    kind = str(card.get("card", ""))
    if state.over:
        return Pages((Screen("Game over", (f"Seat {state.winner} won",)),))
    if kind.startswith(HOSTAGE_PREFIX):
        colour = kind[len(HOSTAGE_PREFIX) :]
        if state.showing is not None:
            return Action("show", {"color": colour})
        form = Form("Show hostages", "show", (_seat_field(state, "Who claims?"),))
        return Ask("Claim a win", (Form(form.label, form.action, form.fields, {"color": colour}),))
    if kind == "attack":
        return Ask("Attack", (_attack_form(state),))
    if kind == "defence":
        return _defence(state)
    if kind in TRAP_KINDS:
        turns = card.get("turns")
        if isinstance(turns, int) and 0 <= turns <= tables().longest_trap:
            return Action("trap", {"turns": str(turns), "ends": TRAP_KINDS[kind]})
        return Ask("Drew a trap", (_trap_form(state, TRAP_KINDS[kind]),))
    return None


def _defence(state: HostageState) -> Reply:
    """A defence works by itself: tapped when an attack may still come, it files that attack as
    blocked (failed); otherwise the box only says what it does."""
    if state.may_attack() is None:
        who = _others(state, "Who was attacked?")
        blocked = Form("Attack blocked", "attack", (who,), {"result": "failed"})
        return Ask("Attack blocked", (blocked,))
    return Pages((Screen("Defence card", ("Blocks an attack", "made on its holder")),))
