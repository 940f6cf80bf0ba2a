"""The buttons: each pressed and long-pressed, press to glass, the LED's colour."""

from __future__ import annotations

from hwbase import BUTTONS, GLASS_PRESSES, HOLD_SECONDS, LED, LED_TOLERANCE, PRESS_SECONDS
from hwrun import Run


def step_buttons(r: Run) -> None:
    seq = [(b, PRESS_SECONDS) for b in BUTTONS] + [(b, HOLD_SECONDS) for b in BUTTONS]
    bad: list[str] = []
    lat: list[float] = []
    for n, (button, seconds) in enumerate(seq):
        answer = r.press(button, seconds)
        r.sim.press(button, seconds)
        diff, _ = r.settle_on(r.sim.frame())
        if "latency_ms" in answer:
            lat.append(answer["latency_ms"])
        if diff:
            kind = "long" if seconds > 1 else "short"
            bad.append(f"{kind} {button} ({diff} px)")
            r.save_frame(f"frame-fail-{n}-{button}")
    r.latencies_ms += lat
    r.record(
        "buttons",
        not bad,
        f"6 buttons short ({PRESS_SECONDS * 1000:.0f} ms) and long ({HOLD_SECONDS:.1f} s) "
        f"through the line bias: {len(seq) - len(bad)}/{len(seq)} frames as the simulator's"
        + (f"; differ after {', '.join(bad)}" if bad else ", 0 pixels differ")
        + (f"; release to first I2C write p50 {pct(lat, 50):.0f} ms" if lat else ""),
    )


def step_press_to_glass(r: Run) -> None:
    """Short presses on the start menu (down, up, ...: the list moves each time), each frame
    compared with the simulator's; from the release to the first I2C write and to the write
    that completed the frame (its last byte)."""
    first: list[float] = []
    last: list[float] = []
    bad: list[str] = []
    for n in range(GLASS_PRESSES):
        button = ("down", "up")[n % 2]
        answer = r.press(button, PRESS_SECONDS)
        r.sim.press(button, PRESS_SECONDS)
        want = r.sim.frame()
        diff, _ = r.settle_on(want)
        if diff:
            bad.append(f"{n + 1} {button} ({diff} px)")
        if "latency_ms" in answer:
            first.append(answer["latency_ms"])
        done = r.last_write_ms(answer, want)
        if done is not None:
            last.append(done)
    r.latencies_ms += first
    r.last_ms += last
    r.record(
        "press to glass",
        not bad and len(last) >= GLASS_PRESSES - 2,
        f"{GLASS_PRESSES} short presses on the start menu"
        + (f"; differ after {', '.join(bad)}" if bad else ", 0 pixels differ")
        + f"; release to first I2C write p50 {pct(first, 50):.0f} ms p99 {pct(first, 99):.0f} ms"
        f" (n={len(first)}), to the frame complete (its last changed byte)"
        f" p50 {pct(last, 50):.0f} ms"
        f" p99 {pct(last, 99):.0f} ms (n={len(last)})",
    )


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def step_leds(r: Run) -> None:
    pins = [LED["red"], LED["green"], LED["blue"]]
    got = r.agent.guest("sample", *map(str, pins), "1.0")
    duty = [got["duty"][str(pin)] for pin in pins]
    _, lights = r.sim.box.app.shown if r.sim.box.app.shown else r.sim.box.app.current()
    want = [round(c, 3) for c in lights.shown()]
    worst = max(abs(d - w) for d, w in zip(duty, want, strict=True))
    r.record(
        "led",
        worst <= LED_TOLERANCE,
        f"GPIO17/27/22 high {duty[0]:.2f}/{duty[1]:.2f}/{duty[2]:.2f} of {got['samples']} "
        f"samples (lgpio's software PWM); the simulator shows {want} ({lights.pattern}); "
        f"off by {worst:.2f} at most (sampling allows {LED_TOLERANCE})",
    )
