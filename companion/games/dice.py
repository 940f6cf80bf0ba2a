"""The dice tool: d4, d6 or 2d6, rolled by the box or read off real dice. The simplest game,
and the reference shape for the others."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion.games.base import (
    Action,
    BadAction,
    CardKind,
    Game,
    Input,
    Log,
    Option,
    Outcome,
    Press,
    Rejected,
    Sound,
    check_arguments,
)
from companion.ui.screen import GREEN, PURPLE, WHITE, Lights, Screen

DICE: dict[str, tuple[int, ...]] = {"d4": (4,), "d6": (6,), "2d6": (6, 6)}
ORDER = tuple(DICE)
# Faces are counted by the kind of die that shows them: a d4's 3 is not a d6's 3.
KIND = {"d4": "d4", "d6": "d6", "2d6": "d6"}
KINDS = ("d4", "d6")
ARGUMENTS = {"roll": ("die",), "reroll": (), "choose": ("die",), "stats": ()}
LINE = 21  # characters on one screen line
ROLL_FOOTER = "G roll R again ^v die"
FRESH_FOOTER = "G roll  ^v die"


HISTORY = 100  # rolls kept for the history page and the public state: a window, so a roll
# costs the same at the 10th roll and the 100,000th (the counts and the number are kept whole)


@dataclass(frozen=True)
class DiceState:
    die: str
    history: tuple[tuple[int, ...], ...] = ()  # the last HISTORY rolls, newest last
    last_die: str | None = None  # the die of the last roll, for re-rolls
    stats: bool = False  # ok shows the history and the per-face counts instead of the roll
    fresh: bool = True  # no roll since the die was chosen: there is no face of it to show
    rolls: int = 0  # rolls over this game
    tally: tuple[tuple[str, int, int], ...] = ()  # (kind of die, face, times) over this game
    dice: tuple[str, ...] = ()  # the die of each roll in the window (history holds only faces)

    @property
    def last(self) -> tuple[int, ...]:
        return self.history[-1] if self.history else ()

    def counts(self, kind: str | None = None) -> dict[int, int]:
        """How often each face came up over this game: of every roll, or only of the rolls of
        one kind of die (``d4``, or ``d6`` for d6 and 2d6 alike: each die's face counts)."""
        out: dict[int, int] = {}
        for of, face, times in self.tally:
            if kind is None or of == kind:
                out[face] = out.get(face, 0) + times
        return dict(sorted(out.items()))

    def rolled(self, die: str, faces: tuple[int, ...]) -> DiceState:
        """This state with one roll more: the window moves on, the counts go up."""
        counts = {(of, face): times for of, face, times in self.tally}
        for face in faces:
            counts[KIND[die], face] = counts.get((KIND[die], face), 0) + 1
        return replace(
            self,
            history=(*self.history[-(HISTORY - 1) :], faces),
            dice=(*self.dice[-(HISTORY - 1) :], die),
            rolls=self.rolls + 1,
            tally=tuple((of, face, times) for (of, face), times in sorted(counts.items())),
        )

    def kinds(self) -> tuple[str, ...]:
        """The kinds of die this game has rolled, in KINDS' order."""
        rolled = {of for of, _, _ in self.tally}
        return tuple(kind for kind in KINDS if kind in rolled)

    @property
    def doubles(self) -> bool:
        return self.last_die == "2d6" and len(self.last) == 2 and self.last[0] == self.last[1]


class DiceGame(Game):
    name = "dice"
    title = "Dice"
    options = (Option("die", "Die", "d6", choices=ORDER),)

    def check_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        unknown = set(options) - {"die"}
        if unknown:
            raise BadAction(f"dice has no option {sorted(unknown)[0]!r} (only die)")
        die = str(options.get("die", "d6"))
        if die not in DICE:
            raise BadAction(f"die={die!r} is not one of {', '.join(ORDER)}")
        return {"die": die}

    def setup_dice(self, options: Mapping[str, Any]) -> tuple[int, ...]:
        return ()

    def initial(self, options: Mapping[str, Any], rolls: tuple[int, ...]) -> Outcome:
        return Outcome(DiceState(die=options["die"]))

    def _die_of(self, state: DiceState, action: Action) -> str:
        check_arguments("dice", action, ARGUMENTS)
        if action.name == "roll":
            return action.choice_arg("die", ORDER, state.die)
        if action.name == "reroll":
            if state.last_die is None:
                raise Rejected("nothing to roll again yet")
            return state.last_die
        if action.name == "stats":
            return state.die
        return action.choice_arg("die", ORDER)  # choose: check_arguments allowed no other

    def dice_for(self, state: DiceState, action: Action) -> tuple[int, ...]:
        die = self._die_of(state, action)
        return () if action.name in ("choose", "stats") else DICE[die]

    def navigation(self, action: Action) -> bool:
        """Flipping to the history page changes nothing: undo never stops on it."""
        return action.name == "stats"

    def apply(self, state: DiceState, action: Action) -> Outcome:
        die = self._die_of(state, action)
        if action.name == "stats":
            return Outcome(replace(state, stats=not state.stats))
        if action.name == "choose":
            fresh = state.fresh or die != state.die
            return Outcome(replace(state, die=die, stats=False, fresh=fresh))
        faces = DICE[die]
        if len(action.rolls) != len(faces) or any(
            not 1 <= r <= f for r, f in zip(action.rolls, faces, strict=False)
        ):
            raise BadAction(f"{die} needs {len(faces)} roll(s) in 1..{faces[0]}")
        new = replace(state.rolled(die, action.rolls), last_die=die, stats=False, fresh=False)
        total = sum(action.rolls)
        text = f"{die}: " + " + ".join(map(str, action.rolls))
        if len(action.rolls) > 1:
            text += f" = {total}"
        if new.doubles:
            text += " (double)"
        return Outcome(new, (Sound("roll"), Log(text)))

    def public(self, state: DiceState) -> dict[str, Any]:
        return {
            "die": state.die,
            "last": list(state.last),
            "history": [list(r) for r in state.history],
            "counts": {str(face): n for face, n in state.counts().items()},
            "doubles": state.doubles,
            "stats": state.stats,
        }

    def view(self, state: DiceState) -> tuple[Screen, Lights]:
        title = f"Dice  {state.die}"
        if state.stats:
            return stats_screen(state), Lights(WHITE)
        if state.fresh:
            # A newly chosen die has not been rolled: the old die's faces are not its own.
            lines = ("Press green", f"to roll {state.die}")
            return Screen(title, lines, footer=FRESH_FOOTER), Lights(GREEN)
        last = state.last
        title = f"Dice  {state.last_die}"  # the die that rolled (``roll die=`` may differ)
        footer = ROLL_FOOTER
        lines: tuple[str, ...]
        if len(last) == 2:
            big = f"{last[0]}+{last[1]}"
            lines = (f"= {sum(last)}  DOUBLE!" if state.doubles else f"= {sum(last)}  ok stats",)
        else:
            big = str(last[0])
            lines = (f"{ordinal(state.rolls)} roll  ok stats",)
        if state.doubles:
            return Screen(title, lines, big=big, footer=footer), Lights(PURPLE, "blink")
        return Screen(title, lines, big=big, footer=footer), Lights(WHITE)

    def control(self, state: DiceState, event: Input) -> Action | None:
        if not isinstance(event, Press):
            return None
        if event.button == "green":
            return Action("roll")
        if event.button == "red":
            return Action("reroll")
        if event.button == "ok":
            return Action("stats")
        if event.button in ("up", "down"):
            step = 1 if event.button == "down" else -1
            die = ORDER[(ORDER.index(state.die) + step) % len(ORDER)]
            return Action("choose", {"die": die})
        return None

    def restore(self, state: DiceState) -> DiceState:
        """An undo or a power cut comes back to the last roll that stands (rulings: dice tool),
        never to "press green" for a die chosen since and not rolled."""
        return replace(state, fresh=False) if state.history else state

    def catalog(self) -> tuple[CardKind, ...]:
        return ()


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``8th``: a count that cannot be read as a die's face."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


CUT = "…"  # a history cut short says so


def stats_screen(state: DiceState) -> Screen:
    """The rolls of this game, newest on the right (starting with "…" when older ones do not
    fit or are no longer kept), and how often each face came up: of the kind of die on screen,
    named when the game has rolled both kinds (a d4's 3 and a d6's 3 are counted apart)."""
    n = state.rolls
    title = f"Dice  {n} roll{'' if n == 1 else 's'}"
    if not state.history:
        return Screen(title, ("No rolls yet",), footer="ok back  G roll")
    words: list[str] = []
    for roll in reversed(state.history):
        word = "+".join(map(str, roll))
        if len(" ".join([word, *words])) > LINE:
            break
        words.insert(0, word)
    if len(words) < n:
        while len(" ".join([CUT, *words])) > LINE:
            words.pop(0)
        words.insert(0, CUT)
    die = state.die if state.fresh or state.last_die is None else state.last_die
    rolled = state.kinds()
    mixed = len(rolled) > 1
    kind = KIND[die] if mixed or not rolled else rolled[0]
    counts = state.counts(kind if mixed else None)
    top = max(DICE[kind][0], *counts) if counts else DICE[kind][0]
    cells = [f"{face}:{counts.get(face, 0)}" for face in range(1, top + 1)]
    if mixed:
        cells[0] = f"{kind}: {cells[0]}"
    half = (len(cells) + 1) // 2
    rows = (
        [" ".join(cells)]
        if len(" ".join(cells)) <= LINE
        else [" ".join(cells[:half]), " ".join(cells[half:])]
    )
    return Screen(title, (" ".join(words), *rows), footer="ok back  G roll")


GAME = DiceGame()
