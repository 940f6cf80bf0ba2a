"""`trap-companion bench`: the performance figures, as JSON."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="measure latencies, idle CPU, start time and memory (prints JSON)",
        description="Button-to-frame and card-to-frame latency, idle CPU, the turn timer's "
        "precision, start-to-ready and peak memory, on simulated parts with the real clock; and "
        "the journal bytes and fsyncs an hour of a timed game (virtual clock). "
        "Takes about a minute; --quick takes about ten seconds.",
    )
    p.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    p.add_argument(
        "--pi-class",
        action="store_true",
        help="only the figures `make pibench` compares with the Pi's CPU under emulation",
    )
    p.add_argument(
        "--game-length",
        action="store_true",
        help="only a press's CPU at step 10 and step 100,000 of a game, both boxes pressed in "
        "turn (issue 31's flat cost; a few minutes under emulation)",
    )
    p.add_argument(
        "--bus",
        action="store_true",
        help="only the OLED's bytes on the I2C bus, the whole frame and the changed window side "
        "by side, over the example replays and a Trapwords countdown (virtual clock, seconds)",
    )
    p.add_argument(
        "--markdown",
        nargs="*",
        metavar="JSON",
        help="print the table that opens docs/performance.md (each target: met or not) instead "
        "of JSON: from the bench's JSON files (a run's, `make pibench`'s; - reads standard "
        "input), or from this run",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from companion.bench.long_games import game_length
    from companion.bench.pi_class import pi_class
    from companion.bench.run import bus, run_all

    measure = game_length if args.game_length else pi_class if args.pi_class else run_all
    if args.bus:
        measure = bus
    if args.markdown:  # tabled from files, nothing measured
        from companion.bench.markdown import read, table

        print("\n".join(table(read(args.markdown))))
        return 0
    results = measure(quick=args.quick)
    if args.markdown is not None:
        from companion.bench.markdown import sources_of, table, today

        print("\n".join(table(sources_of(results, "this run", today()))))
        return 0
    print(json.dumps(results, indent=2))
    return 0
