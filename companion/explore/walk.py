"""The walk: every game's options form and start, every input a table can give, every screen
drawn; breadth first with values already seen skipped, then random long walks, seeded.

A failure is an exception (in the step, the view, the faces' snapshot or the frame), a screen
whose text does not fit (the renderer cuts it), or a dead end: a value from which no run of
back/red presses reaches the game or the game list within ``BACKS`` presses. Each failure is
kept once (by what failed and where), with the shortest inputs found to it, as replay lines."""

from __future__ import annotations

import json
import logging
import random
import tempfile
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.app import view
from companion.app.boxstate import BoxState
from companion.core.config import Config
from companion.explore import seen
from companion.explore.table import (
    HOLD_SECONDS,
    Input,
    Lender,
    Table,
    TablePhones,
)
from companion.sim.box import SimulatedBox
from companion.ui import menus, render
from companion.ui.screen import Screen

BUTTONS = ("up", "down", "ok", "back", "green", "red")
BACKS = 10  # presses of back or red that must lead to play from any value
UNKNOWN_UID = "0A0B0C0D01"  # a tag no one enrolled: the box offers to enrol it
REPLAY_DATE = "2000-01-01"


@dataclass
class Failure:
    kind: str  # "exception", "cut", "dead end", "phone"
    what: str  # one line: what failed
    detail: str  # the traceback, the cut text
    path: tuple[Input, ...]
    shortened: bool = False  # found on a random walk, then cut down (else breadth first)


@dataclass
class Report:
    game: str
    values: int = 0
    screens: int = 0
    steps: int = 0
    seconds: float = 0.0
    failures: dict[str, Failure] = field(default_factory=dict)

    def per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


class CutWatch(logging.Handler):
    """The renderer's word that a screen's text was cut to fit."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.cut: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "cut to fit" in record.getMessage():
            self.cut.append(record.getMessage())


def start_table(seed: int) -> tuple[Table, dict[str, Any]]:
    """The box as replay starts it (no game, the game list; the same dice for ``--seed``) and
    the demo deck by UID, as replay's default reader reads it."""
    with tempfile.TemporaryDirectory(prefix="trap-explore-") as where:
        box = SimulatedBox(Config(), state_dir=Path(where), seed=seed, today=lambda: REPLAY_DATE)
        try:
            box.app.start()
            box.loop.drain()
            table = Table(box.app.box, box.clock.now(), box.app.dice.now())
            demo = dict(box.app.registry.demo)
        finally:
            box.close()
    return table, demo


class Explorer:
    """Walks one game at a time from the same start; ``phones``: the inputs are a paired
    phone's (its presses, its taps, its asks to enrol copies), each checked against what the
    box's own buttons do on the same value."""

    def __init__(self, seed: int = 0, phones: bool = False) -> None:
        self.seed = seed
        self.phones = phones
        self.start, demo = start_table(seed)
        self.lend = Lender(demo, TablePhones())
        self.demo = demo
        self.cuts = CutWatch()
        self.frames: set[Screen] = set()
        self.good: dict[Any, int] = {}  # a value's key -> presses of back/red to play
        self.bfs_depth = 0  # the inputs breadth first reached: a path longer was walked

    # --- the inputs ----------------------------------------------------------------------------

    def root(self, game: str) -> tuple[Input, ...]:
        """From the game list to the game's options form."""
        menu = self.start.box.menu
        keys = list(getattr(menu, "keys", ()))
        row = keys.index(game) - getattr(menu, "cursor", 0)
        return (*(Input("press", "down"),) * row, Input("press", "ok"))

    def inputs(self, game: str, t: Table) -> list[Input]:
        out: list[Input] = []
        if self.phones:
            out += [Input(v, b, remote=True) for b in BUTTONS for v in ("press", "hold")]
        else:
            out += [Input(v, b) for b in BUTTONS for v in ("press", "hold")]
        mine = sorted(uid for uid, card in self.demo.items() if card.game == game)
        other = sorted(uid for uid, card in self.demo.items() if card.game != game)[:1]
        out += [Input("tap", uid) for uid in (*mine, *other, UNKNOWN_UID)]
        if t.wakes:
            out.append(Input("wait"))
        return out

    # --- the walk ------------------------------------------------------------------------------

    def explore(
        self,
        game: str,
        steps: int,
        length: int = 200,
        on_progress: Callable[[Report], None] | None = None,
    ) -> Report:
        """Breadth first for half of ``steps``, then random walks of ``length`` inputs from
        the options form until ``steps`` are taken."""
        report = Report(game)
        began = time.perf_counter()
        logger = logging.getLogger("companion.ui.render")
        logger.addHandler(self.cuts)
        try:
            self._walk(game, report, steps, length, on_progress)
        finally:
            logger.removeHandler(self.cuts)
            report.seconds = time.perf_counter() - began
        return report

    def _walk(
        self,
        game: str,
        report: Report,
        steps: int,
        length: int,
        on_progress: Callable[[Report], None] | None,
    ) -> None:
        budget = steps // 2
        shown: set[Screen] = set()
        values: set[Any] = set()
        prefix = self.root(game)
        t = self.start
        for move in prefix:
            t = self._apply(t, move, prefix, report)
            if t is None:
                return
        self._check(game, t, prefix, report, values, shown)
        queue: deque[tuple[Table, tuple[Input, ...]]] = deque([(t, prefix)])
        root = t
        while queue and report.steps < budget:
            t, path = queue.popleft()
            for move in self.inputs(game, t):
                here = (*path, move)
                after = self._apply(t, move, here, report)
                if after is None or not self._new(game, after, here, report, values, shown):
                    continue
                if self._ours(game, after.box):
                    queue.append((after, here))
            if on_progress is not None:
                report.values, report.screens = len(values), len(shown)
                on_progress(report)
        self.bfs_depth = len(queue[-1][1]) if queue else 0
        queue.clear()
        rng = random.Random(f"explore:{self.seed}:{game}:{self.phones}")
        while report.steps < steps:
            t, path = root, prefix
            for _ in range(length):
                moves = self.inputs(game, t)
                move = rng.choice(moves)
                here = (*path, move)
                after = self._apply(t, move, here, report)
                if after is None:
                    break
                self._new(game, after, here, report, values, shown)
                if not self._ours(game, after.box):
                    break
                t, path = after, here
            if on_progress is not None:
                report.values, report.screens = len(values), len(shown)
                on_progress(report)
        report.values, report.screens = len(values), len(shown)
        walked = [name for name, f in report.failures.items() if len(f.path) > self.bfs_depth]
        for name in walked:
            failure = report.failures[name]
            failure.path = self.shorten(game, name, failure.path, report)
            failure.shortened = True

    def failing(self, game: str, path: tuple[Input, ...], report: Report) -> dict[str, int]:
        """The failures along ``path`` (each with the inputs to its first), every value
        checked as new."""
        found: dict[str, int] = {}
        trial = Report(game)
        t = self.start
        for n, move in enumerate(path, start=1):
            after = self._apply(t, move, path[:n], trial)
            if after is None:
                break
            self._check(game, after, path[:n], trial, set(), set())
            for name in trial.failures:
                found.setdefault(name, n)
            t = after
        for name in trial.failures:
            found.setdefault(name, len(path))
        report.steps += trial.steps
        return found

    def shorten(
        self, game: str, name: str, path: tuple[Input, ...], report: Report
    ) -> tuple[Input, ...]:
        """A shorter run of inputs to the same failure: cut at its first sight, then runs of
        inputs left out while it still fails (halves, quarters, ... single inputs)."""
        prefix = len(self.root(game))
        found = self.failing(game, path, report)
        if name not in found:
            return path
        path = path[: found[name]]
        chunk = max(1, (len(path) - prefix) // 2)
        while True:
            i = prefix
            while i < len(path) - 1:
                trial = path[:i] + path[i + chunk :]
                got = self.failing(game, trial, report)
                if name in got:
                    path = trial[: got[name]]
                else:
                    i += chunk
            if chunk == 1:
                return path
            chunk = max(1, chunk // 2)

    def _ours(self, game: str, box: BoxState) -> bool:
        """Still this game's walk (another game started, or another game's options, are
        another walk's)."""
        if box.session is not None and box.session.name != game:
            return False
        menu = box.menu
        return not (isinstance(menu, menus.OptionsMenu) and menu.game != game)

    def _apply(
        self, t: Table, move: Input, path: tuple[Input, ...], report: Report
    ) -> Table | None:
        report.steps += 1
        try:
            after, _ = t.after(move, self.lend)
        except Exception as err:
            self._fail(report, "exception", _where(err), traceback.format_exc(), path)
            return None
        if move.remote:
            self._same_as_buttons(t, move, after, path, report)
        return after

    def _new(
        self,
        game: str,
        t: Table,
        path: tuple[Input, ...],
        report: Report,
        values: set[Any],
        shown: set[Screen],
    ) -> bool:
        k = (seen.key(t.box), tuple(w[0] for w in t.wakes))
        if k in values:
            return False
        values.add(k)
        self._check(game, t, path, report, values, shown)
        return True

    def _check(
        self,
        game: str,
        t: Table,
        path: tuple[Input, ...],
        report: Report,
        values: set[Any],
        shown: set[Screen],
    ) -> None:
        """Draw the value as the box and the faces would; then, no dead end."""
        try:
            screen, lights = view.current(t.box)
            lines = screen.text_lines()
            json.dumps({"screen": lines, "state": view.public_state(t.box), "led": lights.shown()})
            if screen not in shown:
                shown.add(screen)
                if screen not in self.frames:
                    self.cuts.cut.clear()
                    render.render(screen)
                    self.frames.add(screen)
                    if self.cuts.cut:
                        self._fail(report, "cut", " | ".join(lines), self.cuts.cut[0], path)
        except Exception as err:
            self._fail(report, "exception", _where(err), traceback.format_exc(), path)
            return
        if self._ours(game, t.box) and self._to_play(t, report) is None:
            self._fail(
                report,
                "dead end",
                f"no way back from {' | '.join(lines)}",
                f"{BACKS} presses of back or red never reach the game or the game list",
                path,
            )

    def _to_play(self, t: Table, report: Report) -> int | None:
        """The fewest presses of back/red from ``t`` to the game or the game list (None: more
        than BACKS, or a press raised)."""
        start = seen.key(t.box)
        if start in self.good:
            return self.good[start]
        level, depth, visited = [t], 0, {start}
        while depth <= BACKS:
            nxt: list[Table] = []
            for here in level:
                k = seen.key(here.box)
                known = self.good.get(k)
                if at_play(here.box) or (known is not None and depth + known <= BACKS):
                    found = depth + (known or 0)
                    self.good[start] = found
                    return found
                if depth == BACKS:
                    continue
                for button in ("back", "red"):
                    report.steps += 1
                    try:
                        after, _ = here.after(Input("press", button), self.lend)
                    except Exception:
                        continue
                    ak = seen.key(after.box)
                    if ak not in visited:
                        visited.add(ak)
                        nxt.append(after)
            level, depth = nxt, depth + 1
        return None

    def _same_as_buttons(
        self, t: Table, move: Input, after: Table, path: tuple[Input, ...], report: Report
    ) -> None:
        """A phone's press gives what the box's own press gives, or is refused (the value as
        the same time would have left it with no press, a notice at most)."""
        try:
            own, _ = t.after(Input(move.verb, move.what), self.lend)
        except Exception:
            return
        if seen.same(after.box, own.box):
            return
        idle = t.until(after.now, self.lend)  # the same time gone by, nothing pressed
        if seen.same(_bare(after.box), _bare(idle.box)):
            return  # refused: nothing changed but a notice (a deadline due meanwhile fired)
        self._fail(
            report,
            "phone",
            f"a phone's {move.line()} differs from the button's",
            f"button: {view.current(own.box)[0].text_lines()}\n"
            f"phone: {view.current(after.box)[0].text_lines()}",
            path,
        )

    def _fail(self, report: Report, kind: str, what: str, detail: str, path: tuple) -> None:
        name = f"{kind}: {what}"
        old = report.failures.get(name)
        if old is None or len(path) < len(old.path):
            report.failures[name] = Failure(kind, what, detail, path)

    # --- scripts -------------------------------------------------------------------------------

    def script(self, failure: Failure) -> str:
        """The replay script for a failure's inputs: the lines replay reads."""
        lines = [f"# trap-companion explore --seed {self.seed}: {failure.kind}: {failure.what}"]
        if self.phones:
            lines.append("# (a paired phone's presses: replayed as the box's own)")
        t = self.start
        for move in failure.path:
            try:
                t, waited = t.after(move, self.lend)
            except Exception:
                waited = 0.0
            lines.append(move.line(waited))
        return "\n".join(lines) + "\n"

    def steps_of(self, script: str) -> Iterator[tuple[str, Table]]:
        """Each line of a script the explorer printed, with the table after it (what a test
        replays through the explorer's own table)."""
        t = self.start
        for line in script.splitlines():
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            verb = words[0]
            if verb == "wait":
                t = t.until(t.now + float(words[1]), self.lend)
            elif verb in ("press", "tap"):
                t, _ = t.after(Input(verb, words[1]), self.lend)
            elif verb == "hold" and float(words[2]) == HOLD_SECONDS:
                t, _ = t.after(Input("hold", words[1]), self.lend)
            else:
                raise ValueError(f"not an explorer's line: {line!r}")
            yield line, t


def at_play(box: BoxState) -> bool:
    """The game (its screen or a question of play) or the game list is on screen."""
    menu = box.menu
    if isinstance(menu, menus.ListMenu) and menu.on_pick == "pick_game":
        return True
    return box.session is not None and (menu is None or box.menu_of_play)


def _bare(box: BoxState) -> BoxState:
    from dataclasses import replace

    return replace(box, toast=None, toast_pages=())


def _where(err: BaseException) -> str:
    """The exception and the last line of the box's code it came from."""
    tb = traceback.extract_tb(err.__traceback__)
    ours = [f for f in tb if "/companion/" in f.filename and "/explore/" not in f.filename]
    frame = ours[-1] if ours else (tb[-1] if tb else None)
    at = f" in {frame.filename.split('/companion/')[-1]}:{frame.name}" if frame else ""
    return f"{type(err).__name__}{at}"
