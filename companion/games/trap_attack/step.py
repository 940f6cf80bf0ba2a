"""One rule step being worked out: the action's arguments read against the game's setup (who,
how much, the dice rolled), then the new state plus what to log, sound and show.

``Step`` is a local builder inside one ``apply`` call, so the rule functions stay short;
``outcome()`` freezes it into the immutable Outcome.
"""

from __future__ import annotations

from dataclasses import replace

from companion.games.base import Action, BadAction, Effect, Log, Outcome, Sound
from companion.games.trap_attack.state import AI, State

SCREEN_LINES = 3
LINE = 21  # characters that fit on one screen line


class Step:
    def __init__(self, state: State) -> None:
        self.state = state
        self.effects: list[Effect] = []
        self.lines: list[str] = []
        self.alert = False

    def log(self, text: str) -> None:
        self.effects.append(Log(text))

    def say(self, *lines: str) -> None:
        """Screen lines of the instruction (each at most 21 characters)."""
        self.lines.extend(lines)

    def sound(self, cue: str) -> None:
        self.effects.append(Sound(cue))

    def outcome(self) -> Outcome:
        state = self.state
        if self.lines:
            state = replace(state, message=tuple(self.lines[-SCREEN_LINES:]), alert=self.alert)
        return Outcome(state, tuple(self.effects))


# --- reading an action's arguments ------------------------------------------------------------

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
