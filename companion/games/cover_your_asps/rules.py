"""Cover Your Asps rules: state + action -> state + effects. Dice arrive in ``Action.rolls``.

The table game: seats take turns clockwise; a turn holds one action (a plank roll, an entry
roll, a move roll or an action card) and the seat's reports of what happened on the board
(entered, built, reached the vault, escaped), then ``next``. The box keeps each raider's phase,
the hands of action cards, the round and the vault, the treasure cards left and, once the last
one is taken, the count. The solo mode counts rolls and planks laid until the chamber is full
or no plank fits. Rulings: ../shared/notes/rulings.md and docs/rulings-cover-your-asps.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.games.base import (
    Action,
    BadAction,
    Effect,
    Log,
    Outcome,
    Rejected,
    Sound,
    check_arguments,
)
from companion.games.cover_your_asps import scoring
from companion.games.cover_your_asps.state import (
    BUILD,
    COLLECT,
    ESCAPE,
    Seat,
    Settings,
    SoloState,
    State,
    TableState,
)
from companion.games.cover_your_asps.tables import tables
from companion.games.seats import Ring, label, seat_arg

GAME = "cover-your-asps"
TWO_DICE = (6, 6)
ONE_DIE = (6,)
SEAT = ("player",)
ACCEPTED: dict[str, tuple[str, ...]] = {
    "plank": SEAT,
    "enter": SEAT,
    "move": SEAT,
    "card": ("player", "name"),
    "next": SEAT,
    "entered": SEAT,
    "built": SEAT,
    "vault": SEAT,
    "escaped": SEAT,
    "treasure": ("player", "points", "add", "card"),
    "planks": ("player", "n"),
    "youngest": SEAT,
    "placed": (),
    "won": (),
    "lost": (),
}
SOLO_ONLY = ("placed", "won", "lost")
MOST_POINTS = 999
Effects = tuple[Effect, ...]


# --- setup ---------------------------------------------------------------------------------


def initial(options: Mapping[str, Any]) -> Outcome:
    settings = Settings(
        players=int(options["players"]),
        vault=int(options["vault"]),
        planking=str(options["planking"]),
        tiebreak=str(options["tiebreak"]),
        collect=str(options.get("collect", "per-round")),
    )
    if settings.players == 1:
        setup = Log("Solo: lay a random plank near the middle, then fill the antechamber")
        return Outcome(SoloState(settings), (setup,))
    t = tables()
    state = TableState(
        settings=settings,
        seats=tuple(Seat(cards=t.action_cards) for _ in range(settings.players)),
        turn=1,
        round=1,
        vault=settings.vault,
        treasure_left=t.treasure[settings.players],
    )
    setup = Log(
        f"Setup: {settings.players} raiders, {t.action_cards} action cards each, "
        f"{state.treasure_left} treasure cards, the {t.vault(state.vault).name} vault; "
        f"{label(1)} plays first"
    )
    return Outcome(state, (setup,))


# --- what an action needs ------------------------------------------------------------------


def check_name(action: Action) -> None:
    check_arguments(GAME, action, ACCEPTED)


def dice_for(state: State, action: Action) -> tuple[int, ...]:
    """The dice an action rolls; an action the rules would refuse rolls none (so the table is
    never asked to read its dice for nothing)."""
    check_name(action)
    if isinstance(state, SoloState):
        _solo_check(state, action)
        return TWO_DICE if action.name == "plank" else ()
    if action.name in ("plank", "enter", "move"):
        _turn_action_check(state, action)
        if action.name == "move":
            return ONE_DIE
        if action.name == "plank" and state.settings.planking == "draw":
            return ()
        return TWO_DICE
    return ()


def _rolls(action: Action, faces: tuple[int, ...]) -> tuple[int, ...]:
    if len(action.rolls) != len(faces) or not all(1 <= r <= 6 for r in action.rolls):
        raise BadAction(f"'{action.name}' needs {len(faces)} die roll(s) 1..6, got {action.rolls}")
    return action.rolls


# --- the rules ----------------------------------------------------------------------------------


def apply(state: State, action: Action) -> Outcome:
    check_name(action)
    if isinstance(state, SoloState):
        new, effects = _solo(state, action)
    else:
        new, effects = _table(state, action)
    return Outcome(new, effects)


def _table(state: TableState, action: Action) -> tuple[TableState, Effects]:
    name = action.name
    if name in SOLO_ONLY:
        raise Rejected(f"'{name}' is only in the solo game")
    if name in scoring.ACTIONS:
        return scoring.apply(state, action)
    if state.over:
        raise Rejected("the game is over: count the treasure")
    _check_seat(state, action)
    if name in ("plank", "enter", "move", "card"):
        return _turn_action(state, action)
    if name == "next":
        return _next(state)
    return _report(state, action)


def _check_seat(state: TableState, action: Action) -> None:
    if "player" in action.args:
        seat = seat_arg(action, "player", state.settings.players)
        if seat != state.turn:
            raise Rejected(f"it is {label(state.turn)}'s turn, not {label(seat)}'s")


def _turn_action_check(state: TableState, action: Action) -> None:
    """Why the seat on turn may not take this action now (Rejected), if it may not."""
    if state.over:
        raise Rejected("the game is over: count the treasure")
    _check_seat(state, action)
    who = label(state.turn)
    if state.acted is not None:
        raise Rejected(f"{who} has acted: end the turn (red)")
    seat = state.seat(state.turn)
    name = action.name
    if name == "enter":
        if seat.phase == BUILD:
            raise Rejected(f"{who} is building: report built first")
        if seat.inside:
            raise Rejected(f"{who}'s raider is inside: roll to move")
    elif name == "move":
        if seat.phase == BUILD:
            raise Rejected(f"{who} is building: roll for a plank")
        if seat.phase == COLLECT and not seat.inside:
            raise Rejected(f"{who} is outside: roll to enter")
    elif name == "card" and seat.cards - 1 < tables().keep:
        raise Rejected(f"{who} must keep one action card")


def _turn_action(state: TableState, action: Action) -> tuple[TableState, Effects]:
    _turn_action_check(state, action)
    who = label(state.turn)
    name = action.name
    base = replace(state, acted=name, checklist=None, card_name=None, begun=True, swap=False)
    if name == "card":
        seat = state.seat(state.turn)
        card = str(action.args.get("name", "")).strip()[:40] or None
        new = replace(
            base,
            doubles=None,
            card_name=card,
            seats=state.with_seat(state.turn, replace(seat, cards=seat.cards - 1)),
        )
        played = f"plays {card}" if card else "plays an action card"
        return new, (Log(f"{who} {played} ({seat.cards - 1} left)"),)
    if name == "plank" and state.settings.planking == "draw":
        if action.rolls:
            raise BadAction("a plank turn rolls no dice when planks are drawn")
        new = replace(base, last_roll=(), doubles=None)
        return new, (Log(f"{who} draws a plank"),)
    rolls = _rolls(action, ONE_DIE if name == "move" else TWO_DICE)
    doubles = _doubles(state, name, rolls)
    new = replace(base, last_roll=rolls, doubles=doubles)
    faces = " ".join(map(str, rolls))
    what = {"plank": "rolls for a plank", "enter": "rolls to enter", "move": "rolls to move"}[name]
    effects: list[Effect] = [Sound("roll"), Log(f"{who} {what}: {faces}")]
    if doubles:
        effects.append(Log(f"Double: {', '.join(doubles)}"))
    return new, tuple(effects)


def _doubles(state: TableState, name: str, rolls: tuple[int, ...]) -> tuple[str, ...] | None:
    """Rulings 3: the doubles table belongs to plank rolls; an entry double enters anywhere."""
    if name == "move" or rolls[0] != rolls[1]:
        return None
    t = tables()
    if name == "enter":
        return (t.entry.id,)
    return tuple(a.id for a in t.plank_double(rolls[0], state.settings.players))


def _next(state: TableState) -> tuple[TableState, Effects]:
    after = Ring(state.settings.players).left(state.turn)
    new = replace(
        state,
        turn=after,
        acted=None,
        checklist=None,
        card_name=None,
        reports=(),
        begun=True,
        swap_due=False,
        swap=state.swap_due,  # the vault a round's last escape brought: said on the next turn
    )
    return new, (Sound("turn"), Log(f"{label(after)}'s turn"))


def _report(state: TableState, action: Action) -> tuple[TableState, Effects]:
    new, effects = _reported(state, action)
    return replace(new, reports=(*state.reports, action.name)), effects


def _reported(state: TableState, action: Action) -> tuple[TableState, Effects]:
    number = state.turn
    who = label(number)
    seat = state.seat(number)
    name = action.name
    # Escape Phase: the escape takes the turns after the vault; a new build starts with the
    # pit the escape uncovered, so it cannot be done in the escape's own turn.
    if name == "escaped" and "vault" in state.reports:
        raise Rejected(f"{who} escapes on a later turn")
    if name == "built" and "escaped" in state.reports:
        raise Rejected(f"{who} builds on a later turn")
    if name == "entered":
        if seat.phase != COLLECT or seat.inside:
            raise Rejected(f"{who}'s raider is not waiting to enter")
        if state.acted != "enter":
            raise Rejected("enter needs an entry roll this turn")
        new_seat = replace(seat, inside=True)
        return _with(state, new_seat), (Log(f"{who}'s raider is in the antechamber"),)
    if name == "built":
        if seat.phase != BUILD:
            raise Rejected(f"{who} is in the {seat.phase} phase")
        _check_cause(state, name)
        if waits_for_round(state, number):
            raise Rejected(
                f"{who} has escaped this round: build on, collect in round {state.round + 1}"
            )
        new_seat = replace(seat, phase=COLLECT)
        return _with(state, new_seat), (Log(f"{who} has built to the vault: collect phase"),)
    if name == "vault":
        if seat.phase != COLLECT or not seat.inside:
            raise Rejected(_not_inside(who, seat))
        _check_cause(state, name)
        return _vault(state, seat)
    if seat.phase != ESCAPE:
        raise Rejected(f"{who} is in the {seat.phase} phase")
    _check_cause(state, name)
    return _escaped(state, seat)


def waits_for_round(state: TableState, number: int) -> bool:
    """Rulings 4: one treasure a seat a round. A seat that has escaped in this round builds on
    (steps for the next vault) but collects again only once every seat has escaped and the
    next vault stands. With the race reading (``collect=race``) nobody waits: a seat that has
    escaped collects again in the same round while treasure is left."""
    if state.settings.collect == "race":
        return False
    return state.seat(number).escapes >= state.round


# Rulings 1: a report follows the turn's action that made it happen on the board.
CAUSES = {
    "built": (("plank", "card"), "a plank (or a card)"),
    "vault": (("move", "card"), "a move (or a card)"),
    "escaped": (("move", "card"), "a move (or a card)"),
}
REPORT_WORDS = {
    "built": "building to the vault",
    "vault": "reaching the vault",
    "escaped": "escaping",
}


def _check_cause(state: TableState, name: str) -> None:
    causes, words = CAUSES[name]
    if state.acted not in causes:
        raise Rejected(f"{REPORT_WORDS[name]} needs {words} this turn")


def _not_inside(who: str, seat: Seat) -> str:
    return f"{who} is outside" if seat.phase == COLLECT else f"{who} is in the {seat.phase} phase"


def _with(state: TableState, seat: Seat) -> TableState:
    return replace(state, seats=state.with_seat(state.turn, seat), checklist=None)


def _vault(state: TableState, seat: Seat) -> tuple[TableState, Effects]:
    who = label(state.turn)
    right = label(Ring(state.settings.players).right(state.turn))
    taken = replace(seat, phase=ESCAPE, treasures=seat.treasures + 1)
    left = state.treasure_left - 1
    new = replace(
        state, seats=state.with_seat(state.turn, taken), treasure_left=left, checklist="vault"
    )
    logs: list[Effect] = [Log(f"{who} reached the vault and takes a treasure card ({left} left)")]
    if left == 0:
        new = replace(new, over=True, checklist=None, acted=None)
        logs += [Sound("race_end"), Log("The last treasure card is taken: count the treasure")]
        return new, tuple(logs)
    logs.append(Log(f"Step off the vault; {right} places a scorpion, not in the 2 deepest rows"))
    return new, tuple(logs)


def _escaped(state: TableState, seat: Seat) -> tuple[TableState, Effects]:
    who = label(state.turn)
    right = label(Ring(state.settings.players).right(state.turn))
    out = replace(
        seat,
        phase=BUILD,
        inside=False,
        escapes=seat.escapes + 1,
        cards=seat.cards + tables().escape_draw,
    )
    new = replace(state, seats=state.with_seat(state.turn, out), checklist="escape")
    logs: list[Effect] = [
        Log(f"{who} escaped: remove the scorpion, draw an action card, uncover a pit"),
        Log(f"{who} puts a pillar in {right}'s antechamber"),
    ]
    while all(s.escapes >= new.round for s in new.seats):
        vault = min(new.vault + 1, len(tables().vaults))
        new = replace(new, round=new.round + 1, vault=vault, swap_due=vault != new.vault)
        words = tables().vault(vault).words
        logs.append(Log(f"Round {new.round}: the {tables().vault(vault).name} vault, {words}"))
    return new, tuple(logs)


# --- the solo mode -------------------------------------------------------------------------


def _solo_check(state: SoloState, action: Action) -> None:
    name = action.name
    if name not in ("plank", *SOLO_ONLY):
        raise Rejected(f"'{name}' is not in the solo game")
    if state.over:
        raise Rejected(f"the solo game is over ({state.result})")
    if name == "placed" and not state.unused_roll:
        raise Rejected("one plank per roll: roll first")
    if name == "won" and state.placed == 0:
        raise Rejected("no plank is laid yet")


def _solo(state: SoloState, action: Action) -> tuple[SoloState, Effects]:
    _solo_check(state, action)
    name = action.name
    if name == "plank":
        rolls = _rolls(action, TWO_DICE)
        # Rulings 8: the solo rules have no doubles table; a double is a plank like any other.
        new = replace(state, rolls=state.rolls + 1, last_roll=rolls, unused_roll=True)
        return new, (Sound("roll"), Log(f"Roll {new.rolls}: {rolls[0]} {rolls[1]}"))
    if name == "placed":
        new = replace(state, placed=state.placed + 1, unused_roll=False)
        return new, (Log(f"Plank {new.placed} laid"),)
    new = replace(state, result=name, unused_roll=False)
    if name == "won":
        return new, (Sound("win"), Log(f"Chamber full: won in {state.rolls} rolls"))
    return new, (Sound("lose"), Log(f"No plank fits: lost after {state.rolls} rolls"))


def result(state: State) -> dict[str, Any] | None:
    """A finished solo game, for the box's records (fewest rolls to fill the chamber)."""
    if not isinstance(state, SoloState) or state.result is None:
        return None
    return {
        "board": "solo",
        "won": state.result == "won",
        "score": state.rolls,
        "better": "lower",
        "unit": "rolls",
        "placed": state.placed,
    }
