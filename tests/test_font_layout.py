"""The OLED draws the same frame on every system: Pillow's layout engine is pinned to the basic
one, so whether the system has libraqm (libfribidi installed) or not changes nothing.

Each test runs both ways: "raqm" where this Pillow can use libraqm (Pillow would pick it by
default), and "no raqm" as on a minimal Debian or Raspberry Pi OS Lite image, simulated by
telling Pillow it has none.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image, ImageChops, ImageFont, features

from companion.ui import fonts
from companion.ui.render import render
from tests.test_render import GOLDEN, golden_path

# Menu texts too wide for the panel, as the menus and the cards list cut them.
CUTS = {
    ("Trapwords  team A writes", 9, 60): "Trapwords…",
    ("Cover Your Asps", 12, 70): "Cover Yo…",
    ("Dungeon of the Hostage Trap", 9, 100): "Dungeon of the Ho…",  # "Hos…" with libraqm
}


def _clear_caches() -> None:
    for cached in (fonts.font, fonts.ink, fonts.band, fonts.advance, fonts.ellipsize):
        cached.cache_clear()


@pytest.fixture(params=["raqm", "no raqm"])
def system(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with_raqm = request.param == "raqm"
    if with_raqm and not features.check("raqm"):
        pytest.skip("this Pillow cannot use libraqm here (no libfribidi): the other way runs")
    monkeypatch.setattr(ImageFont.core, "HAVE_RAQM", with_raqm)
    _clear_caches()
    yield request.param
    _clear_caches()


def test_every_face_is_laid_out_the_basic_way(system: str) -> None:
    for face in fonts.FACES:
        for size in (fonts.MIN_SIZE, 12, 30):
            assert fonts.font(size, face).layout_engine == ImageFont.Layout.BASIC


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_frames_are_the_same_either_way(system: str, name: str) -> None:
    expected = Image.open(golden_path(name)).convert("1")
    diff = ImageChops.difference(render(GOLDEN[name]), expected).getbbox()
    assert diff is None, f"{name} with {system} differs in {diff}"


def test_cut_text_is_the_same_either_way(system: str) -> None:
    cut = {key: fonts.ellipsize(*key) for key in CUTS}
    assert cut == CUTS


def test_left_to_choose_pillow_would_draw_differently() -> None:
    """Why the pin: where libraqm is there, Pillow's default lays text out differently."""
    if not features.check("raqm"):
        pytest.skip("this Pillow cannot use libraqm here (no libfribidi): nothing to compare")
    data = fonts._font_data("regular")
    assert data is not None
    text = "A writes 3  B writes 3"
    boxes = {
        engine: ImageFont.truetype(io.BytesIO(data.data), 12, layout_engine=engine).getbbox(
            text, mode="1"
        )
        for engine in (ImageFont.Layout.BASIC, ImageFont.Layout.RAQM)
    }
    assert boxes[ImageFont.Layout.BASIC] != boxes[ImageFont.Layout.RAQM]
