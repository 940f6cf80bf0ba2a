"""Whose turn it is, the first-player roll, and the per-turn limits on played action cards."""

from __future__ import annotations

from dataclasses import replace

from companion.games.base import Action, BadAction, Rejected
from companion.games.trap_attack import ai, pawns
from companion.games.trap_attack.state import AI, Played, State, Threat, name, short
from companion.games.trap_attack.step import Step, pawn_arg
from companion.games.trap_attack.tables import CardEffect

# The AI never loses its turn (Solo Mode: it moves and rolls every turn): no one may pass it,
# not "Next turn" nor any other way; green plays it.
AI_PLAYS = "it is the AI's turn: green plays it"


def next_turn(step: Step) -> None:
    state = step.state
    seat = pawns.next_seat(state, state.turn)
    step.state = pawns.begin_turn(pawns.end_turn(state), seat)
    step.state = replace(step.state, card_to=None)
    step.log(f"{name(seat)}'s turn")
    step.say(f"{name(seat)}'s turn")
    if seat != AI and pawns.moves_stopped(step.state, seat):
        pawns.say_stopped(step, seat)
    step.sound("turn")


def first_player_seats(state: State) -> tuple[str, ...]:
    return state.first_tie or state.seats


FIRST_ROLL = "roll for who starts first: green rolls the pawn dice"


def first_player(step: Step, rolls: tuple[int, ...]) -> None:
    """Each pawn rolls its die; the highest starts, a tie rolls again (How to Play: Starting).
    The race's first turn is turn 1 whoever has it; a roll again before that turn has passed
    hands it to the new winner."""
    seats = first_player_seats(step.state)
    shown = ", ".join(f"{short(s)} {r}" for s, r in zip(seats, rolls, strict=True))
    line = " ".join(f"{short(s)}:{r}" for s, r in zip(seats, rolls, strict=True))
    top = max(rolls)
    tied = tuple(s for s, r in zip(seats, rolls, strict=True) if r == top)
    step.sound("roll")
    if len(tied) > 1:
        step.state = replace(step.state, first_tie=tied)
        step.log(f"First player roll: {shown}; tie, {', '.join(map(name, tied))} roll again")
        step.say(line, "Tie: roll again", " ".join(map(short, tied)))
        return
    first = tied[0]
    state = replace(step.state, first_tie=(), card_to=None, leader=first)  # each round's first
    step.state = replace(state, turn=first, played=(), first_rolled=True)
    step.log(f"First player roll: {shown}; {name(first)} starts")
    step.say(line, f"{name(first)} starts")
    step.sound("turn")
    if first != AI:
        pawns.remind_turn_start(step, first)


def waiting(state: State) -> str | None:
    """What must be answered before a new play, in words (None: nothing waits). The AI's card
    is finished first; a player's attack waits for its target to say blocked or taken."""
    if state.awaits_first_roll:
        return FIRST_ROLL
    if state.pending == "card":
        return "finish the AI's card first"
    threat = state.threat
    if state.pending == "block" and threat is not None and threat.by != AI:
        return f"{name(threat.target)} must say blocked or taken first"
    if state.pending is not None:
        return "finish the AI's card first"
    return None


def default_user(state: State) -> str:
    """Who plays a tapped card: the attacked player while a block is asked, else the turn's."""
    if state.pending == "block" and state.threat is not None and state.threat.target != AI:
        return state.threat.target
    return state.turn if state.turn != AI else state.humans[0]


def opponents(state: State, by: str) -> tuple[str, ...]:
    return tuple(s for s in state.seats if s != by)


def attack_target(state: State, action: Action, by: str) -> str:
    if "target" in action.args:
        target = pawn_arg(state, action, "target")
    else:
        rivals = opponents(state, by)
        if len(rivals) != 1:
            raise BadAction(f"'{action.name}' needs target=P: {name(by)} has several opponents")
        target = rivals[0]
    if target == by:
        raise BadAction(f"target={target}: {name(by)} cannot attack themselves")
    return target


def check_attack(state: State, by: str, target: str) -> None:
    """One attack per opponent per turn, only in one's own turn (Game Play: Important rule)."""
    if state.turn != by:
        raise Rejected(f"{name(by)} can cast an attack only in their own turn")
    check_attack_limit(state, by, target)


def check_attack_limit(state: State, by: str, target: str) -> None:
    """One attack per opponent per turn (a hit entered by hand as well as a card)."""
    if any(p.by == by and p.group == "attack" and p.target == target for p in state.played):
        if len(opponents(state, by)) == 1:
            raise Rejected(f"{name(by)} has already cast an attack this turn")
        raise Rejected(f"{name(by)} has already attacked {name(target)} this turn")


def check_item(state: State, by: str) -> None:
    """One item per turn; items may also be used in an opponent's turn."""
    if any(p.by == by and p.group == "item" for p in state.played):
        raise Rejected(f"{name(by)} has already used an item this turn")


def play_needs_die(state: State, action: Action) -> bool:
    """An attack card played at the AI needs its action die (Solo Mode: Block).

    The limits are checked here too, before anyone rolls for a card that is over them.
    """
    effect = ai.card_effect(_as_card(action))
    if effect.group != "attack":
        return False
    by = pawn_arg(state, action, "by", ai=False, default=default_user(state))
    target = attack_target(state, action, by)
    if target != AI:
        return False
    reason = waiting(state)
    if reason is not None:
        raise Rejected(reason)
    check_attack(state, by, target)
    return True


def _as_card(action: Action) -> Action:
    return Action(action.name, {"id": action.args.get("card", "")})


def play(step: Step, action: Action, rolls: tuple[int, ...]) -> None:
    """A player's own action card, tapped when played: the per-turn limits are checked."""
    state = step.state
    effect = ai.card_effect(_as_card(action))
    by = pawn_arg(state, action, "by", ai=False, default=default_user(state))
    if effect.group == "attack":
        target = attack_target(state, action, by)
        play_attack(step, effect, by, target, rolls)
        return
    check_item(state, by)
    if effect.kind == "forward" and pawns.moves_stopped(state, by):
        raise Rejected(pawns.stopped_reason(state, by))
    step.state = replace(state, played=(*state.played, Played(by, "item", None)))
    if effect.kind == "heal":
        step.log(f"{name(by)} plays {effect.name}")
        pawns.heal(step, by, effect.amount)
    elif effect.kind == "forward":
        step.log(f"{name(by)} plays {effect.name}: {pawns.spaces(effect.amount)} forward")
        step.say(f"{short(by)}: {effect.amount} forward")
    else:
        step.log(f"{name(by)} uses {effect.name}")
        step.say(f"{short(by)} uses", effect.short)


def play_attack(
    step: Step, effect: CardEffect, by: str, target: str, rolls: tuple[int, ...]
) -> None:
    state = step.state
    reason = waiting(state)
    if reason is not None:
        raise Rejected(reason)
    check_attack(state, by, target)
    step.state = replace(state, played=(*state.played, Played(by, "attack", target)))
    if target == AI:
        ai.attack_ai(step, by, effect.kind, effect.amount, rolls[0])
    else:
        ai.threaten(step, Threat(effect.kind, effect.amount, target, by, effect.id, effect.name))
