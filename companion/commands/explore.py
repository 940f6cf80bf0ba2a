"""`trap-companion explore`: the box's flow walked as a table would walk it (companion/explore/).

Every game from its options form: every button short and long, every card of the demo deck,
every deadline, every menu; every screen drawn. It prints, per game, the values and distinct
screens reached, the steps taken and steps per second, and for each failure the replay script
that reproduces it. Exit status 1 when anything failed."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from companion.errors import UsageError

FAILED = 1  # the exit status when the walk found a failure


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explore",
        help="walk every game's screens through the box's own step; print what fails",
        description="Drives the box's pure step from every game's options form and start "
        "with every input a table can give (every button short and long, every demo card, "
        "every deadline), breadth first and then in random walks (seeded: the same seed, the "
        "same walk), drawing every screen reached. Fails on an exception, a screen whose text "
        "does not fit, or a value from which back/red never lead back to play within 10 "
        "presses; prints each failure's shortest inputs as a replay script.",
    )
    p.add_argument(
        "--steps", type=int, default=20_000, help="steps across the games (default 20000)"
    )
    p.add_argument("--seed", type=int, default=0, help="the walks' seed and replay's (default 0)")
    p.add_argument("--game", action="append", default=None, help="only this game (repeat for more)")
    p.add_argument("--length", type=int, default=200, help="inputs in a random walk")
    p.add_argument(
        "--phones",
        action="store_true",
        help="the inputs are a paired phone's (its presses and taps), each checked against "
        "the box's own buttons",
    )
    p.add_argument("--scripts", type=Path, default=None, help="write each failure's script here")
    p.add_argument("--quiet", action="store_true", help="no progress on standard error")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from companion.explore.walk import Explorer
    from companion.games import registry as games

    names = games.available()
    chosen = args.game or names
    for name in chosen:
        if name not in names:
            raise UsageError(f"explore: unknown game {name!r} (use {', '.join(names)})")
    if args.steps < len(chosen):
        raise UsageError(f"explore: --steps {args.steps} is fewer than one a game")
    explorer = Explorer(seed=args.seed, phones=args.phones)
    per_game = args.steps // len(chosen)
    total_steps, total_seconds, failures = 0, 0.0, 0
    said = [time.monotonic()]

    def progress(report: object) -> None:
        if args.quiet or time.monotonic() - said[0] < 10:
            return
        said[0] = time.monotonic()
        print(
            f"  {report.game}: {report.steps} steps, {report.values} values, "  # type: ignore[attr-defined]
            f"{len(report.failures)} failures",  # type: ignore[attr-defined]
            file=sys.stderr,
            flush=True,
        )

    mode = "a phone's presses and taps" if args.phones else "the box's buttons and cards"
    print(f"explore: seed {args.seed}, {per_game} steps a game, {mode}", flush=True)
    for name in chosen:
        report = explorer.explore(name, per_game, args.length, progress)
        total_steps += report.steps
        total_seconds += report.seconds
        failures += len(report.failures)
        print(
            f"{name}: {report.values} values, {report.screens} distinct screens, "
            f"{report.steps} steps, {report.per_second():.0f} steps/s, "
            f"{len(report.failures)} failures",
            flush=True,
        )
        for n, failure in enumerate(report.failures.values(), start=1):
            script = explorer.script(failure)
            print(f"--- {name} failure {n}: {failure.kind}: {failure.what}")
            print(script, end="")
            print("--- detail:")
            print(failure.detail.rstrip())
            if args.scripts is not None:
                args.scripts.mkdir(parents=True, exist_ok=True)
                (args.scripts / f"{name}-{n}.txt").write_text(script)
    rate = total_steps / total_seconds if total_seconds else 0.0
    print(f"all: {total_steps} steps, {rate:.0f} steps/s, {failures} failures", flush=True)
    return FAILED if failures else 0
