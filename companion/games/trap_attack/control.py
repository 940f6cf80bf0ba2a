"""The control map: buttons and card taps to game actions.

Green is the big "go on" button: it runs the AI's turn (or passes the turn), says "blocked"
while a block is asked, and confirms in menus. Red opens the players' menu, says "taken" while
a block is asked, and steps back in menus. Up/down choose; ok confirms or opens the menu.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Action, Input, Tap
from companion.games.trap_attack import turns
from companion.games.trap_attack.forms import (
    ask,
    entry_action,
    final_action,
    menu_entries,
    progress,
)
from companion.games.trap_attack.pawns import next_seat
from companion.games.trap_attack.scoring import question, scored
from companion.games.trap_attack.state import AI, State
from companion.games.trap_attack.tables import catalog

GAME_NAME = "trap-attack"
MOVES = {"up": -1, "down": 1}
FAST = 5  # a long press moves this many places in a long list (the AI's position, values)
LONG_LIST = 10  # lists longer than this move fast on a long press


def control(state: State, event: Input) -> Action | None:
    if isinstance(event, Tap):
        return on_tap(state, event)
    button = event.button
    mode = state.ui.mode
    if mode == "menu":
        return in_menu(state, button)
    if mode == "form":
        return in_form(state, button, event.long)
    if mode == "detail" or state.race_over:
        return in_scores(state, button)
    if state.pending == "block":
        return in_block(state, button)
    if state.pending == "card":
        if button in ("green", "up", "down"):
            return ask("card")
        return Action("menu")
    if button == "green":
        return primary(state)
    return Action("menu")


def primary(state: State) -> Action:
    """Green on the game screen: the AI's turn when it is due, else the next player's turn."""
    if state.options.ai and AI in (state.turn, next_seat(state, state.turn)):
        return Action("ai_turn")
    return Action("turn")


def _step(cursor: int, size: int, button: str) -> Action | None:
    if button not in MOVES or size == 0:
        return None
    return Action("pick", {"index": (cursor + MOVES[button]) % size})


def in_menu(state: State, button: str) -> Action | None:
    entries = menu_entries(state)
    if button in ("ok", "green"):
        return entry_action(entries[state.ui.cursor])
    if button == "red":
        return Action("close")
    return _step(state.ui.cursor, len(entries), button)


def in_form(state: State, button: str, long: bool = False) -> Action | None:
    form = state.ui.form
    assert form is not None
    p = progress(state, form)
    if button in ("ok", "green"):
        return final_action(state, form) if p.last else Action("next")
    if button == "red":
        return Action("close")
    if button in MOVES:
        size = len(p.field.choices)
        numeric = all(c.isdigit() for c in p.field.choices)
        step = -MOVES[button] if numeric else MOVES[button]  # up raises a number
        if long and size > LONG_LIST:
            step *= FAST
        return Action("pick", {"index": (form.cursor + step) % size})
    return None


def in_scores(state: State, button: str) -> Action | None:
    asked = question(state)
    if asked is not None and button in ("green", "ok"):
        return ask(asked[0], player=asked[1])
    if asked is not None and button in MOVES:
        return None  # no score is final, nor shown, while an entry is missing
    if button in MOVES:
        # The first press from the overview shows the first or the last row.
        first = -1 if button == "down" else 0
        here = state.ui.cursor if state.ui.mode == "detail" else first
        return _step(here, len(scored(state)), button)
    if button == "red" and state.ui.mode == "detail":
        return Action("close")
    return Action("menu")


def in_block(state: State, button: str) -> Action | None:
    if button == "green":
        return Action("blocked")
    if button == "red":
        return Action("take")
    threat = state.threat
    if button in MOVES and threat is not None:
        targets = [h for h in state.humans if h != threat.by]
        if len(targets) > 1:
            here = targets.index(threat.target) if threat.target in targets else 0
            return Action("aim", {"player": targets[(here + MOVES[button]) % len(targets)]})
        return None
    return Action("menu")


def on_tap(state: State, tap: Tap) -> Action | None:
    card = tap.card
    if card is None or card.get("game") != GAME_NAME:
        return None
    kind = str(card.get("card"))
    if kind in ("relic", "loot"):
        return scoring_tap(state, kind, card)
    effect = catalog().effect(kind)
    if effect is None or state.race_over:
        return None
    if state.pending == "card":
        return Action("card", {"id": kind})
    by = turns.default_user(state)
    if effect.group == "item":
        if len(state.humans) > 1:
            return ask("user", card=kind)
        return Action("play", {"card": kind, "by": by})
    if state.pending is not None:
        return None
    rivals = turns.opponents(state, by)
    if not rivals:
        return None
    if rivals == (AI,):
        return Action("attack", {"card": kind, "by": by})
    if len(rivals) == 1:
        return Action("play", {"card": kind, "by": by, "target": rivals[0]})
    return ask("target", card=kind, by=by)


def scoring_tap(state: State, kind: str, card: Mapping[str, Any]) -> Action:
    """A relic or loot card files its enrolled value; without one, the box asks for it.

    An enrolled value the rules cannot take (a combo left at 0 while enrolling) is asked for
    too, rather than making the tap do nothing.
    """
    claimed = state.card_to is not None and state.card_to[0] == kind
    who = state.card_to[1] if state.card_to is not None and claimed else state.turn
    ranges = {"value": state.rules.range(f"{kind}_value"), "combo": state.rules.range("combo")}
    keys = ("value", "combo") if kind == "relic" else ("value",)
    known = {}
    for key in keys:
        raw = str(card.get(key, ""))
        if raw.isdigit() and ranges[key][0] <= int(raw) <= ranges[key][1]:
            known[key] = raw
    if len(known) == len(keys):
        return Action(kind, {"player": who, **{k: int(v) for k, v in known.items()}})
    return ask(kind, player=who, **known)
