"""Faces see the box through Snapshots only: one after every refresh, with what a replay line
prints, the OLED's pixels and the sounds since the last one; a box with no face builds none."""

import io
from dataclasses import replace

from PIL import Image

from companion.core.config import Config
from companion.faces import Face, Snapshot
from companion.replay import run_script
from companion.sim.box import SimulatedBox
from companion.sim.controls import SimControls


class Recorder:
    def __init__(self):
        self.seen: list[Snapshot] = []

    def show(self, snapshot):
        self.seen.append(snapshot)


def _box(tmp_path):
    return SimulatedBox(Config(), state_dir=tmp_path, seed=0, today=lambda: "2000-01-01")


def test_a_face_sees_every_refresh_with_what_a_replay_line_prints(tmp_path):
    box = _box(tmp_path)
    face = Recorder()
    assert isinstance(face, Face)
    box.app.faces.add(face)
    try:
        box.app.start()
        box.loop.drain()
        box.app.new_game("dice", {"die": "2d6"})
        box.app.dice.force([3, 3])
        box.press("green")
        last = face.seen[-1]
    finally:
        box.close()
    seqs = [s.seq for s in face.seen]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    expected = run_script("game dice die=2d6\ndice 3 3\npress green\n")[-1]
    line = last.replay_line()
    for key in ("game", "state", "screen", "leds"):
        assert line[key] == expected[key], key
    assert "roll" in [cue for s in face.seen for cue in s.sounds]
    assert last.size == (128, 64) and len(last.pixels) == 128 * 64 // 8
    assert any(last.pixels)  # something is lit
    assert last.png.startswith(b"\x89PNG")
    assert Image.open(io.BytesIO(last.png)).convert("1").tobytes() == last.pixels
    # a frame shown before is not encoded again (a menu gone back to, a timer's digits)
    again = replace(last, seq=last.seq + 1)
    assert again.png is last.png
    assert last.view.text_lines() == list(last.screen)


def test_sounds_and_log_lines_are_handed_over_once(tmp_path):
    box = _box(tmp_path)
    face = Recorder()
    box.app.faces.add(face)
    try:
        box.app.start()
        box.app.new_game("dice", {})
        box.press("green")
        box.press("green")
    finally:
        box.close()
    rolls = [cue for s in face.seen for cue in s.sounds if cue == "roll"]
    assert len(rolls) == 2  # each roll once, in the snapshot after it
    assert box.app.sounds == [] and box.app.logs == []


def test_without_a_face_no_snapshot_is_made(tmp_path, monkeypatch):
    box = _box(tmp_path)
    made = []
    monkeypatch.setattr(box.app, "snapshot", lambda seq: made.append(seq))
    try:
        box.app.start()
        box.app.new_game("dice", {})
        box.press("green")
    finally:
        box.close()
    assert made == [] and box.app.faces.latest is None


def test_a_failing_face_does_not_stop_the_others_or_the_box(tmp_path):
    class Broken:
        def show(self, snapshot):
            raise RuntimeError("face fell over")

    box = _box(tmp_path)
    face = Recorder()
    box.app.faces.add(Broken())
    box.app.faces.add(face)
    try:
        box.app.start()
        box.app.new_game("dice", {})
        box.press("green")
        assert face.seen[-1].state["last"]
    finally:
        box.close()


def test_sim_controls_press_and_tap_like_a_finger_and_refuse_bad_input(tmp_path):
    box = _box(tmp_path)
    face = Recorder()
    box.app.faces.add(face)
    controls = SimControls(box)
    try:
        box.app.start()
        box.app.new_game("dice", {})
        assert controls.press("green") is True
        box.advance(1.0)
        assert face.seen[-1].state["last"]
        try:
            controls.press("purple")
        except ValueError as err:
            assert "purple" in str(err)
        else:
            raise AssertionError("an unknown button must be refused")
        try:
            controls.tap("not a uid")
        except ValueError as err:
            assert "not a uid" in str(err) or "UID" in str(err) or "uid" in str(err)
        else:
            raise AssertionError("a bad UID must be refused")
        # more presses than a finger could make at once: the later ones are dropped
        taken = [controls.press("down") for _ in range(10)]
        assert taken[0] and not all(taken)
    finally:
        box.close()
