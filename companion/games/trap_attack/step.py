"""One rule step being worked out: the new state plus what to log, sound and show.

A local builder inside one ``apply`` call, so the rule functions stay short; ``outcome()``
freezes it into the immutable Outcome.
"""

from __future__ import annotations

from dataclasses import replace

from companion.games.base import Effect, Log, Outcome, Sound
from companion.games.trap_attack.state import State

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
