"""The renderer: golden frames, text kept inside its area, big digits, shrinking before cutting,
inverted alerts and the dungeon picture."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from companion.ui import fonts, pictures
from companion.ui.fonts import ELLIPSIS, MIN_SIZE
from companion.ui.render import HEIGHT, WIDTH, Placed, areas, layout, render
from companion.ui.screen import Screen

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


def _load_golden_module():
    spec = importlib.util.spec_from_file_location("golden_regenerate", GOLDEN_DIR / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GOLDEN_MODULE = _load_golden_module()
GOLDEN: dict[str, Screen] = _GOLDEN_MODULE.GOLDEN
golden_path = _GOLDEN_MODULE.golden_path  # the frame as this FreeType release draws it

FRAME = (0, 0, WIDTH, HEIGHT)
AREAS = areas()
AREA_OF = {"title": AREAS.title, "footer": AREAS.footer, "big": AREAS.middle, "line": AREAS.middle}

EDGE_SCREENS = [
    Screen("A very long title that cannot possibly fit", ("x",), footer="G a  R b"),
    Screen("T", ("This line is far too long to fit on the screen at all",), footer="f"),
    Screen("T", ("one", "two", "three", "four", "five"), footer="f"),
    Screen("T", ("a line", "and one too many"), big="0:45", footer="G pause"),
    Screen("T", (), big="12+12", footer="f"),
    Screen("T", (), big="1234567890123", footer="f"),
    Screen("Ünïcödé ÉÄÖ", ("(brackets) [x] {y} |_|", "Ég jp"), footer="Éclat"),
    Screen("", ("only a line",)),
    Screen("", (), big="6"),
    Screen("T", ("under the rooms",), picture=("dungeon", ((1, 2, 3, 4, 5, 6, 7), 1, 7, 7, ()))),
]


def _inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return (
        inner[0] >= outer[0]
        and inner[1] >= outer[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


def _drawn_box(placed: Placed) -> tuple[int, int, int, int] | None:
    """Where Pillow really puts the text's pixels, drawn alone on an unclipped canvas."""
    pad = 64
    canvas = Image.new("1", (WIDTH + 2 * pad, HEIGHT + 2 * pad), 0)
    x, y = placed.origin
    ImageDraw.Draw(canvas).text(
        (x + pad, y + pad), placed.text, font=fonts.font(placed.size, placed.face), fill=1
    )
    box = canvas.getbbox()
    if box is None:
        return None
    return (box[0] - pad, box[1] - pad, box[2] - pad, box[3] - pad)


def _check_layout(screen: Screen) -> list[Placed]:
    placed = list(layout(screen).texts)
    for item in placed:
        assert item.size >= MIN_SIZE, item
        drawn = _drawn_box(item)
        assert drawn is not None, item
        assert _inside(drawn, item.box), (item, drawn)
        assert _inside(drawn, FRAME), (item, drawn)
        assert _inside(drawn, AREA_OF[item.area]), (item, drawn, AREA_OF[item.area])
    return placed


# --- golden frames ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_frame(name: str) -> None:
    expected = Image.open(golden_path(name))
    frame = render(GOLDEN[name])
    assert frame.mode == "1"
    assert frame.size == expected.size == (WIDTH, HEIGHT)
    diff = ImageChops.difference(frame, expected.convert("1")).getbbox()
    assert diff is None, f"{name} differs in {diff}; run tests/golden/regenerate.py if intended"


def test_frames_hold_only_black_and_white() -> None:
    # Pillow stores "1" pixels as 0 or 255; a stray 1 would make ImageChops comparisons
    # with frames from elsewhere (luma's dummy, a PNG) see differences that are not there.
    for screen in GOLDEN.values():
        assert set(render(screen).get_flattened_data()) == {0, 255}


def test_golden_frames_are_not_blank_and_differ() -> None:
    frames = {name: render(screen).tobytes() for name, screen in GOLDEN.items()}
    assert all(any(data) for data in frames.values())
    assert len(set(frames.values())) == len(frames)


def test_same_screen_same_pixels_even_after_caches_are_dropped() -> None:
    screen = GOLDEN["timer_0_45"]
    first = render(screen).tobytes()
    assert render(screen).tobytes() == first
    for cached in (fonts.ink, fonts.band, fonts.advance, fonts.ellipsize, fonts.font, fonts.stamp):
        cached.cache_clear()
    assert render(screen).tobytes() == first


# --- areas and fitting --------------------------------------------------------------------------


def test_areas_are_stacked_without_overlap_inside_the_frame() -> None:
    title, middle, footer = AREAS.title, AREAS.middle, AREAS.footer
    for box in (title, middle, footer):
        assert _inside(box, FRAME)
    assert title[3] < middle[1], "a blank row between title and middle"
    assert middle[3] < footer[1], "a blank row between middle and footer"
    assert title[3] - title[1] == 10
    assert footer[3] - footer[1] == 10


@pytest.mark.parametrize("screen", [*GOLDEN.values(), *EDGE_SCREENS])
def test_every_text_is_drawn_inside_its_area(screen: Screen) -> None:
    _check_layout(screen)


def test_pixels_of_each_part_stay_in_its_area() -> None:
    screen = GOLDEN["timer_0_45"]
    parts = {
        AREAS.title: Screen(screen.title),
        AREAS.footer: Screen("", footer=screen.footer),
        AREAS.middle: Screen("", screen.lines, big=screen.big),
    }
    for area, part in parts.items():
        box = render(part).getbbox()
        assert box is not None and _inside(box, area), (part, box, area)


def test_an_accent_and_a_descender_too_tall_for_the_footer_are_clipped_to_it() -> None:
    frame = render(Screen("", footer="Ég jÉ"))
    box = frame.getbbox()
    assert box is not None and _inside(box, AREAS.footer)


printable = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=0, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(
    title=printable,
    lines=st.lists(printable, max_size=5),
    big=st.one_of(st.none(), st.from_regex(r"[0-9]{1,2}([:+][0-9]{1,2})?", fullmatch=True)),
    footer=printable,
    inverted=st.booleans(),
)
def test_any_screen_fits_its_areas(
    title: str, lines: list[str], big: str | None, footer: str, inverted: bool
) -> None:
    # Pillow draws nothing for a text whose only ink is underscores in a 1-bit image (the bar is
    # thinner than a pixel and lands between rows); the box never shows such a text.
    assume(not any(t.strip() and not t.replace("_", "").strip() for t in (title, *lines, footer)))
    screen = Screen(title, tuple(lines), big=big, footer=footer, inverted=inverted)
    placed = _check_layout(screen)
    frame = render(screen)
    assert frame.size == (WIDTH, HEIGHT) and frame.mode == "1"
    if big is not None:
        digits = next(p for p in placed if p.area == "big")
        assert digits.text == big
        assert digits.box[3] - digits.box[1] >= 24


@pytest.mark.parametrize("big", ["4", "45", "0:45", "10:00", "3+5", "6+6", "12+12"])
@pytest.mark.parametrize("lines", [(), ("= 10  DOUBLE!",)])
def test_big_digits_are_at_least_24_pixels_high(big: str, lines: tuple[str, ...]) -> None:
    placed = _check_layout(Screen("Dice", lines, big=big, footer="G roll"))
    digits = next(p for p in placed if p.area == "big")
    assert digits.text == big
    drawn = _drawn_box(digits)
    assert drawn is not None
    assert drawn[3] - drawn[1] >= 24


def test_a_ticking_timer_stays_put() -> None:
    origins = {
        next(
            p for p in layout(Screen("T", ("x",), big=f"0:{s:02d}")).texts if p.area == "big"
        ).origin
        for s in range(60)
    }
    assert len(origins) == 1


def test_text_shrinks_before_it_is_cut() -> None:
    def line(text: str) -> Placed:
        return next(p for p in layout(Screen("T", (text,))).texts if p.area == "line")

    short = line("Go")
    longer = line("Roll the action die now")
    too_long = "Roll the action die now and then do it all over again please"
    cut = line(too_long)
    assert short.size > longer.size >= MIN_SIZE
    assert longer.text == "Roll the action die now"
    assert cut.size == MIN_SIZE
    assert cut.text.endswith(ELLIPSIS)
    assert too_long.startswith(cut.text.removesuffix(ELLIPSIS))
    assert len(cut.text) > 20


def test_three_short_lines_are_all_shown_whole() -> None:
    screen = GOLDEN["instruction_three_lines"]
    shown = [p.text for p in layout(screen).texts if p.area == "line"]
    assert shown == list(screen.lines)


def test_too_many_lines_keep_the_first_and_say_so() -> None:
    screen = Screen("T", ("one", "two", "three", "four", "five", "six"))
    shown = [p.text for p in _check_layout(screen) if p.area == "line"]
    assert 3 <= len(shown) < 6
    assert shown[0] == "one"
    assert shown[-1].endswith(ELLIPSIS)


def test_four_menu_lines_fit_and_keep_their_indentation() -> None:
    menu = ("Turn failed: why?", "> wrong guess", "  trapword", "  illegal clue")
    placed = [p for p in _check_layout(Screen("T", menu, footer="G pick")) if p.area == "line"]
    assert [p.text for p in placed] == list(menu)
    assert len({p.origin[0] for p in placed}) == 1, "one left edge for an indented block"
    heading, marked, plain, _ = (_drawn_box(p) for p in placed)
    assert heading and marked and plain
    assert plain[0] > heading[0] + 3, "indentation survives"
    assert marked[0] <= heading[0] + 1


def test_a_picture_gives_way_to_lines_that_do_not_fit_beside_it() -> None:
    picture = ("dungeon", ((3, 4, 5, 6, 7), 3, 3, 7, (4, 6)))
    one = layout(Screen("T", ("Traps: A 3  B 3",), picture=picture))
    assert one.picture_box is not None
    assert [p.text for p in one.texts if p.area == "line"] == ["Traps: A 3  B 3"]
    lines = ("All start in room 3", "Traps: A 3  B 3", "A gives clues first")
    three = layout(Screen("T", lines, picture=picture))
    assert three.picture_box is None
    assert [p.text for p in three.texts if p.area == "line"] == list(lines)
    assert (
        render(Screen("T", lines, picture=picture)).tobytes()
        == render(Screen("T", lines)).tobytes()
    )


def test_inverted_flips_only_the_middle() -> None:
    plain = Screen("Trapwords  R3", ("Time up", "Team B"), footer="G next  R undo")
    inverted = Screen(plain.title, plain.lines, footer=plain.footer, inverted=True)
    a, b = render(plain), render(inverted)
    for box in (AREAS.title, AREAS.footer):
        assert ImageChops.difference(a.crop(box), b.crop(box)).getbbox() is None
    middle_a = a.crop(AREAS.middle).convert("L")
    middle_b = b.crop(AREAS.middle).convert("L")
    flipped = middle_a.point(lambda value: 255 - value)
    assert ImageChops.difference(flipped, middle_b).getbbox() is None


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(st.characters(codec="latin-1", exclude_categories=("Cc",)), max_size=12),
    size=st.integers(MIN_SIZE, 40),
    face=st.sampled_from(sorted(fonts.FACES)),
    x=st.integers(-20, WIDTH),
    y=st.integers(-20, HEIGHT),
)
def test_a_stamped_text_sets_the_pixels_drawing_it_sets(
    text: str, size: int, face: str, x: int, y: int
) -> None:
    """The frame pastes a text's cached stamp where Pillow would draw it: the same pixels,
    wherever it lands (partly off the frame too)."""
    drawn = Image.new("1", (WIDTH, HEIGHT), 0)
    ImageDraw.Draw(drawn).text((x, y), text, font=fonts.font(size, face), fill=1)
    pasted = Image.new("1", (WIDTH, HEIGHT), 0)
    stamped = fonts.stamp(text, size, face)
    if stamped is not None:
        image, left, top = stamped
        box = (x + left, y + top, x + left + image.width, y + top + image.height)
        pasted.paste(1, box, image)
    assert pasted.tobytes() == drawn.tobytes()


def test_a_screen_seen_before_renders_from_the_caches_alone() -> None:
    """Why a frame is cheap once seen (the time itself is bench's, not a test's): no font is
    made, no text measured or rendered again."""
    screens = list(GOLDEN.values())
    for screen in screens:
        render(screen)
    made, measured = fonts.font.cache_info().misses, fonts.ink.cache_info().misses
    stamped = fonts.stamp.cache_info().misses
    for screen in screens:
        render(screen)
    assert fonts.font.cache_info().misses == made
    assert fonts.ink.cache_info().misses == measured
    assert fonts.stamp.cache_info().misses == stamped  # no text rendered by FreeType again


# --- pictures -----------------------------------------------------------------------------------


def test_unknown_picture_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match="no picture named 'maze'"):
        render(Screen("T", picture=("maze", ())))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (((3, 4, 5), 9, 3, 5, ()), "team A is in room 9"),
        (((3, 4, 5), 3, 3, 5, (8,)), "a curse is in room 8"),
        (((3, 4, 5), 3, 3), "needs \\(rooms"),
        (((), 3, 3, 5, ()), "needs|no rooms"),
        ((tuple(range(1, 9)), 1, 1, 8, ()), "8 rooms do not fit"),
    ],
)
def test_dungeon_rejects_bad_data(data: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        render(Screen("T", picture=("dungeon", data)))


@st.composite
def dungeons(draw: st.DrawFn) -> tuple:
    rooms = tuple(sorted(draw(st.sets(st.integers(1, 99), min_size=1, max_size=7))))
    pick = st.sampled_from(rooms)
    curses = tuple(sorted(draw(st.lists(pick, max_size=5))))
    return (rooms, draw(pick), draw(pick), draw(pick), curses)


@settings(max_examples=60, deadline=None)
@given(data=dungeons(), with_line=st.booleans())
def test_dungeon_draws_inside_its_box(data: tuple, with_line: bool) -> None:
    screen = Screen("T", ("A writes 3",) if with_line else (), picture=("dungeon", data))
    box = layout(screen).picture_box
    assert box is not None and _inside(box, AREAS.middle)
    pad = 40
    canvas = Image.new("1", (WIDTH + 2 * pad, HEIGHT + 2 * pad), 0)
    shifted = (box[0] + pad, box[1] + pad, box[2] + pad, box[3] + pad)
    pictures.dungeon(ImageDraw.Draw(canvas), shifted, data)
    drawn = canvas.getbbox()
    assert drawn is not None and _inside(drawn, shifted), (drawn, shifted)


def _room_columns(rooms: int, index: int) -> tuple[int, int]:
    """Columns inside room ``index`` (walls excluded) in a full-width box."""
    width = min(pictures.MAX_ROOM_WIDTH, (WIDTH - 1) // rooms)
    x0 = (WIDTH - (rooms * width + 1)) // 2
    return x0 + index * width + 1, x0 + (index + 1) * width


def _dungeon_frame(data: tuple) -> Image.Image:
    canvas = Image.new("1", (WIDTH, 40), 0)
    pictures.dungeon(ImageDraw.Draw(canvas), (0, 0, WIDTH, 40), data)
    return canvas


def _changed_rooms(a: Image.Image, b: Image.Image, rooms: int) -> set[int]:
    diff = ImageChops.difference(a, b)
    changed = set()
    for index in range(rooms):
        left, right = _room_columns(rooms, index)
        if diff.crop((left, 0, right, diff.height)).getbbox() is not None:
            changed.add(index)
    return changed


@pytest.mark.parametrize("rooms", [(3, 4, 5, 6, 7), (1, 2, 3, 4, 5, 6, 7)])
def test_each_mark_is_drawn_in_its_own_room(rooms: tuple[int, ...]) -> None:
    last = len(rooms) - 1
    base = _dungeon_frame((rooms, rooms[0], rooms[0], rooms[last], ()))
    changes = {
        "team A moves": ((rooms, rooms[2], rooms[0], rooms[last], ()), {0, 2}),
        "team B moves": ((rooms, rooms[0], rooms[3], rooms[last], ()), {0, 3}),
        "monster moves": ((rooms, rooms[0], rooms[0], rooms[1], ()), {1, last}),
        "a curse": ((rooms, rooms[0], rooms[0], rooms[last], (rooms[2],)), {2}),
    }
    for what, (data, expected) in changes.items():
        assert _changed_rooms(base, _dungeon_frame(data), len(rooms)) == expected, what


def test_two_curses_in_a_room_look_different_from_one() -> None:
    rooms = (1, 2, 3, 4, 5, 6, 7)
    one = _dungeon_frame((rooms, 1, 1, 7, (4,)))
    two = _dungeon_frame((rooms, 1, 1, 7, (4, 4)))
    three = _dungeon_frame((rooms, 1, 1, 7, (4, 4, 4)))
    assert ImageChops.difference(one, two).getbbox() is not None
    assert ImageChops.difference(two, three).getbbox() is not None
    assert _changed_rooms(one, three, len(rooms)) == {3}


def test_another_freetype_release_moves_only_a_few_pixels_of_glyphs() -> None:
    """A frame kept for another FreeType release (its hinter sets a pixel here and there
    differently) may differ from the reference only that much: the same layout, a few pixels."""
    kept = sorted(GOLDEN_DIR.glob("freetype-*/*.png"))
    assert kept, "no frame of another FreeType release to compare"
    for path in kept:
        reference = Image.open(GOLDEN_DIR / path.name).convert("1")
        other = Image.open(path).convert("1")
        changed = ImageChops.difference(other, reference).histogram()[255]
        assert 0 < changed <= 40, (path, changed)


# --- drawing only what changed -------------------------------------------------------------------

PICTURE_SCREEN = EDGE_SCREENS[-1].picture
screens = st.builds(
    Screen,
    title=st.sampled_from(["Dice", "Trap Attack", "", "Ünïcödé ÉÄÖ", "A very long title indeed"]),
    lines=st.lists(printable, max_size=4).map(tuple),
    big=st.one_of(st.none(), st.sampled_from(["4", "0:45", "12+12", "6"])),
    footer=st.sampled_from(["", "G roll  R back", "Éclat", "f"]),
    inverted=st.booleans(),
    picture=st.one_of(st.none(), st.just(PICTURE_SCREEN)),
).filter(lambda screen: screen.picture is None or screen.big is None)  # 7 rooms need the width


@settings(max_examples=150, deadline=None)
@given(shown=st.lists(st.one_of(screens, st.sampled_from(list(GOLDEN.values()))), min_size=2))
def test_drawing_only_what_changed_gives_the_whole_frame(shown: list[Screen]) -> None:
    """Screen after screen, each frame drawn from the one before (only the areas whose content
    changed) is pixel for pixel the frame drawn whole."""
    frame = render(shown[0])
    for before, screen in itertools.pairwise(shown):
        frame = render(screen, since=(before, frame))
        assert frame.tobytes() == render(screen).tobytes(), (before, screen)


def test_a_kept_title_and_footer_are_not_laid_out_again() -> None:
    """Only the middle is drawn when only the middle changed; the frame before is not touched."""
    a = Screen("Dice", (), big="4", footer="G roll  R back")
    b = Screen("Dice", (), big="5", footer="G roll  R back")
    first = render(a)
    kept = first.tobytes()
    measured = fonts.ink.cache_info()
    second = render(b, since=(a, first))
    assert first.tobytes() == kept
    assert second.crop(AREAS.title).tobytes() == first.crop(AREAS.title).tobytes()
    assert second.tobytes() == render(b).tobytes()
    assert second.tobytes() != kept
    after = fonts.ink.cache_info()
    assert after.hits + after.misses - measured.hits - measured.misses > 0  # the middle's
    assert render(b, since=(b, second)).tobytes() == second.tobytes()
