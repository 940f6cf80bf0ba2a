"""The rules of Trap Attack: a new game's state, which actions exist, when they are refused,
the dice each needs, and what each does (the AI, the turns, the pawns and the scoring each have
a module of their own; this one hands every action to the right one).

Pure: the dice arrive in the action (``dice_for`` says which), time in ``Action.at``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from companion.games.base import Action, BadAction, Outcome, Rejected, check_arguments
from companion.games.trap_attack import ai, pawns, scoring, turns
from companion.games.trap_attack.board import Spot, load_board
from companion.games.trap_attack.options import DEFAULT_BOARD, check_options
from companion.games.trap_attack.state import AI, HUMANS, Options, Pawn, Played, State, name
from companion.games.trap_attack.step import Step, check_rolls, optional_pawn, pawn_arg
from companion.games.trap_attack.tables import rules as rule_table

Handler = Callable[[Step, Action, tuple[int, ...]], None]

# Actions of the race itself, refused once it is over.
RACE_ACTIONS = (
    *("ai_turn", "attack", "turn", "first_player", "card", "blocked", "take", "aim", "play"),
    *("damage", "heal", "paralyze"),
)
# Actions that start something new, refused while the AI's card waits.
FLOW_ACTIONS = ("ai_turn", "attack", "turn", "first_player")
# The arguments each action takes; anything else is a typo that must not pass unnoticed
# (``amout=3`` would otherwise quietly mean the default).
ARGS: dict[str, tuple[str, ...]] = {
    "card": ("id", "card", "target"),
    "aim": ("player",),
    "attack": ("kind", "amount", "card", "by"),
    "play": ("card", "by", "target"),
    "damage": ("player", "amount", "by"),
    "heal": ("player", "amount"),
    "paralyze": ("player",),
    "set_ai": ("position", "crystal", "life", "paralyzed"),
    "relic": ("player", "value", "combo"),
    "loot": ("player", "value"),
    "coins": ("player", "n"),
    "held": ("player", "relics", "loot"),
    "finish": ("player", "space", "crystal"),
    "winner": ("player",),
}


def refusal(state: State, action: Action) -> None:
    """Raise Rejected when the rules do not allow this action now."""
    what = action.name
    if what in RACE_ACTIONS and state.race_over:
        raise Rejected("the race is over: only scoring entries now")
    if what == "first_player" and state.first_turn_passed:
        raise Rejected("the first player is settled: the race's first turn has passed")
    if what != "first_player" and state.awaits_first_roll:
        raise Rejected(turns.FIRST_ROLL)
    if what in ("ai_turn", "attack") and not state.options.ai:
        raise Rejected("this game has no AI pawn (option ai=off)")
    if what in FLOW_ACTIONS and state.pending == "card":
        raise Rejected("the AI is casting: tap the card it drew, or pick it")
    if what in FLOW_ACTIONS and state.pending == "block" and state.threat is not None:
        raise Rejected(f"{name(state.threat.target)} must say blocked or taken first")
    if what == "turn" and state.turn == AI:
        raise Rejected(turns.AI_PLAYS)
    if what == "card" and state.pending != "card":
        raise Rejected("the AI is not casting a card now")
    if what in ("blocked", "take", "aim") and state.pending != "block":
        raise Rejected("no attack is waiting to be blocked or taken")


def understood(state: State, action: Action) -> None:
    """Raise BadAction for a malformed action, before asking whether the rules allow it now."""
    if "rolled" in action.args:
        raise BadAction("die faces go in a 'dice N ...' line before the action, not rolled=")
    check_arguments("trap-attack", action, {name: ARGS.get(name, ()) for name in HANDLERS})
    if action.name == "card":
        ai.card_effect(action)
    elif action.name == "attack":
        ai.attack_effect(action)
    elif action.name == "play":
        ai.card_effect(Action("play", {"id": action.args.get("card", "")}))
    for key in ("player", "by", "target"):
        if key in action.args and str(action.args[key]) != "none":
            pawn_arg(state, action, key)


def faces(state: State, action: Action) -> tuple[int, ...]:
    """The dice an action needs in this state (whether the box or the table rolls them).

    Every refusal comes first, so a table that rolls its own dice is never asked for a roll
    the rules then throw away.
    """
    understood(state, action)
    refusal(state, action)
    die = state.rules.action_faces
    if action.name == "ai_turn":
        return ai.move_faces(state)
    if action.name == "attack":
        by = pawn_arg(state, action, "by", ai=False, default=turns.default_user(state))
        turns.check_attack(state, by, AI)
        return (die,)
    if action.name == "play":
        return (die,) if turns.play_needs_die(state, action) else ()
    if action.name == "first_player":
        return (state.rules.pawn_die,) * len(turns.first_player_seats(state))
    return ()


# --- handlers that are too small for a module of their own -----------------------------------


def _attack(step: Step, action: Action, rolls: tuple[int, ...]) -> None:
    """An attack at the AI, tapped or picked in the menu: either way it counts against the
    turn's limit (rulings, Trap Attack 11)."""
    state = step.state
    kind, amount = ai.attack_effect(action)
    by = pawn_arg(state, action, "by", ai=False, default=turns.default_user(state))
    turns.check_attack(state, by, AI)
    step.state = replace(state, played=(*state.played, Played(by, "attack", AI)))
    ai.attack_ai(step, by, kind, amount, rolls[0])


def _damage(step: Step, action: Action, rolls: tuple[int, ...]) -> None:
    """Damage entered by hand. With ``by`` a player it is that player's attack on the pawn,
    one a turn as for a card (entered late, it counts in the turn it is entered);
    a player's attack on the AI is ``attack`` (the AI rolls to block). By the AI or by nobody
    it only fixes the books."""
    state = step.state
    who = pawn_arg(state, action, "player")
    amount = action.int_arg("amount", *state.rules.range("amount"))
    if "by" in action.args:
        by = optional_pawn(state, action, "by")
    else:
        by = AI if state.options.ai and who != AI else None
    if by is not None and by != AI:  # a player's hit is that player's attack (rulings 11)
        if by == who:
            raise BadAction(f"by={by}: {name(by)} cannot attack themselves")
        if who == AI:
            raise Rejected("an attack on the AI is 'Attack the AI': the AI rolls to block it")
        turns.check_attack_limit(state, by, who)
        step.state = replace(state, played=(*state.played, Played(by, "attack", who)))
    pawns.hurt(step, who, amount, by)


def _heal(step: Step, action: Action, rolls: tuple[int, ...]) -> None:
    who = pawn_arg(step.state, action, "player")
    pawns.heal(step, who, action.int_arg("amount", *step.state.rules.range("amount")))


def _paralyze(step: Step, action: Action, rolls: tuple[int, ...]) -> None:
    pawns.paralyze(step, pawn_arg(step.state, action, "player"))


def _only(fn: Callable[[Step], None]) -> Handler:
    return lambda step, action, rolls: fn(step)


def _with_action(fn: Callable[[Step, Action], None]) -> Handler:
    return lambda step, action, rolls: fn(step, action)


HANDLERS: dict[str, Handler] = {
    "ai_turn": ai.ai_turn,
    "card": _with_action(ai.cast),
    "blocked": _only(ai.blocked),
    "take": _only(ai.take),
    "aim": _with_action(ai.aim),
    "attack": _attack,
    "play": turns.play,
    "turn": _only(turns.next_turn),
    "first_player": lambda step, action, rolls: turns.first_player(step, rolls),
    "damage": _damage,
    "heal": _heal,
    "paralyze": _paralyze,
    "set_ai": _with_action(ai.set_ai),
    "relic": _with_action(scoring.relic),
    "loot": _with_action(scoring.loot),
    "coins": _with_action(scoring.coins),
    "held": _with_action(scoring.held),
    "finish": _with_action(scoring.finish),
    "winner": _with_action(scoring.winner),
    "scoring": _only(scoring.enter_scoring),
}


def initial(options: Mapping[str, Any]) -> Outcome:
    """A new game: every pawn at full life, the AI on the board's start."""
    parsed = check_options({k: str(v) for k, v in options.items()})
    opts = Options(
        players=parsed["players"],
        ai_route=parsed["ai_route"],
        ai_move=parsed["ai_move"],
        ai=parsed["ai"] == "on",
        board="" if parsed["board"] == DEFAULT_BOARD else parsed["board"],
    )
    board = load_board(opts.board)
    table = rule_table()
    pawns_ = (*(Pawn(h, table.life) for h in HUMANS[: opts.players]), Pawn(AI, table.life))
    step = Step(State(opts, board, table, pawns_, Spot(board.start)))
    step.say("Who starts?", "Each rolls a pawn die")  # the race waits for the roll
    return step.outcome()


def dice_for(state: State, action: Action) -> tuple[int, ...]:
    """The dice, after any refusal: nobody is asked to roll for an action the rules refuse."""
    return faces(state, action)


def apply(state: State, action: Action) -> Outcome:
    rolls = action.rolls
    check_rolls(action.name, rolls, faces(state, action))
    step = Step(state)
    if (state.card_to, state.alert, state.heading) != (None, False, None):
        step.state = replace(state, card_to=None, alert=False, heading=None)  # one-shot hints
    HANDLERS[action.name](step, action, rolls)
    new = step.state
    if new.turn_no != state.turn_no and new.turn != AI and not new.race_over and not new.pending:
        pawns.remind_turn_start(step, new.turn)  # a player's turn began with this action
    return step.outcome()


def restore(state: State) -> State:
    """Nothing waits on a clock; the question the box was asking after the race is asked again
    by the app (``next_question``)."""
    return state
