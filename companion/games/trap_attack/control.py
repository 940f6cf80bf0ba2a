"""The control map: buttons and card taps to game actions, the players' menu and its questions.

Green is the big "go on" button: it runs the AI's turn (or passes the turn), says "blocked"
while a block is asked, and confirms in menus. Red opens the players' menu, says "taken" while
a block is asked, and steps back in menus. Up/down choose; on the race's screen they show whose
turn it is, its start and the news as pages. Ok confirms or opens the menu. The
menu, its questions and the score pages are the shared kit's (forms.WALK says how they walk).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Action, Input, Pages, Reply, Tap
from companion.games.trap_attack import turns
from companion.games.trap_attack.forms import WALK, players_menu, question
from companion.games.trap_attack.pawns import next_seat
from companion.games.trap_attack.scoring import question as missing_entry
from companion.games.trap_attack.scoring import scored
from companion.games.trap_attack.state import AI, State
from companion.games.trap_attack.tables import catalog
from companion.games.trap_attack.view import score_pages, turn_pages

GAME_NAME = "trap-attack"
MOVES = {"up": -1, "down": 1}


def control(state: State, event: Input) -> Reply:
    if isinstance(event, Tap):
        return on_tap(state, event)
    button = event.button
    if state.race_over:
        return in_scores(state, button)
    if state.pending == "block":
        return in_block(state, button)
    if state.pending == "card":
        if button in ("green", "up", "down"):
            return question(state, "card", {})
        return players_menu(state)
    if state.awaits_first_roll:  # the race starts with the pawn dice: green rolls them
        return Action("first_player") if button == "green" else players_menu(state)
    if button == "green":
        return primary(state)
    if button in MOVES:  # whose turn it is and its start, whatever the news took
        pages = turn_pages(state)
        return Pages(pages, len(pages) - 1 if button == "up" else 0, WALK)
    return players_menu(state)


def primary(state: State) -> Action:
    """Green on the game screen: the AI's turn when it is due, else the next player's turn."""
    if state.options.ai and AI in (state.turn, next_seat(state, state.turn)):
        return Action("ai_turn")
    return Action("turn")


def in_scores(state: State, button: str) -> Reply:
    asked = missing_entry(state)
    if asked is not None and button in ("green", "ok"):
        return question(state, asked[0], {"player": asked[1]})
    if asked is not None and button in MOVES:
        return None  # no score is final, nor shown, while an entry is missing
    if button in (*MOVES, "green", "ok"):
        # One player's score a page; the first press shows the first or the last.
        size = len(scored(state))
        if size == 0:
            return None
        return Pages(score_pages(state), size - 1 if button == "up" else 0, WALK)
    return players_menu(state)  # red: the entries, to correct one


def in_block(state: State, button: str) -> Reply:
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
    return players_menu(state)


def on_tap(state: State, tap: Tap) -> Reply:
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
            return question(state, "user", {"card": kind})
        return Action("play", {"card": kind, "by": by})
    # While a block is asked the attack is refused with what waits (the rules say it)
    rivals = turns.opponents(state, by)
    if not rivals:
        return None
    if rivals == (AI,):
        return Action("attack", {"card": kind, "by": by})
    if len(rivals) == 1:
        return Action("play", {"card": kind, "by": by, "target": rivals[0]})
    return question(state, "target", {"card": kind, "by": by})


def scoring_tap(state: State, kind: str, card: Mapping[str, Any]) -> Reply:
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
    if kind == "relic" and not state.race_over:  # bought now: its value is asked after the race
        return Action("relic", {"player": who})
    return question(state, kind, {"player": who, **known})
