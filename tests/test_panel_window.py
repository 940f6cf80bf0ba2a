"""Only the window that changed goes over I2C (companion/hal/panel.py), and the panel's RAM is
still, pixel for pixel, the last frame: for the SSD1306 and the SH1106, every rotation, and
outages between frames (issue 46)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import luma.oled.device
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from companion.hal import panel
from companion.hal.display import Display
from companion.ui.render import render
from companion.ui.screen import Screen
from tests.oled_support import PAGES, WIDTH, Bus, model_for
from tools.hwtest.ssd1306 import Ssd1306

DRIVERS = ("ssd1306", "sh1106")
STOCK = {"ssd1306": luma.oled.device.ssd1306, "sh1106": luma.oled.device.sh1106}
WINDOWED = {"ssd1306": panel.ssd1306, "sh1106": panel.sh1106}
WHOLE_FRAME = 7 + 1 + WIDTH * PAGES  # luma's ssd1306: its window commands, then 1,024 bytes


def size_for(rotate: int) -> tuple[int, int]:
    return (64, 128) if rotate % 2 else (128, 64)


def expected(driver: str, image: Image.Image, rotate: int) -> bytes:
    """What luma's own (whole-frame) driver leaves in a fresh panel's RAM for ``image``."""
    bus, model = Bus(), model_for(driver)
    bus.listeners.append(model)
    STOCK[driver](bus, rotate=rotate).display(image)
    return model.visible()


def pixels_of(visible: bytes) -> list[list[int]]:
    """The visible RAM as rows of 0/1 (rotation 0: as the frame)."""
    return [
        [(visible[(y // 8) * WIDTH + x] >> (y % 8)) & 1 for x in range(WIDTH)]
        for y in range(PAGES * 8)
    ]


def image_rows(image: Image.Image) -> list[list[int]]:
    data = image.load()
    return [[1 if data[x, y] else 0 for x in range(image.width)] for y in range(image.height)]


# --- frames: rendered screens and random marks ----------------------------------------------

words = st.text(alphabet="ABCDEFGHIJ klmnop 0123456789:", min_size=0, max_size=14)
screens = st.builds(
    lambda title, line, big, footer: Screen(title, (line,), big=big or None, footer=footer),
    words,
    words,
    st.text(alphabet="0123456789:", max_size=4),
    words,
)
boxes = st.lists(
    st.tuples(st.integers(0, 127), st.integers(0, 127), st.integers(0, 40), st.integers(0, 40)),
    max_size=4,
)


def frame(screen: Screen, marks: list[tuple[int, int, int, int]], rotate: int) -> Image.Image:
    image = render(screen, *size_for(rotate))
    draw = ImageDraw.Draw(image)
    for x, y, w, h in marks:
        draw.rectangle((x, y, x + w, y + h), fill=255 if (x + y) % 2 else 0)
    return image


steps = st.lists(
    st.one_of(
        st.tuples(st.just("frame"), screens, boxes),
        st.tuples(st.just("outage"), st.integers(0, 12)),  # messages taken before it fails
        st.tuples(st.just("rotate"), st.integers(0, 3)),
    ),
    min_size=1,
    max_size=12,
)


class Panel:
    """One panel on one bus, kept across devices opened onto it (its RAM stays)."""

    def __init__(self, driver: str) -> None:
        self.driver = driver
        self.bus = Bus()
        self.model = model_for(driver)
        self.bus.listeners.append(self.model)
        self.hwtest_model = Ssd1306() if driver == "ssd1306" else None
        if self.hwtest_model is not None:
            self.bus.listeners.append(self.hwtest_model)
        self.rotate = 0

    def open(self) -> Any:
        return WINDOWED[self.driver](self.bus, rotate=self.rotate)


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("rotate", range(4))
@settings(max_examples=25)
@given(plan=steps)
def test_the_panel_holds_the_last_frame_after_every_write(
    driver: str, rotate: int, plan: list[tuple]
) -> None:
    box = Panel(driver)
    box.rotate = rotate
    drawn: list[Image.Image] = []  # the frame the display renders next: the screen and its marks
    with mock.patch("companion.hal.display.render", lambda *args, **kwargs: drawn[-1].copy()):
        display = Display(box.open)
        last: Image.Image | None = None
        for step in plan:
            if step[0] == "outage":
                box.bus.fail_after = step[1]
                continue
            if step[0] == "rotate":
                # A new rotation is a new device on the same panel (a restart, new settings).
                display.close(keep_picture=True)
                box.rotate = step[1]
                display = Display(box.open)
                continue
            drawn.append(frame(step[1], step[2], box.rotate))
            if not display.show(step[1]):
                # The panel dropped off mid-frame; it answers again and the retry draws it whole.
                assert not display.available
                box.bus.fail_after = None
                assert display.retry()
            last = drawn[-1]
            want = expected(driver, last, box.rotate)
            assert box.model.visible() == want
            if box.hwtest_model is not None:  # make hwtest's model follows the windows too
                assert bytes(box.hwtest_model.ram) == want
            if box.rotate == 0:
                assert pixels_of(box.model.visible()) == image_rows(last)


@settings(max_examples=60)
@given(
    seed=st.lists(st.integers(0, 255), min_size=WIDTH * PAGES, max_size=WIDTH * PAGES),
    rotate=st.integers(0, 3),
)
def test_page_bytes_are_the_columns_top_pixel_in_bit_0(seed: list[int], rotate: int) -> None:
    image = Image.frombytes("1", (128, 64), bytes(seed))
    pages = panel.page_bytes(image)
    rows = image_rows(image)
    for page in range(PAGES):
        for x in range(0, WIDTH, 7):
            want = sum(rows[page * 8 + bit][x] << bit for bit in range(8))
            assert pages[page][x] == want


def sent_for(driver: str, before: Screen, after: Screen) -> tuple[int, list[bytes]]:
    bus = Bus()
    device = WINDOWED[driver](bus)
    device.display(render(before))
    bus.messages.clear()
    device.display(render(after))
    return bus.taken(), bus.messages


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_footer_change_sends_only_its_pages_columns(driver: str) -> None:
    before = Screen("Dice  d6", ("d6  roll 1",), big="4", footer="G roll  R again")
    after = Screen("Dice  d6", ("d6  roll 1",), big="4", footer="G roll  R back")
    taken, messages = sent_for(driver, before, after)
    old, new = panel.page_bytes(render(before)), panel.page_bytes(render(after))
    changed = [p for p in range(PAGES) if old[p] != new[p]]
    assert changed and min(changed) >= 6  # the footer's pages only
    assert taken < WHOLE_FRAME // 4
    data = b"".join(m[1:] for m in messages if m[0] == 0x40)
    assert 0 < len(data) <= len(changed) * WIDTH


def test_sh1106_addresses_each_page_from_its_first_changed_column_past_the_offset() -> None:
    before = Image.new("1", (128, 64))
    after = before.copy()
    after.putpixel((5, 9), 1)  # page 1, column 5
    after.putpixel((100, 60), 1)  # page 7, column 100
    bus = Bus()
    device = panel.sh1106(bus)
    device.display(before)
    bus.messages.clear()
    device.display(after)
    column_5, column_100 = 5 + 2, 100 + 2
    assert bus.messages == [
        bytes([0x00, 0xB1, column_5 & 0x0F, 0x10 | column_5 >> 4]),
        bytes([0x40, 0x02]),
        bytes([0x00, 0xB7, column_100 & 0x0F, 0x10 | column_100 >> 4]),
        bytes([0x40, 0x10]),
    ]


def test_ssd1306_sends_one_window_or_one_per_page_whichever_is_fewer_bytes() -> None:
    bus = Bus()
    device = panel.ssd1306(bus)
    blank = Image.new("1", (128, 64))
    device.display(blank)
    near = blank.copy()
    for y in (8, 16, 24):  # pages 1-3, column 10: one window of 3 bytes
        near.putpixel((10, y), 1)
    bus.messages.clear()
    device.display(near)
    assert bus.messages == [bytes([0x00, 0x21, 10, 10, 0x22, 1, 3]), bytes([0x40, 1, 1, 1])]
    far = near.copy()
    far.putpixel((0, 0), 1)
    far.putpixel((127, 63), 1)  # pages 0 and 7 at both ends: a window per page is fewer
    bus.messages.clear()
    device.display(far)
    assert bus.messages == [
        bytes([0x00, 0x21, 0, 0, 0x22, 0, 0]),
        bytes([0x40, 0x01]),
        bytes([0x00, 0x21, 127, 127, 0x22, 7, 7]),
        bytes([0x40, 0x80]),
    ]


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_first_frame_and_a_rotation_change_go_whole_the_same_frame_sends_nothing(
    driver: str,
) -> None:
    bus = Bus()
    device = WINDOWED[driver](bus)
    bus.messages.clear()
    image = render(Screen("Dice  d6", ("d6  roll 1",), big="4", footer="G roll  R again"))
    device.display(image)  # the panel was cleared by the init: the first frame is whole anyway
    whole = bus.taken()
    assert sum(len(m) - 1 for m in bus.messages if m[0] == 0x40) == WIDTH * PAGES
    bus.messages.clear()
    device.display(image)
    assert bus.messages == []
    half = image.rotate(180)
    device.capabilities(128, 64, 2)  # the same device turned half
    device.display(half)
    assert bus.taken() == whole


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_failed_write_leaves_the_next_frame_whole(driver: str) -> None:
    bus = Bus()
    device = WINDOWED[driver](bus)
    device.display(Image.new("1", (128, 64)))
    marked = Image.new("1", (128, 64))
    marked.putpixel((3, 3), 1)
    bus.fail_after = 0
    with pytest.raises(OSError):
        device.display(marked)
    bus.fail_after = None
    bus.messages.clear()
    device.display(marked)
    assert sum(len(m) - 1 for m in bus.messages if m[0] == 0x40) == WIDTH * PAGES
