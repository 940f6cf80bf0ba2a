"""Life, knock-outs, paralysis and turn ends: the books kept for every pawn, AI or human."""

from __future__ import annotations

from dataclasses import replace

from companion.games.trap_attack import board as track
from companion.games.trap_attack.state import AI, State, name, short
from companion.games.trap_attack.step import Step


def spaces(n: int) -> str:
    """A number of spaces in words: "1 space", "3 spaces"."""
    return f"{n} space" if n == 1 else f"{n} spaces"


def hurt(step: Step, target: str, amount: int, by: str | None) -> None:
    """Damage; at 0 life the pawn is knocked out (rulebook: Players, General Rules)."""
    pawn = step.state.pawn(target)
    life = pawn.life - amount
    if life > 0:
        step.state = step.state.with_pawn(replace(pawn, life=life))
        step.log(f"{name(target)} loses {amount} life: {pawn.life} -> {life}")
        step.say(f"{short(target)} life {pawn.life} -> {life}")
        return
    step.log(f"{name(target)} loses {amount} life: {pawn.life} -> 0")
    knockout(step, target, by)


def knockout(step: Step, target: str, by: str | None) -> None:
    """Back some spaces, full life, and the attacker earns a battle loot card."""
    rules = step.state.rules
    pawn = step.state.pawn(target)
    step.state = step.state.with_pawn(replace(pawn, life=rules.life))
    back = rules.knockout_back
    if target == AI:
        state = step.state
        was = state.ai_spot
        spot = track.back(state.board, state.options.ai_route, was, back)
        step.state = replace(state, ai_spot=spot)
        step.log(
            f"AI is knocked out: back {spaces(back)} ({was.label()} -> {spot.label()}),"
            f" life {rules.life}"
        )
        step.say("AI knocked out!", f"AI back: {was.label()} -> {spot.label()}")
    else:
        step.log(f"{name(target)} is knocked out: back {spaces(back)}, life {rules.life}")
        step.say(f"{short(target)} knocked out!", f"Back {spaces(back)}, life {rules.life}")
    step.sound("knockout")
    step.alert = True
    if by is not None and by != target:
        winner = step.state.pawn(by)
        step.state = step.state.with_pawn(replace(winner, loot=winner.loot + 1))
        step.state = replace(step.state, card_to=("loot", by))
        step.log(f"{name(by)} earns a battle loot card")
        step.say(f"{short(by)}: take a loot card")


def heal(step: Step, target: str, amount: int) -> None:
    """Heal, never above full life (rulebook: Players)."""
    pawn = step.state.pawn(target)
    life = min(step.state.rules.life, pawn.life + amount)
    step.state = step.state.with_pawn(replace(pawn, life=life))
    if life == pawn.life:  # at full life already: nothing healed ("life 6 -> 6" read as a slip)
        step.log(f"{name(target)} heals {amount}: life already full ({life})")
        step.say(f"{short(target)} life full: {life}")
        return
    step.log(f"{name(target)} heals {amount}: life {pawn.life} -> {life}")
    step.say(f"{short(target)} heals: {pawn.life} -> {life}")


def paralyze(step: Step, target: str, *, at_once: bool = False) -> None:
    """No movement for the pawn's next turn; it may still act (rulebook: Paralysis Effect).

    ``at_once``: the turn it loses is the one that starts as this step ends (the AI paralyzed
    the player who plays right after it), so the words name this turn, not the next."""
    pawn = step.state.pawn(target)
    step.state = step.state.with_pawn(replace(pawn, paralyzed_at=step.state.turn_no))
    if at_once:
        say_stopped(step, target)
        return
    step.log(f"{name(target)} is paralyzed: no move next turn")
    step.say(f"{short(target)} paralyzed:", "no move next turn")


def say_stopped(step: Step, target: str) -> None:
    """The pawn's paralyzed turn is the one being played."""
    step.log(f"{name(target)} is paralyzed: no move this turn")
    step.say(f"{short(target)} paralyzed:", "no move this turn")


def moves_stopped(state: State, pawn_id: str) -> bool:
    """Paralysis holds the pawn still from the moment it lands until the end of the pawn's next
    turn, except in the very turn of the pawn's own in which it landed (that turn's moves were
    free): no free space, no die, no move-forward card (rulings, Trap Attack 3)."""
    since = state.pawn(pawn_id).paralyzed_at
    if since is None:
        return False
    return state.turn != pawn_id or since < state.turn_no


def stopped_reason(state: State, pawn_id: str) -> str:
    """Why a move-forward card of a paralyzed pawn is refused, naming the turn it loses."""
    when = "this turn" if state.turn == pawn_id else "until their next turn is over"
    return f"{name(pawn_id)} is paralyzed: no move {when}"


def end_turn(state: State) -> State:
    """The turn owner's paralysis wears off if it was there before this turn began; paralysis
    that came during the turn lasts through the owner's next one, the AI's as a player's."""
    pawn = state.pawn(state.turn)
    served = pawn.paralyzed_at is not None and pawn.paralyzed_at < state.turn_no
    if served:
        state = state.with_pawn(replace(pawn, paralyzed_at=None))
    return state


def begin_turn(state: State, seat: str) -> State:
    """A new turn: per-turn card limits start afresh, and the race's first turn is behind
    (the roll for who starts, and any tie it left, are over). Back at the round's first seat a
    round is over: if nobody bought a relic in it, the table cycles the relic row (rulebook:
    Relic Cards)."""
    if seat == state.leader:
        if not state.round_bought:
            state = replace(state, heading=RELIC_CYCLE)
        state = replace(state, round_bought=False)
    return replace(
        state,
        turn=seat,
        turn_no=state.turn_no + 1,
        played=(),
        first_turn_passed=True,
        first_tie=(),
    )


RELIC_CYCLE = "Relic row: cycle"  # nobody bought one this round
RELIC_REFILL = "Relic row: refill"  # one was bought: slide the row right, draw into the gap


def turn_start_lines(state: State, seat: str) -> tuple[str, str]:
    """What a player does as the turn begins: the hand to fill, and the free move (or none)."""
    rules = state.rules
    return (
        f"Fill {rules.hand_cards} cards {rules.skull_cards} skulls",
        "Paralyzed: no move" if moves_stopped(state, seat) else "Free move: 1 space",
    )


def remind_turn_start(step: Step, seat: str) -> None:
    """A player's turn begins: the hand to draw up to and the free one-space move (rulebook:
    Game Play 2 and 3), in the lines the news leaves free; with none free, in the top line."""
    state = step.state
    rules = state.rules
    stopped = moves_stopped(state, seat)
    room = 3 - len(step.lines[-3:])
    if room >= 2:
        step.say(*turn_start_lines(state, seat))
        return
    line = f"{short(seat)}: fill {rules.hand_cards}+{rules.skull_cards}, "
    line += "no move" if stopped else "move 1"
    if room == 1:
        step.say(line)
    elif step.state.heading is None:
        step.state = replace(step.state, heading=line)


def next_seat(state: State, seat: str) -> str:
    seats = state.seats
    if seat not in seats:
        return seats[0]
    return seats[(seats.index(seat) + 1) % len(seats)]
