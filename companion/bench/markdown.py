"""The table that opens docs/performance.md, made from the bench's own JSON (`trap-companion
bench --markdown`), so it is pasted there, never typed.

A source is what one command printed or wrote: the whole run (`trap-companion bench`, its
``targets`` and ``met`` taken as they are), `make pibench`'s file (its emulated side read at a
Pi's pace), or `trap-companion bench --pi-class` run on a Pi. Each figure with a target is a
row: its words, where it was measured, the figure, the target, met or not, the command that
prints it and the day it was measured.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.bench.run import BUS_TARGETS, PI_TARGETS, QUICK_PRESSES
from companion.errors import DataError, UsageError

# Each figure with a target: its words and its unit ("x": a ratio). A target not named here
# still gets its row, under its key.
ROWS: dict[str, tuple[str, str]] = {
    "button_p99_ms": ("button to frame, p99", "ms"),
    "card_p99_ms": ("card to frame (RDM6300), p99", "ms"),
    "web_press_p99_ms": ("HTTP press to its event, p99", "ms"),
    "idle_cpu_percent": ("idle CPU, a game open", "%"),
    "pn532_idle_cpu_percent": ("idle CPU, PN532, no card near", "%"),
    "pn532_false_uids_fuzz_confirmed": ("PN532 false cards, fuzzed reads", ""),
    "pn532_false_uids_ber_0.001_confirmed": ("PN532 false cards, bit error rate 0.001", ""),
    "pn532_false_uids_ber_0.01_confirmed": ("PN532 false cards, bit error rate 0.01", ""),
    "fast_cards_lost": ("cards laid 0.1 s apart never a tap (RDM6300)", ""),
    "pn532_fast_cards_lost": ("cards laid 0.1 s apart never a tap (PN532)", ""),
    "timer_expiry_ms": ("turn timer's expiry error", "ms"),
    "timer_error_ms": ("turn timer, start to time-up shown", "ms"),
    "ready_seconds": ("start to READY=1", "s"),
    "ready_per_bare_import": ("start to READY=1 / bare import of the libraries", "x"),
    "peak_rss_mb": ("peak memory of the daemon", "MB"),
    "phones_peak_rss_mb": ("peak memory of the daemon, phones on", "MB"),
    "journal_bytes_per_hour": ("journal bytes, an hour of a timed game", ""),
    "journal_fsyncs_per_hour": ("fsyncs, an hour of a timed game", ""),
    "ready_ratio_game_long_to_short": ("start, a 100,000-step game / a 1,000-step one", "x"),
    "peak_rss_more_mb_game_long": ("peak memory, a 100,000-step game - a 1,000-step one", "MB"),
    "press_cpu_ratio_long_to_short": ("press CPU, step 100,000 / step 10 (phones on)", "x"),
    **{
        f"{kind}_window_percent_of_whole": (
            f"I2C bytes of a {kind.replace('_', ' ')}, window / whole frame (SSD1306)",
            "%",
        )
        for kind in BUS_TARGETS
    },
}
HEADER = (
    "| figure | where | measured | target | met | command | date |",
    "|---|---|---|---|---|---|---|",
)


@dataclass
class Source:
    """One command's figures, the targets they are read against and which are met."""

    where: str
    command: str
    date: str
    figures: dict[str, Any]
    targets: dict[str, float]
    met: dict[str, bool]
    about: str  # the machine, in a line under the table


def figure(figures: dict[str, Any], key: str) -> Any:
    """A target's figure: the key's own, or a bus target's (the window's share of a kind)."""
    if key in figures:
        return figures[key]
    kind = key.removesuffix("_window_percent_of_whole")
    return figures.get(f"bus_bytes_per_{kind}", {}).get("ssd1306_window_percent")


def _machine(figures: dict[str, Any]) -> str:
    machine = figures.get("machine", {})
    said = [
        machine.get("arch", ""),
        f"{machine['cpus']} CPUs" if machine.get("cpus") else "",
        f"Python {machine['python']}" if machine.get("python") else "",
    ]
    load = figures.get("load_average")
    if load:
        said.append("load average at the end " + " ".join(str(n) for n in load))
    return ", ".join(s for s in said if s)


def _read_against(figures: dict[str, Any], targets: dict[str, float]) -> dict[str, bool]:
    return {k: figure(figures, k) <= v for k, v in targets.items()}


def sources_of(data: Any, name: str, date: str) -> list[Source]:
    """The sources one JSON holds; DataError (naming ``name``) when it is none of the bench's."""
    if not isinstance(data, dict):
        raise DataError(f"{name}: not the JSON `trap-companion bench` or `make pibench` writes")
    if isinstance(data.get("targets"), dict) and isinstance(data.get("met"), dict):
        mode = "" if "button_samples" in data else " --bus"
        quick = " --quick" if data.get("button_samples") == QUICK_PRESSES else ""
        return [
            Source(
                "native",
                f"trap-companion bench{mode}{quick}",
                date,
                data,
                data["targets"],
                data["met"],
                _machine(data),
            )
        ]
    if "native" in data and len(data) == 2:  # make pibench: {"native": ..., ARCH: ...}
        arch = next(k for k in data if k != "native")
        emulated, native = data[arch], data["native"]
        if not isinstance(emulated, dict) or not isinstance(native, dict):
            raise DataError(f"{name}: `make pibench`'s file without both runs' figures")
        targets = {k: v for k, v in PI_TARGETS.items() if figure(emulated, k) is not None}
        slowdown = ""
        if emulated.get("python_loop_seconds") and native.get("python_loop_seconds"):
            times = emulated["python_loop_seconds"] / native["python_loop_seconds"]
            slowdown = f"; its plain Python loop {times:.1f}x this machine's ({_machine(native)})"
        return [
            Source(
                f"a Pi's pace ({arch}, QEMU)",
                f"make pibench ARCH={arch}",
                date,
                emulated,
                targets,
                _read_against(emulated, targets),
                _machine(emulated) + slowdown,
            )
        ]
    if "python_loop_seconds" in data:  # trap-companion bench --pi-class, on the machine itself
        targets = {k: v for k, v in PI_TARGETS.items() if figure(data, k) is not None}
        arch = data.get("machine", {}).get("arch", "this machine")
        return [
            Source(
                f"on {arch}",
                "trap-companion bench --pi-class",
                date,
                data,
                targets,
                _read_against(data, targets),
                _machine(data),
            )
        ]
    raise DataError(f"{name}: no figures with targets (`trap-companion bench` or `make pibench`)")


def _number(value: Any, unit: str) -> str:
    text = f"{value:g}" if isinstance(value, float) else str(value)
    if unit == "x":
        return f"{text}x"
    return f"{text} {unit}" if unit else text


def table(sources: Iterable[Source]) -> list[str]:
    """The table's lines, a row a target of each source in its order, then a line a source."""
    lines = list(HEADER)
    about = []
    for source in sources:
        for key, most in source.targets.items():
            words, unit = ROWS.get(key, (key, ""))
            met = source.met.get(key)
            lines.append(
                f"| {words} | {source.where} | {_number(figure(source.figures, key), unit)} | "
                f"<= {_number(most, unit)} | {'yes' if met else '**no**'} | "
                f"`{source.command}` | {source.date} |"
            )
        if source.about:
            about.append(f"- {source.where}: {source.about}")
    return [*lines, "", *about] if about else lines


def _day(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d")


def read(paths: Iterable[str]) -> list[Source]:
    """The sources of each JSON file (``-``: standard input), dated by the file's last change."""
    sources: list[Source] = []
    for path in paths:
        try:
            if path == "-":
                text, date = sys.stdin.read(), today()
            else:
                text = Path(path).read_text(encoding="utf-8")
                date = _day(os.stat(path).st_mtime)
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file") from None
        except (OSError, UnicodeDecodeError) as err:
            raise DataError(f"{path}: cannot be read ({err})") from None
        try:
            data = json.loads(text)
        except ValueError as err:
            raise DataError(f"{path}: not JSON ({err})") from None
        sources += sources_of(data, path, date)
    return sources


def today() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
