"""The simulator's picture at any terminal size: never a line wider than the terminal (a
wrapped line garbles the frame), never more lines than it has, the help never below the
OLED it sits beside, and a terminal too small says the size it needs."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.sim.layout import (
    DISPLAYS,
    HELP,
    SHORT_HELP,
    Panel,
    compose,
    drawing_size,
    needed,
    visible_width,
)
from companion.ui.render import render
from companion.ui.screen import Screen

SCREEN = Screen("Trap Attack  P1", ("Player 1 has already", "cast an attack"), footer="G ok")
IMAGE = render(SCREEN)
PANEL = Panel(
    led="\x1b[48;2;0;255;0m      \x1b[0m",
    pattern="solid",
    sounds="roll, card_ok, error, undo",
    reader="reader ready: RDM6300 on /dev/pts/3",
    card="Ancient ceremony plate (trap-attack)",
    uid="009A0BE3D2",
    message="UID> 04A1B2C3_",
)


def _lines(width, height, display="auto"):
    return compose(width, height, PANEL, IMAGE, SCREEN, display)


def _fits(lines, width, height):
    assert len(lines) <= height
    for line in lines:
        assert visible_width(line) <= width - 1, line


@pytest.mark.parametrize(("width", "height"), [(80, 24), (40, 12), (100, 30), (200, 50)])
def test_common_sizes_show_the_oled_the_parts_and_how_to_quit(width, height):
    lines = _lines(width, height)
    _fits(lines, width, height)
    text = "\n".join(lines)
    assert "too small" not in text
    assert "quit" in text and "LED" in text and "UID> 04A1B2C3_" in text
    assert lines[0].startswith("┌") and any(line.startswith("└") for line in lines)


def test_the_largest_drawing_that_fits_is_chosen():
    assert "▀" in "".join(_lines(200, 50)) or "▄" in "".join(_lines(200, 50))  # blocks
    assert any("\u2800" < ch <= "\u28ff" for ch in "".join(_lines(80, 24)))  # braille
    assert "Player 1 has already" in "".join(_lines(40, 12))  # the words


def test_braille_beside_the_help_never_hangs_below_the_display():
    width, height = 100, 30
    lines = _lines(width, height, "braille")
    frame_h = drawing_size("braille")[1]
    assert len(lines) == frame_h  # every panel line sits beside the framed OLED
    assert lines[-1].startswith("└")
    assert any("quit" in line for line in lines)


@pytest.mark.parametrize("display", DISPLAYS)
def test_too_small_says_what_it_needs(display):
    need_w, need_h = needed(display)
    assert "too small" not in "".join(_lines(need_w, need_h, display))
    small = _lines(need_w - 1, need_h, display)
    assert "terminal too small" in small[0]
    assert f"need {need_w}x{need_h}" in "".join(small)
    tiny = _lines(20, 5, display)
    _fits(tiny, 20, 5)
    assert "need" in "".join(tiny)


def test_the_short_help_keeps_every_key():
    full = " ".join(HELP)
    for key in ("k", "j", "o", "b", "B", "g", "r", "G", "R", "c", "C", "t", "u", "q"):
        assert f" {key} " in f" {' '.join(SHORT_HELP)} ".replace("/", " "), key
        assert key in full


@given(
    width=st.integers(min_value=1, max_value=260),
    height=st.integers(min_value=1, max_value=80),
    display=st.sampled_from(DISPLAYS),
)
def test_no_size_makes_a_line_wrap(width, height, display):
    _fits(_lines(width, height, display), width, height)


def test_the_words_drawing_keeps_a_menus_rows_on_one_left_edge():
    from companion.ui.menus import ListMenu

    menu = ListMenu("Choose a game", ["Dice", "Trap Attack"], ["dice", "trap-attack"], "pick")
    lines = compose(40, 12, PANEL, None, menu.screen(), "text")
    rows = [line for line in lines if "Dice" in line or "Trap Attack" in line]
    assert rows[0].index("> Dice") == rows[1].index("  Trap Attack")


# --- issue 30, point 18: at 100 columns the panel beside the OLED shows names whole --------


@pytest.mark.parametrize("height", [24, 34])
def test_long_card_and_sound_names_wrap_beside_the_oled_at_100_columns(height):
    panel = Panel(
        led="\x1b[48;2;0;255;0m      \x1b[0m",
        pattern="solid",
        sounds="card_ok, race_end, crystal, knockout",
        reader="reader ready: RDM6300",
        card="Ancient Ceremony Plate (trap-attack)",
        uid="009A0BE3D2",
    )
    lines = compose(100, height, panel, IMAGE, SCREEN)
    _fits(lines, 100, height)
    edge = lines[0].index("┐") + 1
    side = [line[edge:].strip() for line in lines]
    text = " ".join(side)
    assert "…" not in text, side
    for word in ("Ancient", "Ceremony", "Plate", "(trap-attack)", "race_end", "knockout"):
        assert word in text, side
