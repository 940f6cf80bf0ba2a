"""The readers and the panel: an RDM6300 card and the buzzer, the reader unplugged and back,
the PN532, the panel gone and back."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import ssd1306
import sysbase  # tools/systest/sysbase.py: Log, Skip, NAME, the parsers
from hwbase import (
    BAUD_RDM6300,
    BUZZER,
    BUZZER_SAMPLE_SECONDS,
    CARD_PN532,
    CARD_RDM6300,
    CONFIG,
    FRAME_GUARD,
    PN532_PORT,
    PRESS_SECONDS,
    SHARE_TAG,
    UNIT,
)
from hwrun import Run


def journal_since(r: Run, cursor: str) -> str:
    return r.agent.sh(f"journalctl -u {UNIT} -o cat --after-cursor='{cursor}'", check=False)


def cursor(r: Run) -> str:
    out = r.agent.sh(f"journalctl -u {UNIT} -n 1 --show-cursor -o cat", check=False)
    match = re.search(r"-- cursor: (\S+)", out)
    return match.group(1) if match else ""


def guest_offset(r: Run) -> tuple[float, float]:
    """Guest CLOCK_MONOTONIC minus host monotonic (ns), and the round trip that bounds its
    error: the agent stamps its answer after running `true`, between our send and receive."""
    best: tuple[float, float] | None = None
    for _ in range(5):
        t0 = time.monotonic_ns()
        g = r.agent.call(["true"], timeout=10)["t"]
        t1 = time.monotonic_ns()
        if best is None or t1 - t0 < best[1]:
            best = (g - t1, t1 - t0)  # the stamp is late in the round trip: nearer t1
    assert best is not None
    return best


def paced(port: Any, data: bytes, baud: int) -> int:
    """Write DATA a byte at a time at BAUD's pace (10 bits a byte); the first byte's time."""
    first = time.monotonic_ns()
    step = 10 / baud
    for i, byte in enumerate(data):
        port.write(bytes([byte]))
        target = first / 1e9 + (i + 1) * step
        delay = target - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    return first


def step_cards(r: Run) -> None:
    from companion.hal.readers.fake import encode_frame

    offset, rtt = guest_offset(r)
    mark = cursor(r)
    r.feed(r.agent.guest("drain", "0.5")["log"])
    frame = encode_frame(CARD_RDM6300)
    sampler = "/tmp/hwtest-buzzer.json"
    ready = f"{sampler}.ready"
    # The sampler reads the line before the card's first byte leaves (it takes a second or two
    # to start under TCG, longer than the whole cue): it waits, the card waits for it.
    r.agent.sh(
        f"rm -f {sampler} {ready}; (python3 /mnt/{SHARE_TAG}/tools/hwtest/guest.py sample "
        f"{BUZZER} {BUZZER_SAMPLE_SECONDS} --ready {ready} > {sampler}.part && mv {sampler}.part "
        f"{sampler}) >/dev/null 2>&1 &"
    )
    r.agent.sh(f"for i in $(seq 600); do [ -e {ready} ] && exit 0; sleep 0.05; done; exit 1")
    first = paced(r.rdm.port, frame * 2, BAUD_RDM6300)
    for _ in range(3):
        time.sleep(0.1)
        paced(r.rdm.port, frame, BAUD_RDM6300)
    r.sim.tap(CARD_RDM6300)
    want = r.sim.frame()
    shown = r.shown_at_some_point(want)
    diff = 0 if shown else ssd1306.differing(r.panel.pixels(), want)
    after = [w.t_ns for w in r.writes if w.t_ns > first + offset]
    to_panel = (min(after) - (first + offset)) / 1e6 if after else float("nan")
    text = journal_since(r, mark)
    logged = CARD_RDM6300.lower() in text.lower() or CARD_RDM6300[-8:].lower() in text.lower()
    r.figures["card_to_panel"] = f"{to_panel:.0f} ms (+-{rtt / 2e6:.0f} ms)"
    buzz = r.agent.sh(
        f"for i in $(seq 100); do [ -e {sampler} ] && break; sleep 0.2; done; cat {sampler}",
        check=False,
    )
    try:
        during = json.loads(buzz)
    except ValueError:
        during = {}
    after = r.agent.guest("sample", str(BUZZER), "0.5")
    cue = r.sim.box.app.sounds if hasattr(r.sim.box.app, "sounds") else []
    r.record("buzzer", *buzzer_verdict(during, after, list(cue)))
    r.save_frame("frame-card-rdm6300")
    r.record(
        "card rdm6300",
        diff == 0 and logged,
        f"{len(frame) * 5} bytes at {BAUD_RDM6300} baud on /dev/serial0 (ttyS0): shown "
        f"({diff} pixels differ from the simulator's frame), in the daemon's log: {logged}; "
        f"first byte to panel write {to_panel:.0f} ms (clock offset +-{rtt / 2e6:.0f} ms)",
    )


def buzzer_verdict(
    during: dict[str, Any], after: dict[str, Any], cue: list[str]
) -> tuple[bool, str]:
    """The tone toggled the line while the cue played, and after it the line is still and
    low: a passive buzzer left high carries a steady current through its coil."""
    pin = str(BUZZER)
    edges = during.get("edges", {}).get(pin, -1)
    still = after.get("edges", {}).get(pin, -1) == 0
    low = after.get("last", {}).get(pin) is False and after.get("duty", {}).get(pin) == 0
    text = (
        f"GPIO{BUZZER} toggled {edges if edges >= 0 else 'no sample:'} times in "
        f"{during.get('samples', 0)} samples while the card's cue played (the simulator played "
        f"{cue or 'its cue'}; a tone of a few hundred Hz is sampled, not resolved); after it "
        f"{'still' if still else 'still toggling'} and {'low' if low else 'HIGH (left on)'}"
    )
    return edges > 0 and still and low, text


def step_unplug(r: Run) -> None:
    mark = cursor(r)
    answer = r.agent.guest("uart", "unplug", "ttyS0")
    lost = wait_status(r, lambda s: "reader" in s.lower() and "lost" in s.lower())
    r.agent.guest("uart", "plug", f"{answer['address']}@{answer['driver']}")
    back = wait_status(r, lambda s: "lost" not in s.lower())
    r.feed(r.agent.guest("drain", "0.5")["log"])
    # A card after the reader is back: the box reads it again.
    frame = encode_card(CARD_RDM6300)
    for _ in range(4):
        paced(r.rdm.port, frame * 2, BAUD_RDM6300)
        time.sleep(0.1)
    text = journal_since(r, mark)
    reread = text.lower().count(CARD_RDM6300[-8:].lower()) >= 1
    r.record(
        "reader unplugged",
        bool(lost) and bool(back) and reread,
        f"ttyS0's PCI device {answer['address']} unbound from {answer['driver']}: STATUS "
        f'"{lost or "no change"}"; bound again: "{back or "no change"}"; a card read after: '
        f"{reread}",
    )


def encode_card(uid: str) -> bytes:
    from companion.hal.readers.fake import encode_frame

    return encode_frame(uid)


def status(r: Run) -> str:
    return sysbase.parse_show(r.agent.sh(f"systemctl show {UNIT} -p StatusText")).get(
        "StatusText", ""
    )


def wait_status(r: Run, cond: Any, guard: float = FRAME_GUARD) -> str:
    end = time.monotonic() + guard
    while time.monotonic() < end:
        s = status(r)
        if cond(s):
            return s or "(empty)"
        time.sleep(0.5)
    return ""


def step_pn532(r: Run) -> None:
    """The other reader, on the other UART: the owner's config says pn532 on /dev/ttyS1 and the
    box is restarted (so is the simulator, from its own journal); the project's FakePn532 on
    the host's end of the UART answers the box's own PN532 driver at 115200 baud."""
    a = r.agent
    a.sh(
        f'sed -i -e \'/^\\[reader\\]/,/^\\[/{{s|^type = .*|type = "pn532"|;'
        f's|^port = .*|port = "{PN532_PORT}"|}}\' {CONFIG} && '
        f"{r.bin}/trap-companion config check {CONFIG}"
    )
    a.sh(f"systemctl restart {UNIT}", timeout=180)
    ready = wait_status(r, lambda st: "reader ready: PN532" in st)
    r.sim.restart("pn532")
    restart_diff, _ = r.settle_on(r.sim.frame())
    offset, rtt = guest_offset(r)
    mark = cursor(r)
    r.feed(a.guest("drain", "0.5")["log"])
    first = time.monotonic_ns()
    r.pn532.present(CARD_PN532)
    r.sim.tap(CARD_PN532)
    shown = r.shown_at_some_point(r.sim.frame())
    r.pn532.remove()
    diff = 0 if shown else ssd1306.differing(r.panel.pixels(), r.sim.frame())
    after = [w.t_ns for w in r.writes if w.t_ns > first + offset]
    to_panel = (min(after) - (first + offset)) / 1e6 if after else float("nan")
    text = journal_since(r, mark)
    logged = CARD_PN532.lower() in text.lower()
    r.figures["pn532_to_panel"] = f"{to_panel:.0f} ms (+-{rtt / 2e6:.0f} ms)"
    r.save_frame("frame-card-pn532")
    r.record(
        "card pn532",
        bool(ready) and restart_diff == 0 and diff == 0 and logged,
        f'config reader pn532 on {PN532_PORT}, box restarted: STATUS "{ready or "no reader"}", '
        f"its frame {restart_diff} pixels from the restarted simulator's; card {CARD_PN532} "
        f"shown ({diff} pixels differ from the simulator's frame), in the daemon's log: "
        f"{logged}; card on the antenna to panel write {to_panel:.0f} ms "
        f"(clock offset +-{rtt / 2e6:.0f} ms)",
    )


def step_panel_gone(r: Run) -> None:
    present = "/sys/kernel/debug/i2c-record/present"
    r.agent.sh(f"echo N > {present}")
    gone = wait_status(r, lambda st: "display" in st and "display ok" not in st)
    # The box goes on: a press is taken while the panel is away (its frame comes back later).
    r.press("down", PRESS_SECONDS)
    r.sim.press("down", PRESS_SECONDS)
    r.agent.sh(f"echo Y > {present}")
    diff, took = r.settle_on(r.sim.frame(), quiet=FRAME_GUARD)  # the display's retry deadline
    back = wait_status(r, lambda st: "display ok" in st)
    r.record(
        "panel gone",
        bool(gone) and diff == 0 and bool(back),
        f'i2c-record answering -ENXIO: STATUS "{gone or "no change"}"; a press taken '
        f"meanwhile; back: the frame redrawn in {took:.1f} s, {diff} pixels differ from the "
        f'simulator\'s; STATUS "{back or "unchanged"}"',
    )
