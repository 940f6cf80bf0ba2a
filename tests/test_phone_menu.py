"""The box's own side of pairing, with the buttons on a virtual clock: the menu entries appear
only with a phone face, the code on the OLED runs out on the loop's clock, goes void after
wrong codes, and closes when a phone pairs; Forget phones asks first."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core.config import Config
from companion.sim.box import SimulatedBox
from companion.web.pairing import CODE_SECONDS, Pairing


class Phones:
    """What the app needs of the phone face: the pairing, where to go, a status line."""

    def __init__(self, box: SimulatedBox, state_dir: Path) -> None:
        self.pairing = Pairing(
            state_dir,
            clock=box.clock.now,
            randbelow=lambda n: 123456,
            on_change=box.app.phones_changed,
        )

    def address(self) -> str:
        return "192.168.1.5:8080"

    def status(self) -> str:
        return "phones on port 8080"


@pytest.fixture
def box(tmp_path: Path):
    box = SimulatedBox(Config(), state_dir=tmp_path)
    box.app.start()
    box.loop.drain()
    yield box
    box.close()


def screen(box: SimulatedBox) -> list[str]:
    return box.app.shown[0].text_lines()


def menu_items(box: SimulatedBox) -> list[str]:
    return list(box.app.menu.items)


def with_phones(box: SimulatedBox, tmp_path: Path) -> Phones:
    phones = Phones(box, tmp_path)
    box.app.phones = phones
    box.app.open_game_menu()
    box.app.refresh()
    return phones


def test_no_phone_face_no_phone_entries(box) -> None:
    assert "Pair a phone" not in menu_items(box)
    box.app.new_game("dice", {})
    box.press("back")
    assert "Pair a phone" not in menu_items(box) and "Forget phones" not in menu_items(box)
    assert "phones" not in box.app.status_line()


def test_pairing_from_the_game_menu_shows_the_code_until_it_runs_out(box, tmp_path) -> None:
    with_phones(box, tmp_path)
    assert menu_items(box)[-2:] == ["Pair a phone", "Forget phones"]
    box.app.new_game("dice", {})
    box.press("back")
    assert menu_items(box)[-2:] == ["Pair a phone", "Forget phones"]
    box.press("up")  # the menu wraps: up twice from Resume
    box.press("up")
    box.press("ok")
    shown = screen(box)
    assert shown[0] == "Pair a phone: 5 min" and "123 456" in shown
    assert "192.168.1.5:8080" in shown
    box.advance(CODE_SECONDS + 0.1)  # a deadline on the loop's clock redraws it
    assert "The code ran out" in screen(box)
    box.press("ok")  # a new code
    assert "123 456" in screen(box)
    assert "phones on port 8080" in box.app.status_line()


def test_the_oled_says_when_the_code_is_void(box, tmp_path) -> None:
    phones = with_phones(box, tmp_path)
    box.app.phone_command("pair_phone")
    for n in range(10):
        assert phones.pairing.attempt(f"00000{n}", f"10.0.0.{n}").outcome == "wrong"
    box.loop.drain()
    assert "Code void:" in screen(box) and "10 wrong guesses" in screen(box)
    assert box.app.sounds[-1] == "error"
    box.press("ok")  # a new code: its own budget, nothing guessed yet
    assert "123 456" in screen(box) and not any("wrong" in line for line in screen(box))


def test_the_oled_counts_the_wrong_guesses_as_they_arrive(box, tmp_path) -> None:
    phones = with_phones(box, tmp_path)
    box.app.phone_command("pair_phone")
    box.app.refresh()
    assert not any("wrong" in line for line in screen(box))
    assert phones.pairing.attempt("000001").outcome == "wrong"
    box.loop.drain()
    assert screen(box)[0] == "1 wrong guess: 5 min"  # the title says it
    for n in range(2, 4):
        phones.pairing.attempt(f"00000{n}")
    box.loop.drain()
    assert screen(box)[0] == "3 wrong guesses: 5 min" and "123 456" in screen(box)


def test_a_paired_phone_closes_the_code_and_back_ends_it(box, tmp_path) -> None:
    phones = with_phones(box, tmp_path)
    box.app.phone_command("pair_phone")
    box.app.refresh()
    assert phones.pairing.attempt("123456").outcome == "paired"
    box.loop.drain()
    assert "Phone paired" in screen(box)
    assert box.app.menu.title == "Choose a game"  # no game yet: back to the choice
    box.app.phone_command("pair_phone")
    box.press("back")  # leaving the screen ends the code
    assert phones.pairing.attempt("123456").outcome == "no_code"


def test_forget_phones_asks_first(box, tmp_path) -> None:
    phones = with_phones(box, tmp_path)
    box.app.phone_command("pair_phone")
    token = phones.pairing.attempt("123456").token
    box.loop.drain()
    box.app.open_game_menu()
    box.press("up")  # Forget phones, the last entry
    box.press("ok")
    assert screen(box)[:2] == ["Forget phones?", "1 paired"]
    box.press("back")  # no
    assert phones.pairing.allows(token)
    box.app.open_game_menu()
    box.press("up")
    box.press("ok")
    box.press("ok")  # yes
    assert not phones.pairing.allows(token)
    assert "1 phone forgotten" in " ".join(screen(box))


def test_the_code_s_minutes_left_count_down_by_themselves(box, tmp_path) -> None:
    """With the phone face on, the OLED's "5 min" goes down minute by minute with no press."""
    from companion.web.phones import PhoneService

    service = PhoneService(box.app, 8080, host="127.0.0.1")
    box.app.phones = service
    box.app.faces.add(service)
    box.app.phone_command("pair_phone")
    box.app.refresh()
    seen = [screen(box)[0]]
    for _ in range(4):
        box.advance(60.0)
        seen.append(screen(box)[0])
    assert seen == [f"Pair a phone: {n} min" for n in (5, 4, 3, 2, 1)]
    box.advance(60.0)
    assert "The code ran out" in screen(box)
    assert box.loop.pending("phones-minute") is None
