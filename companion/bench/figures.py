"""The box's own figures, measured on the simulated box with the real clock: a button or a card
to the frame it drew (through everything the box runs: gpiozero's mock pin edge or the pty byte,
the queue, the consumer, debounce or presence, the rules, the journal's fsync, the renderer and
the luma device call), the PN532 under noise, idle CPU, the turn timer, cards laid fast."""

from __future__ import annotations

import contextlib
import logging
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.bench.box import _FrameWatch, _idle_for, _latency
from companion.bench.box import running_box as _running_box
from companion.bench.box import start_game as _start_game
from companion.bench.box import stop as _stop
from companion.bench.phones import _web_face
from companion.core.clock import RealClock
from companion.core.events import Call
from companion.games.base import Action
from companion.hal.readers import pn532
from companion.hal.readers.base import make_driver
from companion.hal.readers.fake import FakePn532, FakeRdm6300
from companion.hal.readers.runner import Presence, ReaderRunner
from companion.sim.box import SimulatedBox


def button_latency(presses: int = 1000, repress: bool = False) -> dict[str, float]:
    """Release edge of a green press (a short press is known at release) -> new frame.
    ``repress``: the finger presses again half a debounce window after each release, while
    the loop is still busy with it (an edge inside the window, reconciled when it closes);
    a press lost so would leave the next release without a frame, and the bench fails."""

    def prepare(box: SimulatedBox, i: int) -> Callable[[], None]:
        pin = box.pin("green")
        debounce = box.config.buttons.debounce_ms / 1000
        if not (repress and i):  # else still down from the last re-press
            pin.drive_low()
        time.sleep(debounce * 2)  # the harness's finger

        def release() -> None:
            pin.drive_high()
            if repress:
                time.sleep(debounce / 2)
                pin.drive_low()

        return release

    return _latency("button_repress" if repress else "button", presses, prepare)


def card_latency(taps: int = 300) -> dict[str, float]:
    """Last byte of the confirming RDM6300 frame written to the pty -> new frame. Two cards
    alternate, so every confirmed frame is a new tap (an unknown card's notice)."""

    def prepare(box: SimulatedBox, i: int) -> Callable[[], None]:
        device = box.device
        assert isinstance(device, FakeRdm6300)
        uid = ("00DEADBEE1", "00DEADBEE2")[i % 2]
        time.sleep(0.002)
        device.write_frames(uid, 1)  # the first frame; the trigger writes the confirming one
        time.sleep(0.002)
        return lambda: device.write_frames(uid, 1)

    return _latency("card", taps, prepare)


PN532_LIFT_SECONDS = 0.25  # the harness's hand: a card lifted this long before the next comes


def pn532_card_latency(taps: int = 100) -> dict[str, float]:
    """A card put on the fake PN532 (its answer written to the pty at once if the driver is
    waiting for one) -> new frame. The previous card was lifted a quarter second before, as a
    hand moves from card to card; two cards alternate, so every arrival is a new tap."""

    def prepare(box: SimulatedBox, i: int) -> Callable[[], None]:
        device = box.device
        assert isinstance(device, FakePn532)
        device.remove()
        time.sleep(PN532_LIFT_SECONDS)
        uid = ("04A1B2C3", "04D5E6F7")[i % 2]
        return lambda: device.present(uid)

    return _latency("pn532_card", taps, prepare, reader="pn532")


def _pn532_read(stream: bytes) -> tuple[list[str], bytes]:
    """What the driver takes from one read: the first answer to InListPassiveTarget in the
    bytes, checked field by field; and that answer."""
    reply = bytes([pn532.CHIP_TFI, pn532.IN_LIST_PASSIVE_TARGET + 1])
    for frame in pn532.Pn532FrameParser().feed(stream):
        if frame.kind == "data" and frame.payload[:2] == reply:
            return pn532.parse_target_uid(frame.payload[2:]), frame.payload[2:]
    return [], b""


def pn532_false_uids(
    streams: int = 100_000, rates: tuple[float, ...] = (1e-3, 1e-2), seed: int = 15
) -> dict[str, Any]:
    """False cards from the PN532 under noise: per noise, ``streams`` card reads (the ACK and
    the answer for a random 4, 7 or 10-byte UID) fuzzed (fake.fuzz) or with independent bit
    errors at each rate, through the frame parser and the answer's field checks. ``one read``
    counts the UIDs a single read would report that are not the card's; ``confirmed`` the
    ones reported after a second, independently damaged read agreed (pn532.Confirmation, as
    the driver reads); ``unconfirmed`` the true card's reads delayed by a damaged second read."""
    import random

    from companion.hal.readers.fake import flip_bits, fuzz, random_uid, target_answer

    logging.getLogger(pn532.__name__).setLevel(logging.INFO)  # its debug lines: one a frame
    results: dict[str, Any] = {"pn532_noise_streams": streams}
    for noise in ("fuzz", *rates):
        rng = random.Random(f"{seed}:{noise}")

        def damage(data: bytes, noise: object = noise, rng: random.Random = rng) -> bytes:
            return fuzz(data, rng) if noise == "fuzz" else flip_bits(data, float(noise), rng)

        single = confirmed = delayed = thrice = 0
        for _ in range(streams):
            uid = random_uid(rng)
            clean = pn532.ACK + target_answer(uid)
            reads = [_pn532_read(damage(clean)) for _ in range(3)]
            true = [uid.hex().upper()]
            single += bool(reads[0][0]) and reads[0][0] != true
            two, three = pn532.Confirmation(2), pn532.Confirmation(3)
            for uids, answer in reads[:2]:
                reported = two.seen(uids, answer)
            for uids, answer in reads:
                reported_3 = three.seen(uids, answer)
            confirmed += bool(reported) and reported != true
            delayed += reported != true
            thrice += bool(reported_3) and reported_3 != true
        name = "fuzz" if noise == "fuzz" else f"ber_{noise:g}"
        results[f"pn532_false_uids_{name}_one_read"] = single
        results[f"pn532_false_uids_{name}_confirmed"] = confirmed
        results[f"pn532_false_uids_{name}_three_reads"] = thrice
        results[f"pn532_unconfirmed_{name}"] = delayed
    return results


def idle_cpu(seconds: float = 10.0, reader: str = "rdm6300", web: bool = False) -> dict[str, float]:
    """CPU used by the whole box (loop, reader thread, gpiozero, and the fake reader's own
    thread) with a game open, untouched, no card near; and the voluntary context switches of
    all its threads per second, which is how often something woke up. ``web``: with the
    simulator's web face on and one page's event stream open (aiohttp imported only then)."""
    watch = _FrameWatch()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        box, consumer = _running_box(Path(tmp), watch, reader)
        try:
            if web:
                stack.enter_context(_web_face(box))
            _start_game(box, watch, "dice")
            time.sleep(0.5)
            cpu, wakeups = _idle_for(seconds)
        finally:
            _stop(box, consumer)
    prefix = ("" if reader == "rdm6300" else f"{reader}_") + ("web_" if web else "")
    return {
        f"{prefix}idle_cpu_percent": cpu,
        f"{prefix}idle_wakeups_per_s": wakeups,
        f"{prefix}idle_seconds": seconds,
    }


def timer_precision(turns: int = 5, seconds: float = 2.0) -> dict[str, float]:
    """Trapwords turn timer on the real clock: from the start action to the time-up being
    applied (journaled and shown), over repeated turns: each error on its own, so drift shows."""
    from companion.games import registry

    if "trapwords" not in registry.available():
        return {}
    watch = _FrameWatch()
    errors: list[float] = []
    expiry: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        box, consumer = _running_box(Path(tmp), watch)
        try:
            _start_game(box, watch, "trapwords", seconds=str(seconds), start_mode="pickup")
            app = box.app
            for _ in range(turns):
                done = threading.Event()
                started = [0.0]

                def begin(started: list[float] = started) -> None:
                    app.sounds.clear()
                    started[0] = time.perf_counter()
                    app.submit(Action("start"))
                    app.refresh()

                def watch_sounds(done: threading.Event = done) -> None:
                    if "time_up" in app.sounds:
                        done.set()

                app.on_refresh.append(watch_sounds)
                box.loop.post(Call(begin))
                if not done.wait(seconds + 5):
                    raise RuntimeError("the turn timer never ran out")
                ended = time.perf_counter()
                app.on_refresh.remove(watch_sounds)
                errors.append(abs((ended - started[0]) - seconds) * 1000)
                stamps = {s.action.name: s.action.at for s in app.session.steps if s.action}
                expiry.append(abs(stamps["timeout"] - stamps["start"] - seconds) * 1000)
        finally:
            _stop(box, consumer)
    return {
        "timer_expiry_ms": round(max(expiry), 3),  # the clock's own error: start -> timeout
        "timer_error_ms": round(max(errors), 3),
        "timer_errors_ms": [round(e, 3) for e in errors],  # one per turn: drift would grow
        "timer_turns": turns,
        "timer_seconds": seconds,
    }


FAST_CARD_GAP = 0.1  # seconds between two cards laid at a table's quickest


def fast_cards(cards: int = 40, reader: str = "rdm6300") -> dict[str, float]:
    """Cards laid on the real driver 0.1 s apart, each replacing the last, on the real clock
    (an RDM6300 sends each card's two frames, a PN532 card lies until the next): how many
    never became a tap. No waiting for a read here: that is what is measured."""
    device = FakeRdm6300() if reader == "rdm6300" else FakePn532()
    reads: list[tuple[str, float]] = []
    clock = RealClock()
    runner = ReaderRunner(
        lambda: make_driver(reader, device.path),
        lambda uid: reads.append((uid, clock.now())),
        lambda text: None,
    )
    runner.start()
    uids = [
        f"{0x0600000000 + n:010X}" if reader == "rdm6300" else f"{0x04A10000 + n:08X}"
        for n in range(cards)
    ]
    try:
        if not runner.wait_ready(5.0):
            raise RuntimeError(f"the {reader} reader did not open: {runner.status}")
        start = time.monotonic()
        for n, uid in enumerate(uids):
            if isinstance(device, FakeRdm6300):
                device.write_frames(uid, 2)
            else:
                device.present(uid)
            time.sleep(max(0.0, start + FAST_CARD_GAP * (n + 1) - time.monotonic()))
        runner.wait_seen_of(uids[-1], 1, 1.0)
    finally:
        runner.stop()
        device.close()
    presence = Presence()
    taps = {who for uid, t in list(reads) for what, who in presence.seen(uid, t) if what == "tap"}
    prefix = "" if reader == "rdm6300" else "pn532_"
    return {f"{prefix}fast_cards_lost": float(len(set(uids) - taps))}
