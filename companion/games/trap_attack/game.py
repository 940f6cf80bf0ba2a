"""Trap Attack as a pure game: the solo AI, the pawns' books and the final scoring."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.games.base import Action, BadAction, CardKind, DieLabel, Input, Option, Outcome
from companion.games.trap_attack import actions, ai, control, forms, public, turns, view
from companion.games.trap_attack.args import check_rolls
from companion.games.trap_attack.board import ROUTES, Spot, load_board
from companion.games.trap_attack.state import AI, HUMANS, Options, Pawn, State, Ui, short
from companion.games.trap_attack.step import Step
from companion.games.trap_attack.tables import catalog, rules
from companion.ui.screen import Lights, Screen

DEFAULT_BOARD = "default"  # the profile shipped in companion/games/data/
OPTIONS = (
    Option("players", "Players", "1", choices=("1", "2", "3")),
    Option("ai_route", "AI route", "long", choices=ROUTES),
    Option("ai_move", "AI move", "d4", choices=("d4", "d4-only", "d3")),
    Option("ai", "AI pawn", "auto", choices=("auto", "on", "off")),
    Option("board", "Board", DEFAULT_BOARD),  # or the path of the owner's own profile
)


class TrapAttack:
    name = "trap-attack"
    title = "Trap Attack"
    options = OPTIONS

    def check_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        known = {o.name: o for o in OPTIONS}
        unknown = sorted(set(options) - set(known))
        if "dice" in unknown:
            raise BadAction(
                "trap-attack has no option 'dice': the box's dice setting (config dice.source,"
                " or 'Dice: table' in the game menu) applies to every game"
            )
        if unknown:
            raise BadAction(
                f"trap-attack has no option {unknown[0]!r} (options: {', '.join(known)})"
            )
        out: dict[str, Any] = {}
        for option in OPTIONS:
            value = str(options.get(option.name, option.default))
            if option.choices and value not in option.choices:
                raise BadAction(
                    f"{option.name}={value!r} is not one of {', '.join(option.choices)}"
                )
            out[option.name] = value
        out["players"] = int(out["players"])
        if out["ai"] == "auto":
            out["ai"] = "on" if out["players"] == 1 else "off"
        if out["board"] in ("", DEFAULT_BOARD):
            out["board"] = DEFAULT_BOARD
        else:
            load_board(out["board"])  # a broken file is named now, not mid-game
        return out

    def setup_dice(self, options: Mapping[str, Any]) -> tuple[int, ...]:
        return ()

    def initial(self, options: Mapping[str, Any], rolls: tuple[int, ...]) -> Outcome:
        parsed = self.check_options({k: str(v) for k, v in options.items()})
        opts = Options(
            players=parsed["players"],
            ai_route=parsed["ai_route"],
            ai_move=parsed["ai_move"],
            ai=parsed["ai"] == "on",
            board="" if parsed["board"] == DEFAULT_BOARD else parsed["board"],
        )
        board = load_board(opts.board)
        table = rules()
        pawns = (*(Pawn(h, table.life) for h in HUMANS[: opts.players]), Pawn(AI, table.life))
        state = State(opts, board, table, pawns, Spot(board.start))
        return Outcome(state)

    def dice_for(self, state: State, action: Action) -> tuple[int, ...]:
        """The dice, after any refusal: nobody is asked to roll for an action the rules refuse."""
        return actions.faces(state, action)

    def dice_labels(self, state: State, action: Action) -> tuple[DieLabel, ...]:
        """Names for the dice a table rolls itself: the AI's action die reads as actions."""
        rules = state.rules
        readings = {f: rules.reading(f).capitalize() for f in range(1, rules.action_faces + 1)}
        action_die = DieLabel("AI action die", readings)
        if action.name == "ai_turn":
            if len(ai.move_faces(state)) == 1:
                return (action_die,)
            return (DieLabel("AI move die"), action_die)
        if action.name in ("attack", "play"):
            return (DieLabel("AI block die", readings),)
        if action.name == "first_player":
            return tuple(DieLabel(f"{short(s)} die") for s in turns.first_player_seats(state))
        return ()

    def apply(self, state: State, action: Action) -> Outcome:
        rolls = action.rolls
        check_rolls(action.name, rolls, actions.faces(state, action))
        step = Step(state)
        fresh = (Ui(), None, False)  # a game action closes menus and one-shot hints
        if (
            action.name not in actions.UI_ACTIONS
            and (state.ui, state.card_to, state.alert) != fresh
        ):
            step.state = replace(state, ui=Ui(), card_to=None, alert=False)
        actions.HANDLERS[action.name](step, action, rolls)
        if action.name not in actions.UI_ACTIONS:
            step.state = forms.open_next_question(step.state)
        return step.outcome()

    def navigation(self, action: Action) -> bool:
        """Menu moves are journaled like any action, but undo takes back game actions only."""
        return action.name in actions.UI_ACTIONS

    def public(self, state: State) -> dict[str, Any]:
        return public.public(state)

    def view(self, state: State) -> tuple[Screen, Lights]:
        return view.view(state)

    def control(self, state: State, event: Input) -> Action | None:
        return control.control(state, event)

    def restore(self, state: State) -> State:
        """After a power cut or an undo a half-answered menu question is dropped; after the
        race the box asks its next question afresh."""
        return forms.open_next_question(replace(state, ui=Ui()))

    def catalog(self) -> tuple[CardKind, ...]:
        cards = catalog()
        kinds = [CardKind(e.id, e.name, e.group) for e in cards.effects]
        table = rules()
        kinds += [
            CardKind(s.id, s.name, s.id, s.fields, tuple(table.range(r) for r in s.ranges))
            for s in cards.scoring
        ]
        return tuple(kinds)


GAME = TrapAttack()
