"""The control map: buttons and card taps to Cover Your Asps actions, menus and pages.

On a seat's turn green does what buttons.green says, the word its footer shows: the roll the
phase needs, then the report that roll may have made (after an entry roll "entered" directly,
else the seat's menu), then nothing; red ends the turn, ok opens the seat's menu (reports and
the other actions), up/down the information pages. At the end green asks for the next entry
the count needs (once complete: the count's menu, to correct one) and ok offers all of them.
Solo: green rolls, ok counts a plank laid, red asks how the game ended. Tapped action cards are
played by the seat on turn; tapped treasure cards are counted at the end for the seat the
table picks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Action, Ask, Field, Form, Input, Rejected, Reply, Tap
from companion.games.cover_your_asps import buttons, rules, scoring
from companion.games.cover_your_asps.buttons import primary
from companion.games.cover_your_asps.state import BUILD, SoloState, State, TableState
from companion.games.cover_your_asps.tables import tables
from companion.games.cover_your_asps.view import SOLO_LOST, pages
from companion.games.seats import label

PAGES = ("up", "down")
REPORT_ENTRIES = {
    "built": "Built to the vault",
    "entered": "Raider entered",
    "vault": "Reached the vault",
    "escaped": "Escaped",
}


def control(state: State, event: Input) -> Reply:
    if isinstance(event, Tap):
        return _tap(state, event.uid, event.card)
    button = event.button
    if button in PAGES:
        return pages(state)
    if isinstance(state, SoloState):
        return _solo(state, button)
    if state.over:
        return _count(state, button)
    if button == "red":
        return Action("next")
    if button == "ok":
        return seat_menu(state)
    if button != "green":
        return None
    does = buttons.green(state)
    if does == "report":
        return seat_menu(state)
    return None if does is None else Action(does)


def _solo(state: SoloState, button: str) -> Reply:
    if state.over:
        return None
    if button == "green":
        return Action("plank")
    if button == "ok":
        return Action("placed")  # before a roll the rules say why not
    if button == "red":
        return Ask(
            "End the game",
            (
                Form("Chamber full: won", "won", refused=refusal(state, Action("won"))),
                Form(SOLO_LOST, "lost"),
            ),
        )
    return None


def refusal(state: State, action: Action) -> str | None:
    """Why the rules would refuse this action now, so a menu entry can say so at once."""
    try:
        if not rules.dice_for(state, action):
            rules.apply(state, action)
    except Rejected as err:
        return err.reason
    return None


def _form(state: TableState, text: str, name: str) -> Form:
    return Form(text, name, refused=refusal(state, Action(name)))


def seat_menu(state: TableState) -> Ask:
    """The seat's reports for its phase first, then the other things a turn may hold."""
    seat = state.seat(state.turn)
    report = buttons.report_for(state)
    forms = [_form(state, REPORT_ENTRIES[report], report)]
    forms.append(_form(state, "Plank roll", "plank"))
    if seat.phase != BUILD:
        forms.append(_form(state, "Move roll" if seat.inside else "Entry roll", primary(state)))
    forms.append(_form(state, "Play action card", "card"))
    forms.append(Form("End the turn", "next"))
    return Ask(label(state.turn), tuple(forms))


# --- the count -------------------------------------------------------------------------------


def _count(state: TableState, button: str) -> Reply:
    if button == "green":
        need = scoring.missing(state)  # buttons.green: "count", or "edit" once complete
        return _count_form_ask(state, need) if need else _count_menu(state)
    if button == "ok":
        return _count_menu(state)
    return None


def _numbers(low: int, high: int) -> tuple[str, ...]:
    return tuple(str(n) for n in range(low, high + 1))


def points_form(state: TableState, seat: int) -> Form:
    low, high = tables().points
    held = state.seat(seat).treasures
    field = Field("points", f"{label(seat)}: points", _numbers(held * low, held * high))
    return Form(f"Points {label(seat)}", "treasure", (field,), {"player": seat})


def planks_form(seat: int) -> Form:
    field = Field("n", f"{label(seat)}: planks left", _numbers(0, tables().planks_per_set))
    return Form(f"Planks {label(seat)}", "planks", (field,), {"player": seat})


def youngest_form(state: TableState) -> Form:
    seats = scoring.tied(state) or ()
    if len(seats) < 2:
        seats = tuple(range(1, state.settings.players + 1))
    field = Field(
        "player", "Youngest player?", tuple(map(str, seats)), tuple(label(s) for s in seats)
    )
    return Form("Youngest player", "youngest", (field,))


def _count_form_ask(state: TableState, need: tuple[str, int]) -> Ask:
    what, seat = need
    if what == "treasure":
        form = points_form(state, seat)
    elif what == "planks":
        form = planks_form(seat)
    else:
        form = youngest_form(state)
    return Ask(form.label, (form,))


def _count_menu(state: TableState) -> Ask:
    players = range(1, state.settings.players + 1)
    forms = [points_form(state, n) for n in players]
    if state.settings.tiebreak == "planks":
        forms += [planks_form(n) for n in players]
    else:
        forms.append(youngest_form(state))
    return Ask("The count", tuple(forms))


# --- card taps -------------------------------------------------------------------------------


def _tap(state: State, uid: str, card: Mapping[str, Any] | None) -> Reply:
    if card is None or card.get("game") != rules.GAME or isinstance(state, SoloState):
        return None
    kind = card.get("card")
    if kind == "action" and not state.over:
        return Action("card", {"name": str(card.get("name", ""))})
    if kind != "treasure" or not state.over:
        return None
    return treasure_tap(state, uid, card.get("points"))


def treasure_tap(state: TableState, uid: str, points: Any) -> Ask:
    """A tapped treasure card is added to the seat the table picks (and asks its points if it
    was enrolled without them); the pick starts at a seat with cards still to count (a sum
    counts them all). A card counted already is refused at once: nothing is asked."""
    twice = scoring.already_counted(state, uid)
    if twice:  # refused at the tap, before its points and owner are asked
        what = "Treasure card"
        return Ask(what, (Form(what, "treasure", (), {"card": uid}, refused=twice),))
    seats = tuple(range(1, state.settings.players + 1))
    room = [n for n in seats if scoring.cards_counted(state.seat(n)) < state.seat(n).treasures]
    last = [state.last_counted] if state.last_counted in room else []
    uncounted = [n for n in seats if state.seat(n).points is None]
    start = seats.index((last + uncounted + room + list(seats))[0])
    fields = []
    low, high = tables().points
    if not (isinstance(points, int) and low <= points <= high):
        fields.append(Field("add", "Card's points", _numbers(low, high)))
        args: dict[str, Any] = {"card": uid}
        what = "Treasure card"
    else:
        args = {"card": uid, "add": points}
        what = f"{points}-point card"
    fields.append(
        Field("player", "Whose card?", tuple(map(str, seats)), tuple(map(label, seats)), start)
    )
    return Ask(what, (Form(what, "treasure", tuple(fields), args),))
