"""Hostage Trap!: the box keeps the turns (who plays, who sits out for a trap, what a turn still
allows), an optional turn timer, and checks a win the winner proves by tapping hostage cards.
``GAME`` is what companion.games.registry loads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games import options as opts
from companion.games.base import Action, BadAction, CardKind, Option
from companion.games.hostage_trap import control as control_map
from companion.games.hostage_trap import public as contract
from companion.games.hostage_trap import rules, view
from companion.games.hostage_trap.control import HOSTAGE_PREFIX, TRAP_KINDS
from companion.games.hostage_trap.data import tables
from companion.games.hostage_trap.state import HostageState
from companion.games.modular import ModularGame

OPTIONS: tuple[Option, ...] = (
    Option("players", "Players", "4", choices=opts.numbers(3, 7)),
    Option("hand", "Hand size", "5", choices=opts.numbers(5, 7)),
    Option("hostages", "Hostages to win", "3", choices=opts.numbers(3, 7)),
    # aside: the hostages of kingdoms nobody plays are set aside; shuffled: into the draw pile.
    Option("spares", "Spares", "aside", choices=("aside", "shuffled")),
    Option(
        "turn_seconds",
        "Turn timer s",
        "0",
        presets=tuple(map(str, tables().turn_seconds_presets)),
        bounds=(0, 600),
    ),
)


class HostageTrapGame(ModularGame):
    name = "hostage-trap"
    title = "Hostage Trap!"
    uses_dice = False  # no die in the box: the menu offers no dice source
    options = OPTIONS
    rules = rules
    contract = contract
    screens = view
    controls = control_map

    def ended(self, state: HostageState) -> bool:
        """A seat has proven its win."""
        return state.over

    def check_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        """With the spare hostages set aside only the players' own are in play: no more can be
        needed to win than there are players."""
        checked = opts.parse(self.name, self.options, options)
        players, hostages = checked["players"], checked["hostages"]
        if checked["spares"] == "aside" and hostages > players:
            raise BadAction(
                f"hostages={hostages} is more than players={players} with spares=aside: "
                "win with fewer, or shuffle the spares in"
            )
        return checked

    def pause_action(self, state: HostageState) -> Action | None:
        """The box's menu opens: a running turn timer stops while it is open."""
        running = state.timer is not None and state.timer.running and not state.over
        return Action("pause", {"by": "menu"}) if running else None

    def resume_action(self, state: HostageState) -> Action | None:
        """The box's menu is left to play on: only a timer the menu itself stopped runs again
        (one the player paused, or a power cut, waits for green)."""
        return Action("resume") if state.menu_paused and not state.over else None

    def secret_card(self, card: Mapping[str, Any]) -> str | None:
        """Hostages are secret: a tapped one is only ever called this."""
        return "A hostage card" if str(card.get("card", "")).startswith(HOSTAGE_PREFIX) else None

    def restore_at(self, state: HostageState, at: float) -> HostageState:
        """Its turn timer ticks without journaling: paused at the moment play stopped."""
        return rules.restore_at(state, at)

    def catalog(self) -> tuple[CardKind, ...]:
        longest = ((0, tables().longest_trap),)
        hostages = tuple(
            CardKind(f"{HOSTAGE_PREFIX}{c}", f"{c.capitalize()} hostage", "hostage")
            for c in tables().colours
        )
        names = {"trap": "Trap", "trap-on": "Trap, turn goes on"}
        traps = tuple(CardKind(k, names[k], "trap", ("turns",), longest) for k in TRAP_KINDS)
        return (
            *hostages,
            CardKind("attack", "Attack", "attack"),
            CardKind("defence", "Defence", "defence"),
            *traps,
        )


GAME = HostageTrapGame()
