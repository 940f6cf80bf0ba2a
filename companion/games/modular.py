"""The game protocol for a game kept as modules (rules, contract, screens, control map): the
facade only forwards, so each game writes down just what differs from the common case."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from companion.games.base import Action, CardKind, Game, Input, Option, Outcome, Reply
from companion.games.options import parse
from companion.ui.screen import Lights, Screen


class ModularGame(Game):
    """``rules`` has initial(options), apply, check_name and restore; ``contract`` has public;
    ``screens`` has view; ``controls`` has control. Override a method where a game differs
    (setup dice, a table read at start, a state without timers)."""

    name: str
    title: str
    options: tuple[Option, ...] = ()
    rules: ModuleType
    contract: ModuleType
    screens: ModuleType
    controls: ModuleType

    def check_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        return parse(self.name, self.options, options)

    def setup_dice(self, options: Mapping[str, Any]) -> tuple[int, ...]:
        return ()

    def initial(self, options: Mapping[str, Any], rolls: tuple[int, ...]) -> Outcome:
        return self.rules.initial(options)

    def dice_for(self, state: Any, action: Action) -> tuple[int, ...]:
        self.rules.check_name(action)
        return ()

    def apply(self, state: Any, action: Action) -> Outcome:
        return self.rules.apply(state, action)

    def public(self, state: Any) -> dict[str, Any]:
        return self.contract.public(state)

    def view(self, state: Any) -> tuple[Screen, Lights]:
        return self.screens.view(state)

    def control(self, state: Any, event: Input) -> Reply:
        return self.controls.control(state, event)

    def restore(self, state: Any) -> Any:
        return self.rules.restore(state)

    def catalog(self) -> tuple[CardKind, ...]:
        return ()
