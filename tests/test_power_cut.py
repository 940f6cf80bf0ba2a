"""Power cuts: `python -m companion replay -` (the daemon's own code on simulated parts) in a
subprocess, killed with SIGKILL at random moments, then started again on the same state dir.

Every game is played at random (buttons, card taps, menus, undo, timers), cut during play,
during start-up and while a new game moves a full journal to history/. The check is exact, with
the same code run in this process as the model of what the box must show:

- every line the box answered (its output comes only after the journal's fsync) is on disk,
  entry for entry, and after it at most a beginning of the line that was in flight;
- the resumed game equals the last state shown, as a power cut leaves it (a running timer comes
  back paused, as of the last journaled moment: ticks are never journaled), or the in-flight
  line's state when all its entries reached the disk;
- nothing is ever set aside as damaged.

Adding a game costs nothing: every game of the registry is played; MOVES may add its own lines.
"""

from __future__ import annotations

import json
import os
import random
import select
import shlex
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from power_cut_support import spawn_replay

from companion.core import config as configuration
from companion.core import journal as journal_module
from companion.core.journal_lines import read_journal
from companion.games import registry as games
from companion.replay import Replay
from companion.sim.box import SimulatedBox
from companion.ui import menus

# Only a guard against a box that hangs: the replay process starts and reads its journal well
# inside it even at a Pi Zero 2 W's pace on a busy machine (under emulation, 20 s was too short).
READ_TIMEOUT = 120.0
ROUNDS = 8  # cuts in play, per game
START_CUTS = 6
ROTATION_CUTS = 6
COMMON = [
    *["press green"] * 4,
    "press red",
    "press ok",
    "press up",
    "press down",
    "press back",  # the game menu (resume, undo, new game, other game)
    "hold back 1.2",  # undo, asked
    "hold green 1.2",
    "wait 1",
]
MOVES: dict[str, list[str]] = {  # a game's own lines, beyond the buttons and its cards' taps
    "dice": ["do choose die=d4", "do choose die=2d6", "do reroll"],
    "trap-attack": ["do ai_turn"],
    "trapwords": ["wait 5", "wait 20", "hold red 1.5"],
    "deathtrap-dungeon": [
        *["do pig player=2"] * 3,
        "do play n=1 value=3",
        "do play n=1 value=9 out=yes",
        "do pass",
        "do killing_machine player=1",
    ],
    "hostage-trap": [
        "game hostage-trap players=3 turn_seconds=20",  # a turn timer to cut while it runs
        "do draw target=2",
        "do trap turns=1",
        "wait 25",
    ],
    "cover-your-asps": [
        "do plank",
        "do enter",
        "do move",
        "do built",
        "do entered",
        "do vault",
        "do escaped",
        "do next",
    ],
}


def moves(game: str) -> list[str]:
    taps = [f"tap @{kind.id}" for kind in games.get(game).catalog()]
    return COMMON + MOVES.get(game, []) + taps


def entries(state: Path) -> list[dict[str, Any]]:
    """What the next start will fold, history included: a swap cut in the middle counts as
    done (the journal gone, its next file complete), else the journal as it is."""
    found: list[dict[str, Any]] = []
    history = state / "history"
    for path in sorted(history.glob("*.jsonl") if history.is_dir() else ()):
        found += read_journal(path.read_bytes(), str(path)).entries
    journal, swapped = state / "journal.jsonl", state / "journal.jsonl.next"
    source = journal if journal.exists() else swapped if swapped.exists() else None
    if source is not None:
        reading = read_journal(source.read_bytes(), str(source))
        assert not reading.damage, reading.damage
        found += reading.entries
    # A game's id is random (unique to it): the box and the model each draw their own.
    return [{k: v for k, v in e.items() if k != "id"} for e in found]


def as_cut_leaves_it(replay: Replay) -> tuple[str | None, Any]:
    """The game and public state a power cut now must come back with."""
    session = replay.app.session
    if session is None:
        return None, None
    state, rules = session.state, session.rules
    # Ticks are never journaled: a cut comes back as of the last journaled moment.
    last_at = getattr(state, "last_at", None)
    exact = getattr(rules, "restore_at", None)
    cut = exact(state, last_at) if exact and last_at is not None else rules.restore(state)
    public = rules.public(cut)
    named = getattr(rules, "menu_public", None)
    if named is not None:  # a game's own menu: only the question it asks by itself comes back
        asked = rules.next_question(cut)
        walker = menus.FormMenu(asked) if asked is not None else None
        if walker is not None:
            walker.start()
        public.update(named(walker.showing() if walker is not None else None))
    return session.name, public


class Box:
    """One run of `replay -` on the box's state dir, with the model beside it on a copy."""

    def __init__(self, config: Path, state: Path, model_state: Path) -> None:
        self.state = state
        shutil.rmtree(model_state, ignore_errors=True)
        if state.exists():
            shutil.copytree(state, model_state)
        self.proc = spawn_replay(config)
        self.spawned = time.monotonic()
        cfg = configuration.load(config)
        self.model = SimulatedBox(cfg, state_dir=model_state, seed=0)  # what replay builds
        self.model.app.start()
        self.model.loop.drain()
        self.replay = Replay(self.model)
        self.replay.snapshot(0)
        self.model_state = model_state
        self.number = 0
        self.buffer = b""

    def _read(self) -> dict[str, Any] | None:
        deadline = time.monotonic() + READ_TIMEOUT
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, left))
            chunk = os.read(self.proc.stdout.fileno(), 65536) if ready else b""
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def send(self, line: str) -> None:
        self.number += 1
        self.proc.stdin.write((line + "\n").encode())

    def model_line(self, line: str) -> dict[str, Any]:
        return self.replay.line(self.number, shlex.split(line))

    def line(self, line: str) -> dict[str, Any]:
        """A line the box answers: its answer must be the model's, exactly."""
        self.send(line)
        out = self._read()
        if out is None:
            self.proc.kill()
            pytest.fail(f"no answer to {line!r}: {self.proc.communicate()[1].decode()}")
        assert out == self.model_line(line), line
        return out

    def cut(self, delay: float | None) -> bool:
        """The power goes ``delay`` seconds from now (None: once the line in flight is
        answered); True if the box had answered it (then it must be wholly on disk)."""
        answered = False
        if delay is None:
            answered = self._read() is not None
            assert answered, "the box died before answering"
        else:
            time.sleep(delay)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        rest = self.buffer + self.proc.stdout.read()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()
        return answered or bool(rest.strip())

    def close_model(self) -> None:
        self.model.close()


class Table:
    """The box, cut again and again, and what it must come back with."""

    def __init__(self, tmp_path: Path) -> None:
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.state = tmp_path / "state"
        self.model_state = tmp_path / "model"
        self.config = tmp_path / "config.toml"
        self.config.write_text(f'[state]\ndir = "{self.state}"\n')
        self.expected: tuple[str | None, Any] | None = (None, None)
        self.box: Box | None = None

    def start(self) -> dict[str, Any]:
        self.box = Box(self.config, self.state, self.model_state)
        resumed = self.box.line("wait 0")
        self.start_seconds = time.monotonic() - self.box.spawned  # how long a start takes here
        if self.expected is not None:
            assert (resumed["game"], resumed["state"]) == self.expected, "resumed != last shown"
        return resumed

    def play(self, line: str) -> dict[str, Any]:
        out = self.box.line(line)
        self.expected = as_cut_leaves_it(self.box.replay)
        return out

    def cut_during(self, line: str, delay: float | None) -> None:
        """Send ``line`` and cut; the model runs the line to know what it would write."""
        box = self.box
        written = entries(box.model_state)
        box.send(line)
        answered = box.cut(delay)
        box.model_line(line)
        in_flight = entries(box.model_state)
        box.close_model()
        self._check_disk(written, in_flight, answered)
        if len(self.on_disk) == len(in_flight):
            self.expected = as_cut_leaves_it(box.replay)

    def cut_at_start(self, delay: float) -> None:
        """Start the box and cut while it starts (resuming writes to the journal)."""
        written = entries(self.state)
        self.box = Box(self.config, self.state, self.model_state)
        answered = self.box.cut(delay)
        started = entries(self.model_state)
        self.box.close_model()
        self._check_disk(written, started, answered)

    def _check_disk(
        self, written: list[dict[str, Any]], in_flight: list[dict[str, Any]], answered: bool
    ) -> None:
        on_disk = entries(self.state)
        assert on_disk[: len(written)] == written, "an acknowledged entry was lost or changed"
        assert on_disk == in_flight[: len(on_disk)], "the disk holds what the box never wrote"
        if answered:
            assert on_disk == in_flight, "an answered line was not wholly on disk"
        if len(on_disk) != len(in_flight) and len(on_disk) != len(written):
            self.expected = None  # cut between a line's entries: the models' next start judges
        assert not list(self.state.glob("*.unreadable-*")), "a power cut damaged the journal"
        self.on_disk = on_disk


def cut_delay(rng: random.Random) -> float:
    """Before the line is read, while it runs (a line takes a few ms), or after it."""
    return rng.choice((0.0, rng.uniform(0, 0.004), rng.uniform(0, 0.03)))


@pytest.mark.parametrize("game", games.available())
def test_power_cuts_in_play_lose_nothing_and_invent_nothing(tmp_path, game):
    rng = random.Random(f"power cut {game}")
    table = Table(tmp_path)
    table.start()
    table.play(f"game {game}")
    for _ in range(ROUNDS):
        for _ in range(rng.randint(1, 5)):
            table.play(rng.choice(moves(game)))
        table.cut_during(rng.choice(moves(game)), cut_delay(rng))
        table.start()
    table.box.cut(0)
    table.box.close_model()
    assert len(entries(table.state)) > 2, f"nothing played: add {game}'s actions to MOVES"


def test_power_cuts_while_the_box_starts(tmp_path):
    rng = random.Random("start-up")
    table = Table(tmp_path)
    table.start()
    table.play("game trapwords start_mode=pickup")
    table.play("press ok")  # a running timer: resuming it writes a restore
    for _ in range(START_CUTS):
        table.play("wait 2")
        table.box.cut(0)
        table.box.close_model()
        table.cut_at_start(table.start_seconds * rng.uniform(0.5, 1.1))
        table.start()
        table.play("press ok")
    table.box.cut(0)
    table.box.close_model()


@pytest.fixture(scope="module")
def full_journal(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """Dice games of 400 rolls (within the journal's bound: app/session.py), the last one in
    play, just past the size that moves a journal to history/ at the next game."""
    lines: list[dict[str, Any]] = []
    while len(lines) * 80 <= journal_module.ROTATE_BYTES:
        if len(lines) % 401 == 0:
            game = {"kind": "game", "game": "dice", "options": {}, "at": len(lines) / 10}
            lines.append({"v": 1, "seq": len(lines) + 1, **game})
            continue
        face = len(lines) % 6 + 1
        action = {"name": "roll", "rolls": [face], "at": len(lines) / 10}
        lines.append({"v": 1, "seq": len(lines) + 1, "kind": "action", "action": action})
    data = "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines).encode()
    assert len(data) > journal_module.ROTATE_BYTES
    return data


def test_power_cuts_while_a_new_game_moves_the_journal_to_history(tmp_path, full_journal):
    rng = random.Random("rotation")
    seen = set()
    for n in range(ROTATION_CUTS):
        table = Table(tmp_path / str(n))
        table.state.mkdir()
        (table.state / "journal.jsonl").write_bytes(full_journal)
        table.expected = None
        old = table.start()
        assert sum(old["state"]["counts"].values()) > 0  # the last game, in play
        table.expected = (old["game"], old["state"])
        before, during, after = 0.0, rng.uniform(0, 0.004), None
        table.cut_during("game dice die=d4", (before, during, after)[n % 3])
        resumed = table.start()
        seen.add("new" if resumed["state"]["die"] == "d4" else "old")
        table.box.cut(0)
        table.box.close_model()
    assert seen == {"old", "new"}, "cuts before and after the move"
