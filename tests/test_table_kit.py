"""The parts the table games share: seats, option parsing, and game menus that are never
journaled (a form walked with the buttons ends in one action, as ``do`` would give it)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games import registry as games
from companion.games import seats
from companion.games.base import (
    Action,
    Ask,
    BadAction,
    Field,
    Form,
    Game,
    Option,
    Outcome,
    Pages,
    Press,
    Rejected,
    check_arguments,
)
from companion.games.options import parse
from companion.replay import run_script
from companion.ui import menus
from companion.ui.screen import Lights, Screen

# --- seats --------------------------------------------------------------------------------------


def test_play_goes_clockwise_and_the_left_is_the_next_seat():
    ring = seats.Ring(4)
    assert [ring.left(s) for s in ring.seats] == [2, 3, 4, 1]
    assert [ring.right(s) for s in ring.seats] == [4, 1, 2, 3]
    assert ring.clockwise_from(3) == (3, 4, 1, 2)


def test_the_next_seat_among_skips_seats_that_are_out():
    ring = seats.Ring(6)
    assert ring.next_among(2, {5, 6}) == 5
    assert ring.next_among(6, {2, 6}) == 2
    assert ring.next_among(4, {4}) == 4  # only itself left
    assert ring.next_among(4, set()) is None


@given(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_left_and_right_undo_each_other(case):
    players, seat = case
    ring = seats.Ring(players)
    assert ring.right(ring.left(seat)) == seat
    assert sorted(ring.clockwise_from(seat)) == list(ring.seats)


def test_every_seat_up_to_eight_has_its_own_colour():
    colours = [seats.lights(s).color for s in range(1, 9)]
    assert seats.max_seats() == 8
    assert len(set(colours)) == 8


@pytest.mark.parametrize("raw", ["0", "5", "x", "٣", "-1", "", "2.0"])
def test_a_seat_argument_must_be_a_seat_at_the_table(raw):
    with pytest.raises(BadAction, match="player="):
        seats.seat_arg(Action("next", {"player": raw}), "player", 4)


def test_seat_maps_use_string_keys_in_seat_order():
    assert list(seats.by_seat({3: "c", 1: "a", 2: "b"})) == ["1", "2", "3"]


# --- options ------------------------------------------------------------------------------------

SPECS = (
    Option("players", "Players", "2", choices=("1", "2", "3", "4")),
    Option("mode", "Mode", "dice", choices=("dice", "draw")),
    Option("seconds", "Turn time", "0", presets=("0", "30", "60"), bounds=(0, 600)),
)


def test_options_fill_defaults_and_convert_numbers():
    assert parse("g", SPECS, {}) == {"players": 2, "mode": "dice", "seconds": 0}
    assert parse("g", SPECS, {"players": "4", "seconds": "90"})["seconds"] == 90


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ({"player": "3"}, "g has no option 'player'"),
        ({"players": "5"}, "players='5' is not one of"),
        ({"mode": "coins"}, "mode='coins'"),
        ({"seconds": "601"}, "seconds=601 is outside 0..600"),
        ({"seconds": "²"}, "seconds='²' is not a whole number"),
    ],
)
def test_a_bad_option_is_named(raw, named):
    with pytest.raises(BadAction, match=named.replace("(", r"\(").replace(".", r"\.")):
        parse("g", SPECS, raw)


# --- game menus ---------------------------------------------------------------------------------

SEAT = Field("player", "Which seat?", ("1", "2", "3"), ("Seat 1", "Seat 2", "Seat 3"))
COLOURS = Field("colors", "Which?", ("red", "blue", "green"), many=True)


def _menu(*forms: Form) -> tuple[menus.FormMenu, menus.Command]:
    return menus.FormMenu(Ask("Seat 1", forms)).start()


def test_a_form_asks_its_questions_then_builds_the_action():
    menu, first = _menu(
        Form("Score", "score", (SEAT, Field("points", "Points", ("0", "1", "2"))), {"x": 1}),
        Form("Pass", "pass"),
    )
    assert first == menus.STAY
    assert menu.screen().lines[0] == "> Score"
    menu, command = menu.press("ok", False)
    assert command == menus.STAY
    assert menu.screen().title == "Which seat?"
    menu, _ = menu.press("down", False)
    menu, _ = menu.press("ok", False)
    menu, _ = menu.press("up", False)  # wraps to the last choice
    menu, done = menu.press("green", False)
    assert done.kind == "form_done"
    assert done.data == {"name": "score", "args": {"x": 1, "player": "2", "points": "2"}}


def test_back_steps_one_question_back_and_leaves_from_the_list():
    menu, _ = _menu(Form("Score", "score", (SEAT, SEAT)), Form("Pass", "pass"))
    menu, _ = menu.press("ok", False)
    menu, _ = menu.press("ok", False)
    assert menu.index == 1
    menu, command = menu.press("back", False)
    assert command == menus.STAY and menu.index == 0
    menu, command = menu.press("back", False)
    assert command == menus.STAY and menu.form is None
    assert menu.press("back", False)[1] == menus.CLOSE


def test_a_single_entry_asks_at_once_and_one_without_questions_acts_at_once():
    menu, first = _menu(Form("Score", "score", (SEAT,)))
    assert first == menus.STAY and menu.screen().title == "Which seat?"
    _, acted = _menu(Form("Pass", "pass"))
    assert acted.data == {"name": "pass", "args": {}}


def test_several_choices_are_marked_with_ok_and_taken_with_green():
    menu, _ = _menu(Form("Claim", "claim", (COLOURS,)))
    menu, _ = menu.press("ok", False)
    menu, _ = menu.press("down", False)
    menu, _ = menu.press("down", False)
    menu, _ = menu.press("ok", False)
    assert menu.screen().lines[0].startswith("  * red")
    menu, done = menu.press("green", False)
    assert done.data["args"]["colors"] == "red,green"


def test_a_refused_entry_gives_its_reason_instead_of_questions():
    _, first = _menu(Form("Peek", "peek", (SEAT,), refused="you drew this turn"))
    assert first == menus.Command("refused", {"reason": "you drew this turn"})


def test_a_long_press_moves_five_without_wrapping():
    numbers = Field("n", "How many?", tuple(str(n) for n in range(12)))
    menu, _ = _menu(Form("Count", "count", (numbers,)))
    menu, _ = menu.press("down", True)
    menu, _ = menu.press("down", True)
    menu, _ = menu.press("down", True)
    assert menu.cursor == 11
    menu, _ = menu.press("up", True)
    assert menu.cursor == 6


def test_pages_turn_with_up_down_and_close_with_anything_else():
    pages = menus.PageMenu(Pages((Screen("A"), Screen("B"), Screen("C")), start=1))
    assert pages.screen().title == "B" and "2/3" in pages.screen().footer
    pages, _ = pages.press("down", False)
    assert pages.screen().title == "C"
    assert pages.press("ok", False)[1] == menus.CLOSE


# --- the app walks a game's menu without journaling the walk -----------------------------------


@dataclass(frozen=True)
class Tally:
    counts: tuple[int, ...] = (0, 0, 0)


class TallyGame(Game):
    """A tiny seat game: ok opens a menu (add points to a seat), down shows the scores."""

    name = "tally"
    title = "Tally"
    options: tuple[Option, ...] = ()

    def check_options(self, options: Any) -> dict[str, Any]:
        return parse("tally", self.options, options)

    def setup_dice(self, options: Any) -> tuple[int, ...]:
        return ()

    def initial(self, options: Any, rolls: tuple[int, ...]) -> Outcome:
        return Outcome(Tally())

    def dice_for(self, state: Tally, action: Action) -> tuple[int, ...]:
        check_arguments("tally", action, {"add": ("player", "n")})
        return ()

    def apply(self, state: Tally, action: Action) -> Outcome:
        self.dice_for(state, action)
        seat = seats.seat_arg(action, "player", 3)
        n = action.int_arg("n", 0, 9)
        if n == 0:
            raise Rejected("nothing to add")
        counts = list(state.counts)
        counts[seat - 1] += n
        return Outcome(replace(state, counts=tuple(counts)))

    def public(self, state: Tally) -> dict[str, Any]:
        return {"counts": seats.by_seat(dict(enumerate(state.counts, start=1)))}

    def view(self, state: Tally) -> tuple[Screen, Lights]:
        return seats.turn_screen("Tally", 1, "playing", "ok menu")

    def control(self, state: Tally, event: Any) -> Any:
        if isinstance(event, Press) and event.button == "ok":
            points = Field("n", "Points", ("0", "1", "2"))
            return Ask("Tally", (Form("Add", "add", (SEAT, points)), Form("Off", "add", (), {})))
        if isinstance(event, Press) and event.button == "down":
            return Pages(
                tuple(Screen(f"Seat {i + 1}", (str(c),)) for i, c in enumerate(state.counts))
            )
        return None

    def restore(self, state: Tally) -> Tally:
        return state

    def catalog(self) -> tuple:
        return ()


@pytest.fixture
def tally(monkeypatch):
    game = TallyGame()
    real_get = games.get
    monkeypatch.setattr(games, "get", lambda name: game if name == "tally" else real_get(name))
    return game


def test_walking_a_game_menu_changes_nothing_until_the_action(tally, tmp_path):
    from companion.core.config import Config, StateConfig
    from companion.core.journal import Journal

    config = Config(state=StateConfig(dir=str(tmp_path)))
    script = "game tally\npress ok\npress ok\npress down\npress ok\npress down\npress ok\n"
    out = run_script(script, config=config)
    assert [o["state"]["counts"]["2"] for o in out] == [0, 0, 0, 0, 0, 0, 1]
    assert out[2]["screen"][0] == "Which seat?"
    record = Journal(tmp_path / "journal.jsonl").open()
    assert [s.action["name"] for s in record.steps] == ["add"]  # one entry: no menu steps


def test_undo_after_a_menu_takes_back_the_action_not_the_walk(tally):
    script = (
        "game tally\npress ok\npress ok\npress down\npress ok\npress down\npress down\npress ok\n"
        "press down\npress back\nhold back 1.5\npress green\n"
    )
    out = run_script(script)
    assert out[7]["state"]["counts"]["2"] == 2
    assert out[-1]["state"]["counts"]["2"] == 0


def test_a_rule_refusal_after_a_form_is_shown(tally):
    out = run_script("game tally\npress ok\npress ok\npress ok\npress ok\n")
    assert out[-1]["rejected"] == "nothing to add"


def test_information_pages_open_and_close_without_a_journal_entry(tally):
    out = run_script("game tally\npress down\npress down\npress ok\n")
    assert out[1]["screen"][0] == "Seat 1"
    assert out[2]["screen"][0] == "Seat 2"
    assert out[3]["screen"][0] == "Tally"
