"""Issue 48's figures: what 1,000 plays kept cost the box. A move of a game in play (CPU per
accepted action, the journal's fsync included, with no plays kept and with 1,000), the plays'
memory, and the records and the exports made from them (the phone's "Players' records" and its
downloads). Run with the project's venv: ``.venv/bin/python tools/plays_bench.py [--plays N]``;
the figures go in docs/performance.md (as on this machine; a Pi Zero is some ten times slower)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _plays(n: int) -> list[dict]:
    out = []
    for i in range(n):
        seats = [
            {"seat": s, "player": f"Player {(i + s) % 12}", "score": (i * s) % 23, "place": s}
            for s in range(1, 5)
        ]
        out.append({
            "key": f"deathtrap-dungeon#{i:08d}", "game": "deathtrap-dungeon",
            "options": {"players": 4, "rounds": 4, "pig": "left"},
            "date": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}", "seconds": 1800.0,
            "seats": seats, "winners": [1],
            "detail": {"rounds": [{"1": 4, "2": 3, "3": 2, "4": 1}] * 4},
        })  # fmt: skip
    return out


def press_cost(plays: int, moves: int) -> float:
    """CPU seconds per accepted move of a game in play (the mean of ``moves``)."""
    from companion.core.config import Config, StateConfig
    from companion.games.base import Action
    from companion.sim.box import SimulatedBox

    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        if plays:
            (state / "plays.json").write_text(json.dumps({"version": 1, "plays": _plays(plays)}))
        box = SimulatedBox(Config(state=StateConfig(dir=str(state))), seed=0)
        try:
            box.app.start()
            box.loop.drain()
            box.app.new_game("hostage-trap", {"players": "4"})
            box.loop.drain()
            assert len(box.app.plays.plays) == plays
            start = time.process_time()
            for _ in range(moves):
                box.app.submit(Action("next", {}))
                box.loop.drain()
            return (time.process_time() - start) / moves
        finally:
            box.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument(
        "--write", type=Path, metavar="FILE", help="only write --plays plays as a plays.json"
    )
    args = parser.parse_args()
    if args.write is not None:  # a state dir with the plays kept (tools/pitest/records_paint.py)
        args.write.write_text(json.dumps({"version": 1, "plays": _plays(args.plays)}))
        return 0
    from companion.core import play_stats
    from companion.plays_export import export

    out: dict[str, object] = {}
    for n in (0, args.plays, 0, args.plays):  # twice each, in turn
        out.setdefault(f"move_ms_{n}_plays", []).append(round(press_cost(n, args.moves) * 1000, 3))
    items = _plays(args.plays)
    tracemalloc.start()
    kept = json.loads(json.dumps(items))
    out["plays_memory_kib"] = round(tracemalloc.get_traced_memory()[0] / 1024)
    tracemalloc.stop()
    out["plays_json_kib"] = round(len(json.dumps({"version": 1, "plays": kept}, indent=1)) / 1024)
    for what, fn in (
        ("records_ms", lambda: play_stats.records(kept)),
        ("records_of_a_game_ms", lambda: play_stats.records(kept, "deathtrap-dungeon")),
        ("export_csv_ms", lambda: export(kept, "csv")),
        ("export_bgstats_ms", lambda: export(kept, "bgstats")),
    ):
        start = time.process_time()
        fn()
        out[what] = round((time.process_time() - start) * 1000, 1)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
