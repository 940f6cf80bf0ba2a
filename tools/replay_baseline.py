"""Replay every script we have, save the outputs, and compare two such runs byte for byte.

A refactoring that must not change what the box shows (issue 19: Trap Attack onto the shared
menu kit) is checked with this: record a baseline before, record again after every step,
compare.

    python3 tools/replay_baseline.py collect           # scripts the test suite replays (slow)
    python3 tools/replay_baseline.py record NAME       # replay them all, outputs to NAME
    python3 tools/replay_baseline.py compare A B       # byte for byte; exit 1 on a difference
    python3 tools/replay_baseline.py compare A B --without names,plays  # B's new keys taken out

The scripts are every ``examples/*.txt`` and ``tests/scripts/*.txt`` (read afresh on each
``record``) and every script the test suite hands to ``companion.replay.run`` (scripts
embedded in tests/*.py, built by helpers or written to files for the CLI). ``collect`` runs
pytest once with a small plugin that writes down each such script with its game, options, seed,
config and a copy of the state directory it was given; ``record`` replays each in a fresh
temporary state directory. Everything lives under ``.replay-baseline/`` (ignored by git).

Run it with the project's venv (``.venv/bin/python tools/replay_baseline.py ...``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".replay-baseline"
COLLECTED = CACHE / "collected.pickle"
FILE_DIRS = ("examples", "tests/scripts")


# --- collect: a pytest plugin that writes down what the tests replay ----------------------------


class Recorder:
    """Loaded into pytest with ``-p``: wraps companion.replay.run to keep each script."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.seen: dict[str, dict[str, Any]] = {}
        self.skipped = 0

    def pytest_configure(self, config: Any) -> None:
        from companion import replay

        original = replay.run
        recorder = self

        def run(lines, emit, *, config=None, state_dir=None, game=None, sets=(), seed=0):
            lines = list(lines)
            recorder.keep(lines, config, state_dir, game, tuple(sets), seed)
            return original(
                lines, emit, config=config, state_dir=state_dir, game=game, sets=sets, seed=seed
            )

        replay.run = run

    def keep(self, lines, config, state_dir, game, sets, seed) -> None:
        where = state_dir
        if where is None and config is not None and config.state.dir:
            where = Path(config.state.dir).expanduser()
        files: dict[str, bytes] = {}
        if where is not None and Path(where).is_dir():
            for path in sorted(Path(where).rglob("*")):
                if path.is_file():
                    files[str(path.relative_to(where))] = path.read_bytes()
        try:
            blob = pickle.dumps((lines, config, game, sets, seed, files))
        except Exception:  # a config that cannot be copied: leave this script out, say so
            self.skipped += 1
            return
        key = hashlib.sha256(blob).hexdigest()[:16]
        self.seen.setdefault(key, {"blob": blob, "test": os.environ.get("PYTEST_CURRENT_TEST")})

    def pytest_unconfigure(self, config: Any) -> None:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        with self.out.open("wb") as f:
            pickle.dump({"scripts": self.seen, "skipped": self.skipped}, f)


def collect(extra: list[str]) -> int:
    """Run the test suite once with the recorder (the tests' own results do not matter)."""
    code = (
        "import sys, pytest\n"
        f"sys.path.insert(0, {str(ROOT / 'tools')!r})\n"
        "from replay_baseline import Recorder\n"
        f"from pathlib import Path\n"
        f"rec = Recorder(Path({str(COLLECTED)!r}))\n"
        f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *{extra!r}], plugins=[rec]))\n"
    )
    status = subprocess.call([sys.executable, "-c", code], cwd=ROOT)
    data = pickle.loads(COLLECTED.read_bytes())
    print(
        f"collected {len(data['scripts'])} scripts ({data['skipped']} left out); "
        f"pytest exit {status}"
    )
    return 0


# --- record: replay everything ------------------------------------------------------------------


def _replay(lines, config, game, sets, seed, files) -> str:
    from companion import replay
    from companion.errors import UsageError

    out: list[str] = []
    with tempfile.TemporaryDirectory(prefix="replay-baseline-") as tmp:
        state = Path(tmp)
        for rel, data in files.items():
            (state / rel).parent.mkdir(parents=True, exist_ok=True)
            (state / rel).write_bytes(data)
        if config is not None and config.state.dir:
            from dataclasses import replace

            config = replace(config, state=replace(config.state, dir=str(state)))
        try:
            replay.run(
                lines,
                lambda obj: out.append(replay.dumps(obj)),
                config=config,
                state_dir=None if (config is not None and config.state.dir) else state,
                game=game,
                sets=sets,
                seed=seed,
            )
        except UsageError as err:
            out.append(f"usage error: {err}")
        except Exception as err:
            out.append(f"crash: {type(err).__name__}: {err}")
    return "\n".join(out) + "\n"


def record(name: str) -> int:
    from companion import replay

    target = CACHE / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    count = 0
    for folder in FILE_DIRS:
        for path in sorted((ROOT / folder).glob("*.txt")):
            lines = list(replay.script_lines(path.read_text(encoding="utf-8")))
            text = _replay(lines, None, None, (), 0, {})
            (target / f"file-{folder.replace('/', '-')}-{path.stem}.out").write_text(text)
            count += 1
    if COLLECTED.exists():
        data = pickle.loads(COLLECTED.read_bytes())
        for key, item in sorted(data["scripts"].items()):
            lines, config, game, sets, seed, files = pickle.loads(item["blob"])
            text = _replay(lines, config, game, sets, seed, files)
            (target / f"test-{key}.out").write_text(f"# {item['test']}\n{text}")
            count += 1
    else:
        print("no collected test scripts: run `collect` first (files only)", file=sys.stderr)
    print(f"recorded {count} scripts into {target}")
    return 0


# --- compare ------------------------------------------------------------------------------------


def _without(text: bytes, keys: tuple[str, ...]) -> bytes:
    """The output with ``keys`` taken out of every line's object (a contract's new keys), the
    rest written as replay writes it; lines that are no object stay as they are."""
    import json

    from companion import replay

    out = []
    for line in text.decode("utf-8").split("\n"):
        try:
            obj = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        if not isinstance(obj, dict):
            out.append(line)
            continue
        out.append(replay.dumps({k: v for k, v in obj.items() if k not in keys}))
    return "\n".join(out).encode("utf-8")


def compare(a: str, b: str, without: tuple[str, ...] = ()) -> int:
    left, right = CACHE / a, CACHE / b
    names = sorted({p.name for p in left.glob("*.out")} | {p.name for p in right.glob("*.out")})

    def read(path: Path) -> bytes:
        return _without(path.read_bytes(), without) if without else path.read_bytes()

    differ = [
        n
        for n in names
        if not (left / n).is_file()
        or not (right / n).is_file()
        or read(left / n) != read(right / n)
    ]
    crashes = [n for n in names if (right / n).is_file() and "\ncrash: " in (right / n).read_text()]
    for n in differ:
        print(f"DIFFERS: {n}")
    for n in crashes:
        print(f"crash in {b}: {n}")
    same = len(names) - len(differ)
    print(f"{same}/{len(names)} scripts byte-identical ({a} vs {b})")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="run pytest once, keeping every script it replays")
    c.add_argument("pytest_args", nargs="*", help="passed on to pytest (default: the suite)")
    r = sub.add_parser("record", help="replay every script, saving the outputs as NAME")
    r.add_argument("name")
    d = sub.add_parser("compare", help="compare two recorded runs byte for byte")
    d.add_argument("a")
    d.add_argument("b")
    d.add_argument(
        "--without", default="", help="keys (comma-separated) taken out of B's lines first"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.cmd == "collect":
        return collect(args.pytest_args)
    if args.cmd == "record":
        return record(args.name)
    return compare(args.a, args.b, tuple(k for k in args.without.split(",") if k))


if __name__ == "__main__":
    sys.exit(main())
