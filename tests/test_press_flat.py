"""A press costs the same at the 10th roll of a game and at the 100,000th (issue 31 point 2):
the work it does, counted, not timed. What grew with a game's length was the roll's count on
the screen: "100020th roll  ok stats" no longer fits the line's first size, and FreeType laid
the whole new line out once more to find that out (at a Pi's pace, a good part of a press)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import ImageFont

from companion.app.events import Pressed
from companion.app.play import as_record
from companion.app.session import checked, set_up
from companion.core.config import Config, ReaderConfig, StateConfig
from companion.core.journal import Journal
from companion.games.base import Action
from companion.sim.box import SimulatedBox
from companion.ui import fonts

PRESSES = 3


def _resumed_at(state_dir: Path, rolls: int) -> SimulatedBox:
    """A box started on a journal whose dice game stands at roll ``rolls``: a checkpoint of
    the state after that many rolls (as the journal keeps a long game), no standing step."""
    rules, options = checked("dice", {"die": "d6"})
    session = set_up("dice", rules, {"die": "d6"}, options, ())
    played = session.state
    for n in range(min(rolls, 20)):  # a history and counts as play leaves them
        played = rules.apply(played, Action("roll", rolls=(n % 6 + 1,))).state
    played = replace(played, rolls=rolls)
    session = replace(session, state=played, base=played, base_at=0.5, folded_in=rolls)
    journal = Journal(state_dir / "journal.jsonl")
    journal.open()
    session = session.with_id(journal.new_game("dice", {"die": "d6"}, (), 0.0))
    journal.compact(as_record(session))
    journal.close()
    config = Config(state=StateConfig(dir=str(state_dir)), reader=ReaderConfig(type="none"))
    sim = SimulatedBox(config, seed=7, today=lambda: "2026-11-27")
    sim.app.start()
    assert sim.app.session is not None and sim.app.session.state.rolls == rolls
    return sim


def _freetype_work(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every whole-text pass of FreeType (a layout to measure, a layout to draw), named by its
    text; a character or a pair measured once for the pen's way is not a whole-text pass."""
    calls: list[str] = []
    font_type = ImageFont.FreeTypeFont
    for name in ("getbbox", "getmask2"):
        real = getattr(font_type, name)

        def counted(self: Any, text: str, *args: Any, _real: Any = real, **kw: Any) -> Any:
            calls.append(text)
            return _real(self, text, *args, **kw)

        monkeypatch.setattr(font_type, name, counted)
    return calls


def _work_of_presses(tmp: Path, rolls: int, buttons: list[str], mp: pytest.MonkeyPatch) -> int:
    sim = _resumed_at(tmp, rolls)
    try:
        sim.app.feed(Pressed("green", False))  # the first roll's frame: the die's face drawn
        for cached in (fonts.ink, fonts.stamp, fonts.band, fonts.advance, fonts.ellipsize):
            cached.cache_clear()  # texts an example before drew are drawn again, on both sides
        calls = _freetype_work(mp)
        for button in buttons:
            sim.app.feed(Pressed(button, False))
        mp.undo()
        return len(calls)
    finally:
        sim.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    buttons=st.lists(st.sampled_from(("green", "red")), min_size=1, max_size=PRESSES),
    long=st.sampled_from((99_990, 100_000, 123_456, 999_990)),
)
def test_a_press_lays_text_out_as_often_at_the_100000th_roll_as_at_the_10th(
    tmp_path_factory: pytest.TempPathFactory, buttons: list[str], long: int
) -> None:
    """The same presses (rolls and re-rolls), each a new count on the screen, from the 10th
    roll and from the 100,000th: FreeType lays out as many whole texts for them. Before, each
    press far into a game laid its new line out once more (2 measures and a draw against 1
    and a draw): the line, a few digits longer, was measured at a size too wide for it."""
    with pytest.MonkeyPatch.context() as mp:
        short = _work_of_presses(tmp_path_factory.mktemp("short"), 10, buttons, mp)
    with pytest.MonkeyPatch.context() as mp:
        far = _work_of_presses(tmp_path_factory.mktemp("long"), long, buttons, mp)
    assert short >= len(buttons)  # each press did draw its new line
    assert far == short


texts = st.text(
    alphabet=st.sampled_from(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;!?+-=/()'\"…éèàüöÄ°"
    ),
    min_size=0,
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(text=texts, size=st.integers(9, 20), face=st.sampled_from(tuple(fonts.FACES)))
def test_the_pen_s_way_is_pillow_s_own_and_never_wider_than_the_ink_box(
    text: str, size: int, face: str
) -> None:
    """least_width rules a size out only when the text surely does not fit: summed from the
    characters and pairs it is exactly the pen's way Pillow lays out for the whole text, and
    the text's ink box (as the renderer measures it) is never narrower."""
    found = fonts.least_width(text, size, face)
    left, _, right, _ = fonts.ink(text, size, face)
    if not text.strip():
        assert found == 0 and (left, right) == (0, 0)
        return
    pen = round(fonts.font(size, face).getlength(text, mode="1") * 64)
    assert found == (pen + 32) // 64
    assert found <= right and found <= right - left
