"""Reading action arguments against the game's setup: who, how much, and the dice rolled."""

from __future__ import annotations

from companion.games.base import Action, BadAction
from companion.games.trap_attack.state import AI, State

YES_NO = ("yes", "no")


def pawn_arg(
    state: State, action: Action, key: str, *, ai: bool = True, default: str | None = None
) -> str:
    """A pawn id (1, 2, 3 or ai) that exists in this game."""
    if key not in action.args and default is None:
        raise BadAction(f"action '{action.name}' needs {key}=1..{state.options.players} or ai")
    value = str(action.args.get(key, default))
    allowed = [*state.humans, AI] if (ai and state.options.ai) else list(state.humans)
    if value not in allowed:
        raise BadAction(f"{key}={value!r}: this game's choices are {', '.join(allowed)}")
    return value


def optional_pawn(state: State, action: Action, key: str) -> str | None:
    """Like pawn_arg, but absent gives None and ``none`` names nobody."""
    if key not in action.args:
        return None
    if str(action.args[key]) == "none":
        return None
    return pawn_arg(state, action, key)


def yes_no(action: Action, key: str, default: str | None = None) -> bool:
    return action.choice_arg(key, YES_NO, default) == "yes"


def check_rolls(what: str, rolls: tuple[int, ...], faces: tuple[int, ...]) -> None:
    """The app rolled (or read off the table) exactly the dice ``dice_for`` asked for."""
    if len(rolls) != len(faces) or any(not 1 <= r <= f for r, f in zip(rolls, faces, strict=False)):
        wanted = " ".join(f"d{f}" for f in faces) or "no dice"
        raise BadAction(f"'{what}' needs {len(faces)} roll(s): {wanted}; got {list(rolls)}")
