"""Issue 43: the explorer of the box's flow (companion/explore/, `trap-companion explore`).

The scripts it printed for what it found are kept in tests/data/explore/ and replayed here, by
replay itself and through the explorer's own checks; a short seeded exploration of every game
finds nothing; failures planted in a game's screen, in a menu's back and in what a phone's press
does are found, each with a script that reproduces it."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app import menu_flow, phones, view
from companion.commands import explore as explore_command
from companion.explore.table import HOLD_SECONDS, Input
from companion.explore.walk import Explorer, at_play
from companion.games import registry as games
from companion.replay import run_script
from companion.ui import menus

KEPT = Path(__file__).parent / "data" / "explore"
SCRIPTS = sorted(KEPT.glob("*.txt"))


def _inputs(script: str) -> tuple[Input, ...]:
    out = []
    for line in script.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "hold":
            assert float(words[2]) == HOLD_SECONDS
            out.append(Input("hold", words[1]))
        else:
            out.append(Input(words[0], words[1]))
    return tuple(out)


FOUND = [p for p in SCRIPTS if p.read_text().startswith("# trap-companion explore")]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_a_kept_script_replays_whole(script: Path) -> None:
    """Each failure the explorer found, fixed: its script replays to its end (before the fix
    of the freeze: an IndexError on the line that refused the second relic)."""
    out = run_script(script.read_text())
    assert len(out) == len(
        [w for w in script.read_text().splitlines() if w.strip() and not w.startswith("#")]
    )


@pytest.mark.parametrize("script", FOUND, ids=lambda p: p.stem)
def test_a_script_the_explorer_printed_passes_its_checks(script: Path) -> None:
    """The scripts the explorer printed, walked through its own checks (the step, the view,
    the faces' state, the frame, the way back): no failure on the way."""
    game = next(g for g in games.available() if script.stem.startswith(g))
    explorer = Explorer(seed=0)
    report = explorer.explore(game, steps=0)
    assert explorer.failing(game, _inputs(script.read_text()), report) == {}


@pytest.mark.parametrize("name", ["trap-attack-relic-bought-twice-menu"])
def test_a_second_relic_in_a_turn_is_refused_and_the_buttons_answer(name: str) -> None:
    text = (KEPT / f"{name}.txt").read_text()
    out = run_script(text)
    refused = [o for o in out if "rejected" in o]
    assert refused and "relic this turn" in refused[0]["rejected"]
    assert out[-1]["screen"][0] in ("Menu", "Not allowed")
    after = run_script(text + "press back\npress back\npress back\n")
    assert after[-1]["screen"][0].startswith("Trap Attack")  # back to play


def test_undo_names_an_item_card_in_three_lines_that_fit() -> None:
    """The AI's item card with no effect: "Undo?" names the step without the table's
    instruction after it (before: its last lines shared one, cut to fit)."""
    out = run_script((KEPT / "trap-attack-undo-item-card.txt").read_text())
    assert out[-1]["screen"] == [
        "Undo?",
        "Ancient Ceremony",
        "Plate: no effect for",
        "the AI",
        "ok undo  back no",
    ]


def test_the_spares_option_fits_as_it_is_changed() -> None:
    """Hostage Trap!'s spare hostages shuffled: the options form's row said "Spare hostages:
    shuffled", cut to fit; found by the explorer (its script kept)."""
    out = run_script((KEPT / "hostage-trap-spares-shuffled.txt").read_text())
    assert out[-1]["screen"][2] == "> Spares: shuffled"


@pytest.fixture(scope="module")
def explorer() -> Explorer:
    return Explorer(seed=0)


@pytest.mark.parametrize("game", games.available())
def test_a_short_seeded_exploration_finds_nothing(explorer: Explorer, game: str) -> None:
    report = explorer.explore(game, steps=1200, length=60)
    assert report.failures == {}, [explorer.script(f) for f in report.failures.values()]
    assert report.steps >= 1200 and report.values > 50 and report.screens > 10


def test_the_same_seed_walks_the_same_way() -> None:
    one = Explorer(seed=3).explore("dice", steps=600, length=40)
    two = Explorer(seed=3).explore("dice", steps=600, length=40)
    other = Explorer(seed=4).explore("dice", steps=600, length=40)
    assert (one.values, one.screens, one.steps) == (two.values, two.screens, two.steps)
    assert (one.values, one.steps) != (other.values, other.steps) or one.screens != other.screens


def test_a_game_screen_that_raises_is_found_with_a_script_replay_reproduces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A planted failure: the dice tool's screen raises once a 2 has been rolled twice."""
    rules = type(games.get("dice"))
    drawn = rules.view

    def view_(self, state):
        if state.history.count((2,)) >= 2:
            raise RuntimeError("planted")
        return drawn(self, state)

    monkeypatch.setattr(rules, "view", view_)
    explorer = Explorer(seed=0)
    report = explorer.explore("dice", steps=3000, length=40)
    (failure,) = report.failures.values()
    assert failure.kind == "exception" and "RuntimeError" in failure.what
    script = explorer.script(failure)
    assert script.splitlines()[0].startswith("# trap-companion explore --seed 0: exception")
    # replay reaches the same value: the same dice rolled, up to the line that fails
    *before, _last = script.rstrip("\n").split("\n")
    shown = run_script("\n".join(before) + "\n")[-1]
    inputs = _inputs(script)
    t = explorer.start
    for move in inputs[:-1]:
        t, _ = t.after(move, explorer.lend)
    assert view.public_state(t.box) == shown["state"]
    assert failure.path == inputs
    assert explorer.failing("dice", inputs, report) == {next(iter(report.failures)): len(inputs)}


def test_a_dead_end_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted failure: "Undo?" no longer answers back nor red."""
    press = menus.Confirm.press

    def stuck(self, button, long):
        if button in ("back", "red"):
            return self, menus.STAY
        return press(self, button, long)

    monkeypatch.setattr(menus.Confirm, "press", stuck)
    explorer = Explorer(seed=0)
    report = explorer.explore("dice", steps=800, length=40)
    kinds = {f.kind for f in report.failures.values()}
    assert kinds == {"dead end"}
    for failure in report.failures.values():
        t = explorer.start
        for move in failure.path:
            t, _ = t.after(move, explorer.lend)
        assert isinstance(t.box.menu, menus.Confirm)  # where it is stuck


def test_a_screen_that_does_not_fit_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = view.current

    def long_titles(box):
        screen, lights = drawn(box)
        if box.session is not None and box.menu is not None:
            screen = type(screen)(screen.title * 6, screen.lines, footer=screen.footer)
        return screen, lights

    monkeypatch.setattr(view, "current", long_titles)
    explorer = Explorer(seed=0)
    report = explorer.explore("dice", steps=300, length=20)
    assert {f.kind for f in report.failures.values()} == {"cut"}


def test_at_play_is_the_game_or_the_game_list() -> None:
    explorer = Explorer(seed=0)
    assert at_play(explorer.start.box)  # the game list


# --- point 4: a phone's presses and taps -------------------------------------------------------


@pytest.mark.parametrize("game", ["dice", "trap-attack", "trapwords"])
def test_a_phone_can_do_nothing_a_button_could_not(game: str) -> None:
    explorer = Explorer(seed=0, phones=True)
    report = explorer.explore(game, steps=1200, length=60)
    assert report.failures == {}, [explorer.script(f) for f in report.failures.values()]


def test_a_phone_doing_more_than_a_button_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted failure: a phone's press is taken as the box's green, whatever was pressed."""
    refused = phones.remote_refused

    def as_green(d):
        if d.remote:
            menu_flow.on_press(d, "green", False)
            return True
        return refused(d)

    monkeypatch.setattr(phones, "remote_refused", as_green)
    explorer = Explorer(seed=0, phones=True)
    report = explorer.explore("dice", steps=300, length=20)
    found = [f for f in report.failures.values() if f.kind == "phone"]
    assert found and all(f.path[-1].remote for f in found)


def test_the_command_prints_per_game_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from companion.cli import main

    status = main(["explore", "--game", "dice", "--steps", "400", "--quiet"])
    out = capsys.readouterr().out
    assert status == 0
    assert "dice:" in out and "distinct screens" in out and "steps/s" in out
    assert explore_command.FAILED == 1


def test_a_phones_refusal_is_held_against_the_same_time_gone_by() -> None:
    """A phone's long green refused on "Forget phones" while Trapwords' reading time ran out
    under the hold: the clock, not the phone, moved the game on (seed 22 flagged it before)."""
    report = Explorer(seed=22, phones=True).explore("trapwords", steps=1000)
    assert report.steps >= 1000
    assert report.failures == {}
