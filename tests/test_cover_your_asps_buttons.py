"""Every Cover Your Asps screen says what green and red do now: a walk through whole games with
the buttons (as a table plays), comparing each screen's footer with what green and red actually
do at that moment, and checking that what green offers is never refused."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.base import Action, Ask, Log, Press, Rejected, Tap
from companion.games.cover_your_asps import GAME
from companion.games.cover_your_asps.state import SoloState

REPORTS = {"entered", "built", "vault", "escaped"}
ROLLS = {"plank": "plank", "draw": "plank", "enter": "enter", "move": "move"}
ACTION_CARD = {"game": "cover-your-asps", "card": "action", "name": "Sandstorm"}
CAUSES = {
    "entered": {"enter"},
    "built": {"plank", "card"},
    "vault": {"move", "card"},
    "escaped": {"move", "card"},
}


def _buttons(footer: str) -> dict[str, str]:
    """The footer's words per button: {"G": "plank", "R": "end turn", "ok": "menu", ...}."""
    out: dict[str, str] = {}
    key = ""
    for word in footer.split():
        if word in ("G", "R", "ok", "^v"):
            key = word
            out[key] = ""
        elif key:
            out[key] = f"{out[key]} {word}".strip()
    return out


def _accepted(state: Any, action: Action, dice: tuple[int, ...]) -> Any:
    faces = GAME.dice_for(state, action)
    return GAME.apply(state, Action(action.name, action.args, dice[: len(faces)])).state


class Walk:
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = GAME.check_options({k: str(v) for k, v in options.items()})
        self.state = GAME.initial(self.options, ()).state
        self.turn_actions: list[str] = []  # the accepted actions since the last "next"
        self.screens = 0
        self.reports: list[str] = []

    def check_footer(self, dice: tuple[int, ...]) -> None:
        """The footer names exactly what green and red do now, and what green offers holds."""
        screen, _ = GAME.view(self.state)
        self.screens += 1
        said = _buttons(screen.footer)
        green = GAME.control(self.state, Press("green"))
        red = GAME.control(self.state, Press("red"))
        where = f"{screen.text_lines()} green={green} red={red}"
        if isinstance(self.state, SoloState):
            self._check_solo(said, green, red, where)
            return
        word = said.get("G")
        if word is None:
            assert green is None, where
        elif word in ROLLS and not self.state.over:
            assert green == Action(ROLLS[word]), where
            _accepted(self.state, green, dice)  # never a roll the rules refuse
            if word == "draw":
                assert self.options["planking"] == "draw"
        elif word == "entered":
            assert green == Action("entered"), where
            _accepted(self.state, green, dice)
        elif word == "report":
            assert isinstance(green, Ask), where
            first = green.forms[0]
            assert first.action in REPORTS and first.refused is None, where
            _accepted(self.state, Action(first.action), dice)
        elif word == "enter":  # the count: the next entry it needs
            assert self.state.over and isinstance(green, Ask) and len(green.forms) == 1, where
        else:
            assert word == "edit", where
            assert isinstance(green, Ask) and green.title == "The count", where
        if said.get("R") == "end turn":
            assert red == Action("next"), where
            _accepted(self.state, red, dice)
        else:
            assert "R" not in said and red is None, where

    def _check_solo(self, said: dict[str, str], green: Any, red: Any, where: str) -> None:
        if self.state.over:
            assert "G" not in said and "R" not in said, where
            assert green is None and red is None, where
            return
        assert said.get("G") == "roll" and green == Action("plank"), where
        assert said.get("R") in ("end", "end game"), where
        assert isinstance(red, Ask) and [f.action for f in red.forms] == ["won", "lost"], where
        ok = GAME.control(self.state, Press("ok"))
        if "ok" in said:
            assert said["ok"] == "laid" and ok == Action("placed"), where
            GAME.apply(self.state, ok)  # not refused

    def apply(self, action: Action, dice: tuple[int, ...]) -> bool:
        try:
            faces = GAME.dice_for(self.state, action)
            rolled = Action(action.name, action.args, dice[: len(faces)])
            outcome = GAME.apply(self.state, rolled)
        except Rejected:
            return False
        turn = getattr(self.state, "turn", None)
        self.state = outcome.state
        logs = [e.text for e in outcome.effects if isinstance(e, Log)]
        self._after(action.name, turn, logs)
        return True

    def _after(self, name: str, turn: int | None, logs: list[str]) -> None:
        if name in CAUSES:  # rulings 1: a report follows its action in the same turn
            assert CAUSES[name] & set(self.turn_actions), (name, self.turn_actions)
            self.reports.append(name)
        if name == "escaped":  # rulings 9: into the antechamber of the seat on the right
            assert turn is not None
            right = self.options["players"] if turn == 1 else turn - 1
            assert f"Seat {turn} puts a pillar in Seat {right}'s antechamber" in logs, logs
        self.turn_actions = [] if name == "next" else [*self.turn_actions, name]

    def step(self, move: str, dice: tuple[int, ...], pick: int) -> None:
        if move == "card":
            reply = GAME.control(self.state, Tap("0A0B", ACTION_CARD))
        elif move == "ok":
            reply = GAME.control(self.state, Press("ok"))
        else:
            reply = GAME.control(self.state, Press(move))
        if isinstance(reply, Action):
            self.apply(reply, dice)
        elif isinstance(reply, Ask):
            forms = [f for f in reply.forms if f.refused is None]
            if move == "ok" and forms:
                form = forms[pick % len(forms)]
            elif forms:
                form = forms[0]
            else:
                return
            args = dict(form.args)
            for f in form.fields:
                args[f.key] = f.choices[(pick + f.start) % len(f.choices)]
            self.apply(Action(form.action, {k: str(v) for k, v in args.items()}), dice)


moves = st.lists(
    st.tuples(
        st.sampled_from(["green"] * 6 + ["red"] * 2 + ["ok", "card"]),
        st.tuples(st.integers(1, 6), st.integers(1, 6)),
        st.integers(0, 40),
    ),
    min_size=40,  # long enough to enter, reach the vault, escape and count, not only build
    max_size=300,
)


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 4),
    st.sampled_from(["dice", "draw"]),
    st.sampled_from(["planks", "youngest"]),
    moves,
)
def test_every_footer_says_what_green_and_red_do_now(players, planking, tiebreak, steps):
    walk = Walk({"players": players, "planking": planking, "tiebreak": tiebreak})
    for move, dice, pick in steps:
        walk.check_footer(dice)
        walk.step(move, dice, pick)
    walk.check_footer((1, 1))


def test_the_walk_reaches_every_report_and_the_end():
    """The walk above is no idle check: pressing green and red alone plays a whole game."""
    walk = Walk({"players": 2})
    dice = (2, 5)
    for _ in range(400):
        walk.check_footer(dice)
        screen, _ = GAME.view(walk.state)
        move = "green" if _buttons(screen.footer).get("G") not in (None, "edit") else "red"
        if walk.state.over and GAME.control(walk.state, Press("green")) is None:
            break
        walk.step(move, dice, 0)
        if walk.state.over and _buttons(GAME.view(walk.state)[0].footer).get("G") == "edit":
            break
    assert set(walk.reports) == REPORTS
    assert walk.state.over
    assert _buttons(GAME.view(walk.state)[0].footer) == {"G": "edit", "^v": "standings"}
