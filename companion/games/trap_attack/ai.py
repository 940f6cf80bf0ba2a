"""The solo AI (rulebook: Solo Mode): its turn, the cards it casts, and attacks against it."""

from __future__ import annotations

from dataclasses import replace

from companion.games.base import Action, BadAction, Rejected
from companion.games.trap_attack import board as track
from companion.games.trap_attack import pawns
from companion.games.trap_attack.board import CRYSTAL, Spot
from companion.games.trap_attack.state import AI, Roll, State, Threat, name, short
from companion.games.trap_attack.step import LINE, Step, pawn_arg, yes_no
from companion.games.trap_attack.tables import CardEffect, catalog

READING_NAMES = {"block": "Block", "relic": "Relic", "cast": "Cast"}


def move_faces(state: State) -> tuple[int, ...]:
    """The AI turn's dice: movement die then action die, or the action die alone if paralyzed."""
    action_die = state.rules.action_faces
    if held_still(state):
        return (action_die,)
    return (state.rules.move(state.options.ai_move).die, action_die)


def held_still(state: State) -> bool:
    """Paralysis stops the AI's movement in the AI turn under way or about to start, if it
    came before that turn began: paralysis that reaches the AI during its own turn stops its
    next turn's movement, as for a player (rulings, Trap Attack 3)."""
    return pawns.moves_stopped(state, AI)


def walk(step: Step, steps: int) -> int:
    """Forward along the AI's route: the crystal stops and heals it, the boat ends the race.

    Returns the spaces actually walked (fewer when the crystal stopped the walk).
    """
    state = step.state
    was = state.ai_spot
    spot = track.forward(state.board, state.options.ai_route, was, steps)
    steps = track.distance(state.board, state.options.ai_route, was, spot)
    step.state = replace(state, ai_spot=spot)
    text = f"AI moves {steps}: {was.label()} -> {spot.label()}"
    step.log(text)
    step.say(text if len(text) <= LINE else text.replace(" -> ", "->"))
    if spot.at_boat:
        step.state = replace(step.state, winner=AI, pending=None, threat=None)
        step.log("AI reaches the boat with the crystal: the race is over")
        step.say("AI wins the race!")
        step.sound("race_end")
    elif spot.position == CRYSTAL and not was.has_crystal:
        rules = step.state.rules
        pawn = step.state.pawn(AI)
        life = min(rules.life, pawn.life + rules.crystal_heal)
        step.state = step.state.with_pawn(replace(pawn, life=life))
        step.log(f"AI takes the crystal and heals {rules.crystal_heal}: life {pawn.life} -> {life}")
        step.say(f"Crystal! AI life {life}")
        step.sound("crystal")
    return steps


def finish_ai_turn(step: Step) -> None:
    """The AI's turn is over once nothing waits on the players: the next seat plays."""
    state = step.state
    if state.turn != AI or state.pending is not None or state.winner is not None:
        return
    state = pawns.end_turn(state)
    step.state = pawns.begin_turn(state, pawns.next_seat(state, AI))


def ai_turn(step: Step, action: Action, rolls: tuple[int, ...]) -> None:
    state = step.state
    if state.turn != AI:
        state = pawns.begin_turn(pawns.end_turn(state), AI)
    step.state = state
    step.sound("roll")
    rules = state.rules
    if held_still(state):
        face = rolls[0]
        step.log("AI is paralyzed: no move this turn")
        step.say("AI paralyzed: no move")
        roll_move: int | None = None
        spaces: int | None = None
    else:
        roll_move, face = rolls
        spaces = walk(step, rules.move(state.options.ai_move).free + roll_move)
    # Reaching the boat ended the race: the action die rolled with that move does not count.
    reading = rules.reading(face) if step.state.winner is None else None
    step.state = replace(step.state, last_roll=Roll(roll_move, spaces, face, reading))
    if reading is not None:
        act(step, reading)
    finish_ai_turn(step)


def act(step: Step, reading: str) -> None:
    if reading == "block":
        step.log("AI rolls Block: nothing happens on its own turn")
        step.say("Block: no action")
    elif reading == "relic":
        state = step.state
        step.state = replace(
            state,
            ai_relics=state.ai_relics + 1,
            card_to=("relic", AI),
            round_bought=True,
            heading=pawns.RELIC_REFILL,  # the row slides right and a new card fills the gap
        )
        step.log("AI buys the rightmost relic, free")
        step.say("AI takes right relic")
    else:
        step.state = replace(step.state, pending="card", discarded=0)
        step.log("AI casts a card: draw the top action card and tap it")
        step.say("Draw top action card", "and tap it")


def card_effect(action: Action) -> CardEffect:
    card_id = str(action.args.get("id", action.args.get("card", "")))
    if not card_id:
        raise BadAction(f"action '{action.name}' needs id=CARD (e.g. id=damage-2)")
    effect = catalog().effect(card_id)
    if effect is None:
        known = ", ".join(e.id for e in catalog().effects)
        raise BadAction(f"unknown action card {card_id!r} (known: {known})")
    return effect


def cast(step: Step, action: Action) -> None:
    """The card the AI drew (rulebook: Solo Mode, Exceptions)."""
    effect = card_effect(action)
    state = step.state
    if effect.no_effect_for_ai:
        discard(step, effect, "no effect for the AI", "No effect")
        return
    if effect.kind == "forward" and held_still(state):
        discard(step, effect, "the AI is paralyzed", "Paralyzed")
        return
    step.state = replace(state, pending=None, discarded=0)
    if effect.kind in ("heal", "forward"):
        step.log(f"AI casts {effect.name} on itself")
        step.say(f"AI casts {effect.short}")  # the tapped card, named at a glance
    if effect.kind == "heal":
        pawns.heal(step, AI, effect.amount)
    elif effect.kind == "forward":
        walk(step, effect.amount)
    else:
        target = pawn_arg(state, action, "target", ai=False, default=state.humans[0])
        threaten(step, Threat(effect.kind, effect.amount, target, AI, effect.id, effect.name))
    finish_ai_turn(step)


def discard(step: Step, effect: CardEffect, why: str, short_why: str) -> None:
    """A card that does nothing for the AI now: it draws again, its card still awaited."""
    step.state = replace(step.state, discarded=step.state.discarded + 1)
    step.log(f"{effect.name}: {why}, discard it and draw another")
    step.say(effect.short, f"{short_why}: discard it", "draw another, tap it")


def threaten(step: Step, threat: Threat) -> None:
    step.state = replace(step.state, pending="block", threat=threat)
    step.log(f"{name(threat.by)} casts {threat.name} at {name(threat.target)}: blocked or taken?")
    step.say(f"{threat.name} on {short(threat.target)}", "Block it with skulls?")
    if threat.by == AI:
        step.sound("attack")


def blocked(step: Step) -> None:
    threat = _threat(step.state)
    step.state = replace(step.state, pending=None, threat=None)
    step.log(f"{name(threat.target)} blocks the {threat.name}")
    step.say(f"{short(threat.target)} blocks", threat.name)
    step.sound("block")
    finish_ai_turn(step)


def take(step: Step) -> None:
    threat = _threat(step.state)
    step.state = replace(step.state, pending=None, threat=None)
    step.log(f"{name(threat.target)} takes the {threat.name}")
    # The AI's turn ends with this step: if its target plays next, that is the turn it loses.
    at_once = threat.by == AI and pawns.next_seat(step.state, AI) == threat.target
    strike(step, threat.target, threat.kind, threat.amount, threat.by, at_once=at_once)
    finish_ai_turn(step)


def aim(step: Step, action: Action) -> None:
    threat = _threat(step.state)
    target = pawn_arg(step.state, action, "player", ai=False)
    if target == threat.by:
        raise Rejected(f"{name(target)} cast the card and cannot be its target")
    step.state = replace(step.state, threat=replace(threat, target=target))
    step.log(f"The {threat.name} is aimed at {name(target)}")
    step.say(f"{threat.name} on {short(target)}", "Block it with skulls?")


def _threat(state: State) -> Threat:
    if state.pending != "block" or state.threat is None:
        raise Rejected("no attack is waiting to be blocked or taken")
    return state.threat


def strike(
    step: Step, target: str, kind: str, amount: int, by: str | None, *, at_once: bool = False
) -> None:
    """An offensive effect lands (rulebook: Dealing damage, Pushing backwards, Paralysis);
    ``at_once``: a paralysis costs the turn that starts right after this step."""
    if kind == "damage":
        pawns.hurt(step, target, amount, by)
    elif kind == "push":
        if target == AI:
            state = step.state
            was = state.ai_spot
            spot = track.back(state.board, state.options.ai_route, was, amount)
            step.state = replace(state, ai_spot=spot)
            step.log(f"AI is pushed back {amount}: {was.label()} -> {spot.label()}")
            step.say(f"AI pushed back {amount}", f"{was.label()} -> {spot.label()}")
        else:
            step.log(f"{name(target)} goes back {pawns.spaces(amount)}")
            step.say(f"{short(target)}: back {pawns.spaces(amount)}")
    else:
        pawns.paralyze(step, target, at_once=at_once)


ATTACK_KINDS = ("damage", "push", "paralysis")


def attack_effect(action: Action) -> tuple[str, int]:
    """kind and amount of ``attack kind=... [amount=N]``, within the catalog's amounts."""
    if "card" in action.args:
        effect = card_effect(Action(action.name, {"id": action.args["card"]}))
        if effect.group != "attack":
            raise BadAction(f"card={effect.id} is not an attack card")
        return effect.kind, effect.amount
    kind = action.choice_arg("kind", ATTACK_KINDS)
    if kind == "paralysis":
        return kind, 1
    amounts = catalog().amounts(kind)
    return kind, action.int_arg("amount", min(amounts), max(amounts), 1)


def attack_ai(step: Step, by: str, kind: str, amount: int, face: int) -> None:
    """A player casts an offensive card at the AI; the action die may block it (Solo Mode)."""
    state = step.state
    reading = state.rules.reading(face)
    step.state = replace(
        state, last_roll=replace(state.last_roll, action_face=face, action=reading)
    )
    label = effect_label(kind, amount)
    step.sound("roll")
    if reading == "block":
        step.log(f"AI rolls {face} (Block): {name(by)}'s {label} is blocked")
        step.say(f"AI rolls {face}: Block", f"{label} blocked")
        step.sound("block")
        return
    step.log(f"AI rolls {face} ({READING_NAMES[reading]}): no block, {label} hits")
    step.say(f"AI rolls {face}: hit")
    strike(step, AI, kind, amount, by)


def effect_label(kind: str, amount: int) -> str:
    if kind == "paralysis":
        return "Paralysis"
    effect = catalog().effect(f"{kind}-{amount}")
    return effect.name if effect else f"{kind.capitalize()} {amount}"


def set_ai(step: Step, action: Action) -> None:
    """The physical board is the truth: the owner corrects the AI's books."""
    state = step.state
    keys = {"position", "crystal", "life", "paralyzed"} & set(action.args)
    if not keys:
        raise BadAction("set_ai needs position=N, crystal=yes|no, life=N or paralyzed=yes|no")
    spot = state.ai_spot
    if "position" in action.args or "crystal" in action.args:
        position = action.int_arg("position", CRYSTAL, state.board.start, spot.position)
        crystal = yes_no(action, "crystal", "yes" if spot.has_crystal else "no")
        if position == CRYSTAL:
            if "crystal" in action.args and not crystal:
                raise Rejected("space 0 is the crystal: a pawn there holds it")
            crystal = True
        new = Spot(position, has_crystal=crystal)
        if not track.on_route(state.board, state.options.ai_route, new):
            raise Rejected(f"space {position} is not on the AI's {state.options.ai_route} route")
        step.state = replace(state, ai_spot=new)
        held = " with the crystal" if crystal else ""
        step.log(f"AI set to space {position}{held} (was {spot.label()})")
        step.say(f"AI now on {position}{'+crystal' if crystal else ''}")
    pawn = step.state.pawn(AI)
    if "life" in action.args:
        life = action.int_arg("life", 1, state.rules.life)
        step.state = step.state.with_pawn(replace(pawn, life=life))
        step.log(f"AI life set to {life}")
        step.say(f"AI life {life}")
        pawn = step.state.pawn(AI)
    if "paralyzed" in action.args:
        stuck = yes_no(action, "paralyzed")
        step.state = step.state.with_pawn(
            replace(pawn, paralyzed_at=step.state.turn_no if stuck else None)
        )
        step.log(f"AI paralysis set to {'yes' if stuck else 'no'}")
        step.say(f"AI paralyzed: {'yes' if stuck else 'no'}")
