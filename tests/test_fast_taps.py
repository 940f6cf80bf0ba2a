"""Cards laid fast are each a tap: a different card read 0.1 s after the last one is a new tap,
always, through the real drivers on a pty (RDM6300 and PN532), in the app and in the simulator."""

from __future__ import annotations

import dataclasses
import io
import os
import select
import threading
import time
from pathlib import Path

import pytest

from companion.core.clock import RealClock
from companion.core.config import Config
from companion.core.events import Call, Stop
from companion.hal.readers.base import make_driver
from companion.hal.readers.fake import FakePn532, FakeRdm6300
from companion.hal.readers.runner import Presence, ReaderRunner
from companion.sim.box import SimulatedBox
from companion.sim.terminal import TerminalSim

CARDS = 40
GAP = 0.1  # seconds between two cards
# Hang guards, not timings: at a Pi Zero 2 W's pace (emulated, on a busy machine) the loop can
# take seconds to reach a posted call behind forty cards' frames.
GUARD = 60.0


def _uids(kind: str) -> list[str]:
    if kind == "rdm6300":
        return [f"{0x0600000000 + n:010X}" for n in range(CARDS)]
    return [f"{0x04A10000 + n:08X}" for n in range(CARDS)]


def _config(kind: str, state: Path) -> Config:
    config = Config()
    return dataclasses.replace(
        config,
        reader=dataclasses.replace(config.reader, type=kind),
        state=dataclasses.replace(config.state, dir=str(state)),
    )


@pytest.mark.parametrize("kind", ["rdm6300", "pn532"])
def test_forty_cards_a_tenth_of_a_second_apart_are_forty_taps(kind: str) -> None:
    """The table's pace through the driver, the runner and the presence machine, on the real
    clock: each card goes down 0.1 s after the one before (later only if the machine is too
    busy to have read the one before: a timing of the test itself is no part of the claim;
    how fast a card may come is measured by `trap-companion bench`)."""
    device = FakeRdm6300() if kind == "rdm6300" else FakePn532()
    clock = RealClock()
    reads: list[tuple[str, float]] = []
    lock = threading.Lock()

    def seen(uid: str) -> None:
        with lock:
            reads.append((uid, clock.now()))

    runner = ReaderRunner(lambda: make_driver(kind, device.path), seen, lambda text: None)
    runner.start()
    try:
        assert runner.wait_ready(3.0)
        laid = time.monotonic()
        for uid in _uids(kind):
            time.sleep(max(0.0, laid + GAP - time.monotonic()))
            laid = time.monotonic()
            if isinstance(device, FakeRdm6300):
                device.write_frames(uid, 2)  # the module's two reads of the card
            else:
                device.present(uid)
            assert runner.wait_seen_of(uid, 1, 2.0), f"{uid} was never read"
    finally:
        runner.stop()
        device.close()
    presence = Presence(0.5)
    taps = [who for uid, t in reads for what, who in presence.seen(uid, t) if what == "tap"]
    assert taps == _uids(kind)


TO_RUN = ("back", "up", "ok", "ok")  # game menu, its last entry (Enrol copies), Damage 1


@pytest.mark.parametrize("kind", ["rdm6300", "pn532"])
def test_an_enrolment_run_counts_forty_fast_copies(kind: str, tmp_path: Path) -> None:
    box = SimulatedBox(_config(kind, tmp_path), state_dir=tmp_path)
    try:
        box.app.start()
        box.app.new_game("trap-attack", {})
        for button in TO_RUN:
            box.press(button)
        assert box.app.shown[0].title == "Damage 1"
        for uid in _uids(kind):
            box.tap(uid, GAP)
        assert box.app.shown[0].lines[0] == f"{CARDS} copies enrolled"
        assert len(box.app.registry.cards) == CARDS
    finally:
        box.close()


@pytest.mark.parametrize("kind", ["rdm6300", "pn532"])
def test_uids_typed_in_the_simulator_a_tenth_of_a_second_apart_all_tap(
    kind: str, tmp_path: Path
) -> None:
    sim = TerminalSim(_config(kind, tmp_path), out=io.StringIO())
    app = sim.app
    consumer = threading.Thread(target=app.loop.run, daemon=True)
    try:
        app.start()
        consumer.start()
        on_loop = threading.Event()

        def open_run() -> None:
            app.new_game("trap-attack", {})
            app.open_session_menu()
            app.on_press("up", False)  # the last entry: Enrol copies
            app.on_press("ok", False)  # Enrol copies
            app.on_press("ok", False)  # of Damage 1
            on_loop.set()

        app.loop.post(Call(open_run))
        assert on_loop.wait(GUARD)
        start = time.monotonic()
        for n, uid in enumerate(_uids(kind)):
            for key in ["u", *uid, "\r"]:
                assert sim.key(key)
            time.sleep(max(0.0, start + GAP * (n + 1) - time.monotonic()))
        assert sim.controls.hand is not None and sim.controls.hand.wait_idle(GUARD)
        counted: list[int] = []
        done = threading.Event()
        app.loop.post(Call(lambda: (counted.append(app.menu.count), done.set())))
        assert done.wait(GUARD)
        assert counted == [CARDS]
    finally:
        app.loop.post(Stop("test"))
        consumer.join(2.0)
        sim.controls.close()
        sim.box.close()


def test_a_release_from_another_thread_never_leaves_a_card_sending() -> None:
    """The box stuck on one card ("again 0600000061" for every tap, other cards read as it)
    was the simulator's fake RDM6300: a tap's release ran on the loop thread while the next
    tap's hold ran on the key thread, and the release could forget the new transmitter, which
    then sent its tag for ever. Each is now one step under a lock."""
    device = FakeRdm6300()
    uids = _uids("rdm6300")
    try:
        for n in range(200):
            other = threading.Thread(target=device.release)
            other.start()
            device.hold(uids[n % CARDS], interval=0.001)
            other.join()
        device.release()
        assert device.held is None
        _drain_slave(device)  # what was sent before the release
        time.sleep(0.2)
        assert _drain_slave(device) == b"", "a tag is still sent after the release"
    finally:
        device.close()


def _drain_slave(device: FakeRdm6300) -> bytes:
    """What reached the reader's side of the pty so far."""
    fd = device.port._slave
    data = b""
    while select.select([fd], [], [], 0)[0]:
        data += os.read(fd, 4096)
    return data


CLAIM = "game hostage-trap\ntap @hostage-red\ntap @hostage-blue\ntap @hostage-green\n"


def test_cards_tapped_while_the_form_the_first_opened_is_answered_are_taken_after_it(
    tmp_path: Path,
) -> None:
    """A claim's hostages laid fast: the first asks whose they are; the next two wait for the
    answer instead of being lost under the form."""
    from companion.replay import run_script

    out = run_script(CLAIM + "press ok\n", state_dir=tmp_path)
    assert out[2]["screen"][0] == "Who claims?" and out[3]["screen"][0] == "Who claims?"
    assert out[4]["state"]["winner"] == 1
    assert "red, blue, green" in out[4]["log"][-1]


def test_cards_held_for_a_form_left_with_back_are_dropped_and_the_screen_says_so(
    tmp_path: Path,
) -> None:
    from companion.replay import run_script

    out = run_script(CLAIM + "press back\n", state_dir=tmp_path)
    assert out[4]["screen"][1:3] == ["2 tapped cards", "not taken:"]
    assert out[4]["state"]["winner"] is None
    assert "2 tapped cards dropped with the form" in out[4]["log"]


def test_cards_held_for_a_form_the_game_closes_by_itself_are_dropped_and_said(
    tmp_path: Path,
) -> None:
    """A turn that runs out closes the question on screen; the cards tapped while it was open
    go with it, and the screen says so."""
    from companion.replay import run_script

    script = "game hostage-trap turn_seconds=30\npress green\ntap @hostage-red\nwait 40\n"
    out = run_script(script, state_dir=tmp_path)
    assert out[2]["log"][-1].endswith("taken once the form is done")
    assert "1 tapped cards dropped with the form" in out[3]["log"]
    assert out[3]["state"]["turn"] == 2


def test_a_card_tapped_while_the_seat_menu_is_open_is_kept_when_back_leaves_it(
    tmp_path: Path,
) -> None:
    """Issue 42, point 11: a hostage tapped while the seat's menu (opened by ok, not by a card)
    was open was dropped by back ("1 tapped card not taken: tap again"). It is kept for the
    turn: played as the menu closes, as if tapped then."""
    from companion.replay import run_script

    script = "game hostage-trap\npress ok\ntap @hostage-red\npress back\npress ok\n"
    out = run_script(script, state_dir=tmp_path)
    assert out[2]["log"][-1].endswith("taken once the form is done")
    left = out[3]
    assert left["screen"][0] == "Who claims?"  # the hostage's own question, in the same turn
    assert not any("dropped" in line for line in left["log"])
    assert left["state"]["turn"] == 1
    assert out[4]["log"] == ["Seat 1 shows a hostage (1 seen)"]
