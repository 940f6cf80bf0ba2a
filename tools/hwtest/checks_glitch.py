"""A glitch and a bouncing press, applied again when the host stretched them; their repeats."""

from __future__ import annotations

import collections
import itertools
import os
from dataclasses import dataclass
from typing import Any

import ssd1306
from checks_readers import wait_status
from hwbase import (
    BUTTONS,
    DEBOUNCE_BAND_MS,
    DEBOUNCE_MS,
    GLITCH_SECONDS,
    GLITCH_VALID_MS,
    ONLY,
    PRESS_SECONDS,
    REPEATABLE,
    STIMULUS_TRIES,
    STRETCHED_QUIET,
    UNIT,
    say,
)
from hwrun import Run


def line_intervals(answer: dict[str, Any]) -> list[float]:
    """The times (ms) between the line changes a press applied, the last one its release: what
    the box's kernel stamped, give or take a system call."""
    marks = [*answer["edges"], answer["t_up"]]
    return [(b - a) / 1e6 for a, b in itertools.pairwise(marks)]


def stimulus_valid(intervals: list[float], hold_last: bool) -> bool:
    """Whether what reached the line is the stimulus meant: every pulse shorter than the
    debounce by a margin (but the held press at the end of a bounce). On a loaded host the
    vCPU can be descheduled between the two writes of a 3 ms pulse and stretch it past 5 ms:
    that is a short press, not a glitch, and proves nothing about the filter."""
    pulses = intervals[:-1] if hold_last else intervals
    return bool(intervals) and all(ms < GLITCH_VALID_MS for ms in pulses)


def apply_stimulus(
    r: Run, button: str, seconds: float, bounce: int
) -> tuple[dict[str, Any], list[float], int, int]:
    """Applies a glitch or a bouncing press until it reaches the line as meant (at most
    STIMULUS_TRIES): only the stimulus is tried again, never the verdict. The simulator gets
    every stimulus exactly as applied, so a stretched one (a short press, for both) keeps the
    two in step; the answer, its intervals, the tries, and the pixels that differed after a
    stretched one (0 when both took it alike)."""
    for tries in range(1, STIMULUS_TRIES + 1):
        answer = r.press(button, seconds, bounce=bounce)
        intervals = line_intervals(answer)
        if bounce == 0:
            # A glitch: judged by the longest the kernel can have seen it (from before the
            # first write began to after the second ended).
            intervals = [(answer["t_up"] - answer.get("t_before", answer["t_down"])) / 1e6]
        if stimulus_valid(intervals, hold_last=bounce > 0):
            r.sim.replay(button, intervals)
            return answer, intervals, tries, 0
        r.log.write(f"stimulus on {button} stretched to {intervals} ms: applied again")
        if bounce == 0:
            # Which side of the debounce the kernel's own stamps fell is not known from here:
            # a vCPU descheduled inside a write puts the stamp anywhere in it (7.2 ms "at most"
            # here was under 5 ms for the box once, at load 7). The box's panel tells (a press
            # it took redraws the screen) and the simulator follows: this try is no verdict.
            # The box is read once it has drawn all it will for this try (under load a press's
            # frame can come more than a second late: read too early, the simulator fell a
            # press behind the box and the next verdict failed).
            r.quiet(STRETCHED_QUIET)
            took = ssd1306.differing(r.panel.pixels(), r.sim.frame()) != 0
            side = DEBOUNCE_MS + DEBOUNCE_BAND_MS if took else DEBOUNCE_MS - DEBOUNCE_BAND_MS
            r.sim.replay(button, [side])
            diff, _ = r.settle_on(r.sim.frame())
        else:
            # A stretched bounce may be more than one press for the box (a bounce down and up
            # for 5 ms each): the simulator takes one, then follows the box a press at a time,
            # at most one for each bounce; a box showing none of these frames is off. The box
            # is read once it has drawn all it will for this try, as for a glitch.
            one = [min(ms, DEBOUNCE_MS - DEBOUNCE_BAND_MS) for ms in intervals[:-1]]
            r.sim.replay(button, [*one, intervals[-1]])
            r.quiet(STRETCHED_QUIET)
            diff = ssd1306.differing(r.panel.pixels(), r.sim.frame())
            for _ in range(bounce):
                if not diff:
                    break
                r.sim.press(button, PRESS_SECONDS)
                diff = ssd1306.differing(r.panel.pixels(), r.sim.frame())
        if diff:
            return answer, intervals, tries, diff
    return answer, intervals, STIMULUS_TRIES, 0


def stretched_note(what: str, valid: bool, tries: int, stretched_diff: int) -> str:
    """Why a glitch or bounce check proves nothing about the filter, if it does not."""
    if stretched_diff:
        return (
            f"; a {what} stretched past {GLITCH_VALID_MS} ms (try {tries}) already left the box "
            f"{stretched_diff} px off the simulator, which took it alike"
        )
    if not valid:
        return f"; no {what} under {GLITCH_VALID_MS} ms in {tries} tries (host load)"
    return ""


@dataclass
class Attempt:
    """One run of a glitch or bounce check: its verdict and line, the tries its stimulus took,
    and its figure (the glitch's longest possible pulse, the bounce's longest bounce, in ms)."""

    ok: bool
    text: str
    tries: int
    ms: float


def check_glitch(r: Run) -> Attempt:
    _, intervals, tries, stretched_diff = apply_stimulus(r, "down", GLITCH_SECONDS, 0)
    held_ms = intervals[0]
    valid = stimulus_valid(intervals, hold_last=False)
    r.press("down", PRESS_SECONDS)  # the marker: the frame must be one press on, not two
    r.sim.press("down", PRESS_SECONDS)
    diff, _ = r.settle_on(r.sim.frame())
    return Attempt(
        valid and diff == 0 and stretched_diff == 0,
        f"a low pulse of at most {held_ms:.1f} ms on GPIO{BUTTONS['down']} (as applied, "
        f"{'try' if tries == 1 else 'tries'} {tries}) then one press: the frame is "
        f"{'one press on' if diff == 0 else 'NOT one press on'} ({diff} pixels differ from the "
        f"simulator's)" + stretched_note("pulse", valid, tries, stretched_diff),
        tries,
        held_ms,
    )


def check_bounce(r: Run) -> Attempt:
    answer, intervals, tries, stretched_diff = apply_stimulus(r, "up", PRESS_SECONDS, 3)
    valid = stimulus_valid(intervals, hold_last=True)
    span = sum(intervals[:-1])
    longest = max(intervals[:-1])
    diff, _ = r.settle_on(r.sim.frame())
    return Attempt(
        valid and diff == 0 and stretched_diff == 0,
        f"{len(answer['edges'])} edges in {span:.1f} ms then held (as applied, "
        f"{'try' if tries == 1 else 'tries'} {tries}, longest bounce {longest:.1f} "
        f"ms): counted as one press ({diff} pixels differ from the simulator's frame after one "
        f"press)" + stretched_note("bounce", valid, tries, stretched_diff),
        tries,
        longest,
    )


CHECKS = {"glitch": check_glitch, "bounce": check_bounce}

FIGURE = {"glitch": "pulse at most", "bounce": "longest bounce"}


def step_glitch_and_bounce(r: Run) -> None:
    """The glitch then the bounce, each once (or as often as HWTEST_REPEAT says, taking turns:
    the box and the simulator stay in step, a press on)."""
    times = {name: r.repeat.get(name, 1) for name in CHECKS}
    runs: dict[str, list[Attempt]] = {name: [] for name in CHECKS}
    loads: list[float] = []
    for n in range(max(times.values())):
        for name, check in CHECKS.items():
            if n >= times[name]:
                continue
            attempt = check(r)
            runs[name].append(attempt)
            if times[name] == 1:
                r.record(name, attempt.ok, attempt.text)
                continue
            loads.append(os.getloadavg()[0])
            line = (
                f"{name} {n + 1}/{times[name]}: {'pass' if attempt.ok else 'FAIL'}: {attempt.text}"
            )
            say(f"  {line}")
            r.log.write(line)
            if not attempt.ok:
                r.save_frame(f"frame-{name}-{n + 1}-box")
                r.save_frame(f"frame-{name}-{n + 1}-sim", r.sim.frame())
                resync(r)
    for name, attempts in runs.items():
        if len(attempts) > 1:
            r.record(f"{name} x{len(attempts)}", *repeated(name, attempts, loads))


def resync(r: Run) -> None:
    """After a repeated check failed, the box and the simulator start again (each from its own
    journal), so that the next run is judged on its own, not on the press the last one lost.
    A box that draws wrong frames stays off the simulator: the next runs fail on their own."""
    r.agent.sh(f"systemctl restart {UNIT}", timeout=180)
    wait_status(r, lambda st: "reader ready" in st)
    r.sim.restart("rdm6300")
    diff, _ = r.settle_on(r.sim.frame())
    line = f"box and simulator restarted: {diff} pixels differ"
    say(f"  {line}")
    r.log.write(line)


def repeated(name: str, attempts: list[Attempt], loads: list[float]) -> tuple[bool, str]:
    """The verdict of a repeated check (every run passed) and its line: the runs that passed,
    how many tries each stimulus took, the spread of its figure and the load it ran under."""
    passed = sum(a.ok for a in attempts)
    tries = sorted(collections.Counter(a.tries for a in attempts).items())
    text = (
        f"{passed}/{len(attempts)} runs passed; stimulus tries per run "
        + ", ".join(f"{t}: {k}" for t, k in tries)
        + f" (at most {STIMULUS_TRIES}); {FIGURE[name]} "
        f"{min(a.ms for a in attempts):.1f}-{max(a.ms for a in attempts):.1f} ms"
        + (f"; load average {min(loads):.1f}-{max(loads):.1f}" if loads else "")
    )
    failed = [(n, a) for n, a in enumerate(attempts, start=1) if not a.ok]
    if failed:
        n, first = failed[0]
        text += f"; failed runs {', '.join(str(n) for n, _ in failed)}; run {n}: {first.text}"
    return not failed, text


def parse_repeat(text: str) -> dict[str, int]:
    """HWTEST_REPEAT: "glitch,bounce:20" (the checks, then how many times), groups joined by
    ";" ("glitch:30;bounce:10"). ValueError names what is wrong."""
    times: dict[str, int] = {}
    for group in filter(None, (g.strip() for g in text.split(";"))):
        names, sep, count = group.rpartition(":")
        if not sep or not count.strip().isdigit() or not 1 <= int(count) <= 1000:
            raise ValueError(f"{group!r}: give CHECKS:N, N from 1 to 1000 (glitch,bounce:20)")
        for name in (n.strip() for n in names.split(",")):
            if name not in REPEATABLE:
                raise ValueError(f"{name!r} cannot be repeated: only {', '.join(REPEATABLE)}")
            times[name] = int(count)
    return times


def parse_only(text: str) -> set[str]:
    """HWTEST_ONLY: the checks to run, by name ("glitch,bounce"; "-" for a space); the steps
    that record none of them are left out. ValueError names an unknown check."""
    known = {check for checks in ONLY.values() for check in checks}
    chosen = {n.strip().replace("-", " ") for n in text.split(",") if n.strip()}
    unknown = sorted(chosen - known)
    if unknown:
        raise ValueError(f"no check {', '.join(unknown)}: one of {', '.join(sorted(known))}")
    return chosen
