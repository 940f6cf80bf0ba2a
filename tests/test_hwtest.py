"""make hwtest: the parts that need no VM (the run itself is `make hwtest ARCH=arm64`,
docs/raspberry-pi.md): the panel rebuilt from recorded I2C writes, the device tree's edit, the
initramfs's module order, why a machine cannot run it."""

from __future__ import annotations

import copy
import struct
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from luma.core.interface.serial import i2c as luma_i2c
from luma.oled.device import ssd1306 as luma_ssd1306
from PIL import Image, ImageDraw

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools" / "hwtest"))
sys.path.insert(0, str(REPO / "tools" / "systest"))  # what hwtest takes from systest and pitest
sys.path.insert(0, str(REPO / "tools" / "pitest"))

import checks_glitch  # noqa: E402
import checks_readers  # noqa: E402
import checks_start  # noqa: E402
import disk  # noqa: E402
import hwbase  # noqa: E402
import hwrun  # noqa: E402
import hwtest  # noqa: E402
import kernel  # noqa: E402
import ssd1306  # noqa: E402


class RecordingBus:
    """smbus2's calls luma makes, recorded as i2c-record would (control byte first)."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []

    def write_i2c_block_data(self, addr: int, control: int, data: list[int]) -> None:
        self.messages.append(bytes([control, *data]))

    def i2c_rdwr(self, *msgs: object) -> None:
        for msg in msgs:
            self.messages.append(bytes(msg))  # type: ignore[call-overload]

    def close(self) -> None:
        pass


def panel_after(images: list[Image.Image]) -> tuple[ssd1306.Ssd1306, list[bytes]]:
    bus = RecordingBus()
    device = luma_ssd1306(luma_i2c(bus=bus, address=0x3C), width=128, height=64)
    for image in images:
        device.display(image)
    panel = ssd1306.Ssd1306()
    blob = b"".join(struct.pack("<QHH", n, 0x3C, len(m)) + m for n, m in enumerate(bus.messages))
    writes, rest = ssd1306.parse_records(blob)
    assert rest == b"" and len(writes) == len(bus.messages)
    for w in writes:
        panel.feed(w.data)
    return panel, bus.messages


def drawn(text: str, box: tuple[int, int, int, int] | None = None) -> Image.Image:
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.text((3, 5), text, fill=1)
    if box:
        draw.rectangle(box, outline=1)
    return image


def test_a_frame_luma_sends_comes_back_pixel_for_pixel() -> None:
    image = drawn("Choose a game", (0, 0, 127, 63))
    panel, _ = panel_after([image])
    assert panel.on
    assert ssd1306.differing(panel.pixels(), ssd1306.image_pixels(image)) == 0


def test_luma_sends_only_what_changed_and_the_panel_still_matches() -> None:
    first, second = drawn("Dice"), drawn("Dice", (100, 40, 120, 60))
    panel, _ = panel_after([first, second])
    assert ssd1306.differing(panel.pixels(), ssd1306.image_pixels(second)) == 0
    assert ssd1306.differing(panel.pixels(), ssd1306.image_pixels(first)) > 0


def test_a_missing_pixel_is_counted() -> None:
    image = drawn("Trap")
    panel, _ = panel_after([image])
    wrong = image.copy()
    wrong.putpixel((127, 63), 1)
    assert ssd1306.differing(panel.pixels(), ssd1306.image_pixels(wrong)) == 1


@given(st.binary(max_size=64))
def test_a_cut_record_is_kept_for_the_next_read(tail: bytes) -> None:
    whole = struct.pack("<QHH", 7, 0x3C, 3) + b"\x00\xae\xaf"
    writes, rest = ssd1306.parse_records(whole + struct.pack("<QHH", 8, 0x3C, 200) + tail)
    assert [(w.t_ns, w.data) for w in writes] == [(7, b"\x00\xae\xaf")]
    assert len(rest) == 12 + len(tail)


def test_page_addressing_is_followed_too() -> None:
    panel = ssd1306.Ssd1306()
    panel.feed(bytes([0x00, 0x20, 0x02, 0xB3, 0x05, 0x12]))  # page mode, page 3, column 0x25
    panel.feed(bytes([0x40, 0xFF]))
    assert panel.ram[3 * 128 + 0x25] == 0xFF
    assert sum(map(sum, panel.pixels())) == 8


DTS = """/dts-v1/;

/ {
\tinterrupt-parent = <0x8002>;
\tmodel = "linux,dummy-virt";

\tpl061@9030000 {
\t\tcompatible = "arm,pl061\\0arm,primecell";
\t};

\tgpio-keys {
\t\tcompatible = "gpio-keys";
\t};
};
"""


def test_the_device_tree_gets_a_pi_revision_and_loses_the_pl061() -> None:
    out = disk.edit_dts(DTS, 0xC03114, ["pl061@", "gpio-keys"])
    assert "\tsystem {\n\t\tlinux,revision = <0xc03114>;\n\t};" in out
    assert out.count('status = "disabled";') == 2
    assert out.index("pl061@") < out.index('status = "disabled"')


def test_initramfs_modules_come_after_what_they_need() -> None:
    dep = (
        "kernel/fs/ext4/ext4.ko: kernel/fs/mbcache.ko kernel/fs/jbd2/jbd2.ko kernel/lib/crc16.ko\n"
        "kernel/fs/jbd2/jbd2.ko:\nkernel/fs/mbcache.ko:\nkernel/lib/crc16.ko:\n"
        "kernel/drivers/block/virtio_blk.ko:\n"
    )
    order = kernel.module_closure(dep, ["virtio_blk", "ext4"])
    assert order[0] == "kernel/drivers/block/virtio_blk.ko" and order[-1].endswith("ext4.ko")
    assert set(order) == {line.split(":")[0] for line in dep.splitlines()}
    with pytest.raises(hwbase.Failed, match="no module gpio_sim"):
        kernel.module_closure(dep, ["gpio_sim"])


@pytest.mark.parametrize(
    ("euid", "have", "arch", "says"),
    [
        (1000, True, "arm64", "needs root"),
        (0, False, "arm64", "needs qemu-system-aarch64 (apt-get install qemu-system-arm)"),
        (0, True, "armhf", "boots arm64 only"),
    ],
)
def test_a_machine_that_cannot_run_it_is_told_why(
    euid: int, have: bool, arch: str, says: str
) -> None:
    problem = hwtest.host_problem(euid, lambda tool: "/usr/bin/x" if have else None, arch)
    assert problem is not None and says in problem
    assert hwtest.host_problem(0, lambda tool: "/usr/bin/x", "arm64") is None


def test_the_recipe_names_every_piece() -> None:
    recipe = hwbase.load_recipe(hwbase.RECIPE.read_bytes())
    assert recipe["machine"]["cpu"] == "cortex-a72"
    assert "drivers/gpio/gpio-sim.c" in recipe["source_files"]
    with pytest.raises(ValueError, match="missing"):
        hwbase.load_recipe(b'kernel_meta = "x"\n')


def _answer(marks_ms: list[float]) -> dict[str, object]:
    ns = [int(m * 1e6) for m in marks_ms]
    return {"edges": ns[:-1], "t_down": ns[0], "t_up": ns[-1]}


def test_a_glitch_stretched_by_host_load_is_not_taken_for_one() -> None:
    meant = checks_glitch.line_intervals(_answer([0.0, 3.1]))
    assert meant == pytest.approx([3.1])
    assert checks_glitch.stimulus_valid(meant, hold_last=False)
    stretched = checks_glitch.line_intervals(_answer([0.0, 8.7]))
    assert not checks_glitch.stimulus_valid(stretched, hold_last=False)
    assert not checks_glitch.stimulus_valid([], hold_last=False)


def test_a_bounce_counts_its_pulses_not_its_hold() -> None:
    # down, up, down, up, down (bounces of 0.3 ms), then held 100 ms and let go
    marks = [0.0, 0.3, 0.6, 0.9, 1.2, 101.2]
    intervals = checks_glitch.line_intervals(_answer(marks))
    assert len(intervals) == 5 and intervals[-1] == pytest.approx(100.0)
    assert checks_glitch.stimulus_valid(intervals, hold_last=True)
    late = checks_glitch.line_intervals(_answer([0.0, 0.3, 6.3, 6.6, 6.9, 106.9]))
    assert not checks_glitch.stimulus_valid(late, hold_last=True)


@given(st.lists(st.floats(0.01, 50.0), min_size=1, max_size=9))
def test_intervals_add_up_to_the_press(gaps: list[float]) -> None:
    marks = [0.0]
    for gap in gaps:
        marks.append(marks[-1] + gap)
    intervals = checks_glitch.line_intervals(_answer(marks))
    assert sum(intervals) == pytest.approx(marks[-1], abs=1e-3)
    assert checks_glitch.stimulus_valid(intervals, hold_last=False) == all(
        g < hwbase.GLITCH_VALID_MS for g in intervals
    )


def test_the_buzzer_must_toggle_during_the_cue_and_end_still_and_low() -> None:
    pin = str(hwbase.BUZZER)
    during = {"samples": 2000, "edges": {pin: 80}}
    low = {"edges": {pin: 0}, "duty": {pin: 0.0}, "last": {pin: False}}
    ok, text = checks_readers.buzzer_verdict(during, low, ["card_unknown"])
    assert ok and "still and low" in text
    left_high = {"edges": {pin: 0}, "duty": {pin: 1.0}, "last": {pin: True}}
    ok, text = checks_readers.buzzer_verdict(during, left_high, ["card_unknown"])
    assert not ok and "HIGH" in text
    ok, text = checks_readers.buzzer_verdict({"samples": 2000, "edges": {pin: 0}}, low, [])
    assert not ok and "toggled 0 times" in text
    ok, _ = checks_readers.buzzer_verdict({}, low, [])  # the sampler's answer never came
    assert not ok


class _QuietAgent:
    """An agent whose box never writes again."""

    def __init__(self) -> None:
        self.drains = 0

    def guest(self, *args: str) -> dict[str, str]:
        self.drains += 1
        return {"log": ""}


def test_a_wrong_frame_no_longer_drawn_is_final_after_the_quiet_guard() -> None:
    from types import SimpleNamespace

    agent = _QuietAgent()
    run = hwrun.Run(SimpleNamespace(agent=agent), None, None, "", None, None)  # type: ignore[arg-type]
    want = [[0] * ssd1306.WIDTH for _ in range(ssd1306.HEIGHT)]
    want[63][127] = 1  # the panel is blank: one pixel off
    diff, took = run.settle_on(want, guard=30.0, quiet=0.05)
    assert diff == 1 and took < 30.0 and agent.drains >= 1
    diff, _ = run.settle_on([[0] * ssd1306.WIDTH for _ in range(ssd1306.HEIGHT)], quiet=0.05)
    assert diff == 0


def test_a_glitch_check_says_why_it_proves_nothing() -> None:
    assert checks_glitch.stretched_note("pulse", True, 1, 0) == ""
    assert "no pulse under 4.0 ms in 5 tries" in checks_glitch.stretched_note("pulse", False, 5, 0)
    said = checks_glitch.stretched_note("bounce", False, 1, 1232)
    assert "1232 px off" in said and "tries" not in said


def test_checks_to_repeat_are_read_from_hwtest_repeat() -> None:
    assert checks_glitch.parse_repeat("") == {}
    assert checks_glitch.parse_repeat("glitch,bounce:20") == {"glitch": 20, "bounce": 20}
    assert checks_glitch.parse_repeat("glitch:30; bounce:5") == {"glitch": 30, "bounce": 5}
    for bad, why in [
        ("glitch", "give CHECKS:N"),
        ("glitch:0", "give CHECKS:N"),
        ("glitch:x", "give CHECKS:N"),
        ("buttons:3", "'buttons' cannot be repeated"),
        (":3", "'' cannot be repeated"),
    ]:
        with pytest.raises(ValueError, match=why):
            checks_glitch.parse_repeat(bad)


def test_only_names_checks_the_run_records() -> None:
    assert checks_glitch.parse_only("glitch,bounce") == {"glitch", "bounce"}
    assert checks_glitch.parse_only("power-cut") == {"power cut"}
    with pytest.raises(ValueError, match="no check glitches"):
        checks_glitch.parse_only("glitches")


def test_a_repeated_check_passes_only_when_every_run_did() -> None:
    runs = [checks_glitch.Attempt(True, "fine", t, ms) for t, ms in [(1, 3.1), (1, 3.4), (3, 3.2)]]
    ok, text = checks_glitch.repeated("glitch", runs, [2.5, 4.0])
    assert ok and text.startswith("3/3 runs passed; stimulus tries per run 1: 2, 3: 1 ")
    assert "pulse at most 3.1-3.4 ms; load average 2.5-4.0" in text
    runs.insert(1, checks_glitch.Attempt(False, "the frame is NOT one press on", 1, 3.0))
    ok, text = checks_glitch.repeated("glitch", runs, [])
    assert not ok and text.startswith("3/4 runs passed")
    assert text.endswith("failed runs 2; run 2: the frame is NOT one press on")


class _Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.append(text)


def test_repeated_checks_take_turns_in_one_boot_and_the_default_runs_each_once(
    monkeypatch,
) -> None:
    order: list[str] = []

    def fake(name: str, fails_on: int = 0):
        def check(r: hwrun.Run) -> checks_glitch.Attempt:
            order.append(name)
            n = order.count(name)  # a failed run is followed by a restart of both
            ok = n != fails_on
            return checks_glitch.Attempt(ok, f"{name} run {n}", 1 + n % 2, 3.0 + n / 10)

        return check

    monkeypatch.setattr(
        checks_glitch, "CHECKS", {"glitch": fake("glitch"), "bounce": fake("bounce", 2)}
    )
    monkeypatch.setattr(checks_glitch, "resync", lambda r: order.append("both restarted"))
    monkeypatch.setattr(hwrun.Run, "save_frame", lambda self, name, pixels=None: None)
    once = hwrun.Run(None, None, _Log(), "", None, None)  # type: ignore[arg-type]
    checks_glitch.step_glitch_and_bounce(once)
    assert [(x.name, x.ok, x.text) for x in once.results] == [
        ("glitch", True, "glitch run 1"),
        ("bounce", True, "bounce run 1"),
    ]
    order.clear()
    sim = SimpleNamespace(frame=lambda: [])
    many = hwrun.Run(None, sim, _Log(), "", None, None, repeat={"glitch": 3, "bounce": 2})  # type: ignore[arg-type]
    checks_glitch.step_glitch_and_bounce(many)
    assert order == ["glitch", "bounce", "glitch", "bounce", "both restarted", "glitch"]
    assert [(x.name, x.ok) for x in many.results] == [("glitch x3", True), ("bounce x2", False)]
    assert many.results[0].text.startswith("3/3 runs passed; stimulus tries per run 1: 1, 2: 2")
    assert "failed runs 2; run 2: bounce run 2" in many.results[1].text


class _DrawingAgent:
    """An agent whose box draws one more frame, then nothing."""

    def __init__(self, writes: list[str]) -> None:
        self.writes = writes
        self.asked: list[tuple[str, ...]] = []

    def guest(self, *args: str) -> dict[str, str]:
        self.asked.append(args)
        return {"log": self.writes.pop(0) if self.writes else ""}


def test_a_stretched_try_is_read_once_the_box_has_drawn_all_it_will(monkeypatch) -> None:
    agent = _DrawingAgent(["late frame"])
    run = hwrun.Run(SimpleNamespace(agent=agent), None, _Log(), "", None, None)  # type: ignore[arg-type]
    fed: list[str] = []
    monkeypatch.setattr(
        hwrun.Run, "feed", lambda self, b64: fed.append(b64) or ([1] if b64 else [])
    )
    run.quiet(hwbase.STRETCHED_QUIET)
    assert fed == ["late frame", ""]  # the late frame taken, then a quiet spell to end on
    assert agent.asked == [("drain", "3.0")] * 2


@pytest.mark.parametrize("fault", sorted(hwbase.FAULTS))
def test_each_fault_still_patches_the_box_as_it_is(tmp_path, fault) -> None:
    """HWTEST_FAULT patches the installed package by text: a change of the product's lines
    must not leave a fault that no longer applies (lose-press did, once the button edges took
    lgpio's stamps)."""
    import shutil
    import subprocess

    site = tmp_path / "companion"
    shutil.copytree(REPO / "companion", site)
    script, target = checks_start.fault_patch(fault, str(site))
    before = Path(target).read_text()
    proc = subprocess.run([sys.executable, "-c", script, target], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    after = Path(target).read_text()
    assert after != before
    compile(after, target, "exec")


def test_the_lose_press_fault_drops_every_third_press(tmp_path) -> None:
    import importlib.util
    import subprocess

    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from companion.core.clock import VirtualClock

    target = tmp_path / "buttons.py"
    target.write_text((REPO / "companion" / "hal" / "buttons.py").read_text())
    script, _ = checks_start.fault_patch("lose-press", str(tmp_path))
    subprocess.run([sys.executable, "-c", script, str(target)], check=True)
    spec = importlib.util.spec_from_file_location("lossy_buttons", target)
    assert spec is not None and spec.loader is not None
    lossy = importlib.util.module_from_spec(spec)
    sys.modules["lossy_buttons"] = lossy  # its dataclasses look their module up
    try:
        spec.loader.exec_module(lossy)
    finally:
        del sys.modules["lossy_buttons"]
    factory = MockFactory(pin_class=MockPWMPin)
    posted: list = []
    pins = lossy.ButtonPins({"green": 26}, factory, posted.append, VirtualClock())
    try:
        pin = factory.pin(26)
        for _ in range(6):
            pin.drive_low()
            pin.drive_high()
        # the third and the sixth press never reach the loop; every release does
        assert [sum(e.pressed == p for e in posted) for p in (True, False)] == [4, 6]
    finally:
        pins.close()
        factory.reset()
        factory.close()


def _windowed_writes(images: list[Image.Image]) -> tuple[list[ssd1306.Write], list[int]]:
    """The box's own driver (only the changed window) through luma's i2c, stamped 1, 2, ...;
    and how many writes each image took (the first with luma's init and clearing)."""
    from companion.hal.panel import ssd1306 as windowed

    bus = RecordingBus()
    device = windowed(luma_i2c(bus=bus, address=0x3C), width=128, height=64)
    counts = []
    before = 0
    for image in images:
        device.display(image)
        counts.append(len(bus.messages) - before)
        before = len(bus.messages)
    writes = [ssd1306.Write(n + 1, 0x3C, m) for n, m in enumerate(bus.messages)]
    return writes, counts


def test_the_windows_the_box_sends_rebuild_each_frame_and_its_last_write_is_found() -> None:
    frames = [drawn("Dice"), drawn("Dice", (100, 40, 120, 60)), drawn("Dice", (2, 2, 9, 9))]
    writes, counts = _windowed_writes(frames)
    panel = ssd1306.Ssd1306()
    at = 0
    for image, count in zip(frames, counts, strict=True):
        before = copy.deepcopy(panel)
        mine = writes[at : at + count]
        want = ssd1306.image_pixels(image)
        # Done at one of its own writes (the one with its last changed byte), even with more
        # writes after it: the panel shows it from there, and not one write earlier.
        done = ssd1306.frame_done_at(before, writes[at:], want)
        assert done is not None and mine[0].t_ns <= done <= mine[-1].t_ns
        shown = copy.deepcopy(before)
        for w in writes[at:]:
            if w.t_ns == done:
                assert ssd1306.differing(shown.pixels(), want) > 0
            shown.feed(w.data)
            if w.t_ns == done:
                assert ssd1306.differing(shown.pixels(), want) == 0
                break
        for w in mine:
            panel.feed(w.data)
        assert ssd1306.differing(panel.pixels(), want) == 0
        at += count
    later = writes[counts[0] : counts[0] + counts[1]]
    assert sum(len(w.data) for w in later) < 1 + 1024  # a window, not the whole frame
    assert ssd1306.frame_done_at(panel, [], panel.pixels()) is None  # nothing left to draw


def test_press_to_the_frames_last_write_is_read_from_the_writes_after_the_press() -> None:
    frames = [drawn("Menu"), drawn("Menu", (0, 20, 127, 30))]
    writes, counts = _windowed_writes(frames)
    run = hwrun.Run(SimpleNamespace(agent=None), None, None, "", None, None)  # type: ignore[arg-type]
    for w in writes[: counts[0]]:
        run.panel.feed(w.data)
    later = [ssd1306.Write(5_000_000 + w.t_ns * 1_000_000, w.address, w.data) for w in writes]
    answer = {"panel": copy.deepcopy(run.panel), "from": 0, "t_up": 1_000_000, "latency_ms": 1}
    run.writes = later[counts[0] :]
    want = ssd1306.image_pixels(frames[1])
    assert run.last_write_ms(answer, want) == (later[-1].t_ns - 1_000_000) / 1e6
    assert run.last_write_ms(answer, ssd1306.image_pixels(drawn("never"))) is None
