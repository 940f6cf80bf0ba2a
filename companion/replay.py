"""The replay contract (../shared/notes/replay.md): a script of directives drives the daemon's own
code on simulated parts and a virtual clock; one JSON object per line says what the box shows."""

from __future__ import annotations

import json
import os
import shlex
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from companion.core import plays, storage
from companion.core.config import BUTTONS, Config
from companion.core.players import BadName
from companion.errors import StateDirError, UsageError
from companion.games import registry as games
from companion.games.base import Action, BadAction, Rejected, decimal_number, whole_number
from companion.sim.box import SimulatedBox

MAX_WAIT = 24 * 3600.0
REPLAY_DATE = "2000-01-01"  # the date replay gives results: the same output on every run


# Errors below say what is wrong; run() adds the script line they come from.


def _number(text: str, what: str) -> float:
    value = decimal_number(text)
    if value is None:
        raise UsageError(f"{what} {text!r} is not a number (digits 0-9, e.g. 2 or 0.5)")
    if not 0 <= value <= MAX_WAIT:
        raise UsageError(f"{what} {text!r} must be 0..{MAX_WAIT:.0f} seconds")
    return value


def parse_kv(
    tokens: Sequence[str], bare_id: bool = True, what: str = "", keys: Sequence[str] = ()
) -> dict[str, str]:
    """``K=V`` pairs; a bare first token is the action's ``id`` (``do card damage-2``).
    A token that is not ``K=V`` is named as typed, after ``what`` (``game dice``) and with
    the ``keys`` that would fit (the game's options)."""
    out: dict[str, str] = {}
    for i, token in enumerate(tokens):
        key, sep, value = token.partition("=")
        if not sep and bare_id and i == 0:
            out["id"] = token
            continue
        if not sep or not key or not value:
            where = f"{what}: " if what else ""
            if not sep:
                known = f" (options: {', '.join(keys)})" if keys else ""
                raise UsageError(f"{where}{token!r} is not KEY=VALUE{known}")
            raise UsageError(f"{where}expected KEY=VALUE, got {token!r}")
        out[key] = value
    return out


class Replay:
    def __init__(self, box: SimulatedBox) -> None:
        self.box = box
        self.app = box.app

    def directive(self, words: list[str]) -> None:
        verb, args = words[0], words[1:]
        box, app = self.box, self.app
        if verb == "game":
            if not args:
                raise UsageError("game needs a NAME")
            app.new_game(args[0], self._options(args[0], args[1:]))
        elif verb == "press":
            box.press(self._button(args))
        elif verb == "hold":
            if len(args) != 2:
                raise UsageError("hold needs BUTTON SECONDS")
            box.hold(self._button(args[:1], "hold"), _number(args[1], "hold time"))
        elif verb == "tap":
            box.tap(self._uid(args))
        elif verb == "wait":
            if len(args) != 1:
                raise UsageError("wait needs SECONDS")
            box.advance(_number(args[0], "wait"))
        elif verb == "do":
            if not args:
                raise UsageError("do needs an ACTION")
            if app.session is None:
                app.reject("no game is being played")
            else:
                action = Action(args[0], parse_kv(args[1:], what=f"do {args[0]}"))
                try:
                    app.perform(action)
                except BadAction as err:
                    bare = args[1] if args[1:] and "=" not in args[1] else None
                    if bare is not None and "'id'" in str(err):
                        raise UsageError(
                            f"do {args[0]}: {bare!r} is not KEY=VALUE ({args[0]!r} takes no "
                            "bare value)"
                        ) from None
                    raise
                app.refresh()
        elif verb == "dice":
            if not args:
                raise UsageError("dice needs at least one value")
            values = []
            for a in args:
                value = whole_number(a)
                if value is None or value < 1:
                    raise UsageError(f"die value {a!r} is not a face (1, 2, ...)")
                values.append(value)
            app.dice.force(values)
        elif verb == "names":
            self._names(args)
        else:
            raise UsageError(
                f"unknown directive {verb!r} (game, press, hold, tap, wait, do, dice, names)"
            )

    def _names(self, args: list[str]) -> None:
        """``names NAME ...``: the seats of the game in play, seat 1 first; ``-`` unnamed."""
        if not args:
            raise UsageError("names needs a NAME per seat, seat 1 first (- leaves one unnamed)")
        for name in args:
            if name != "-" and not all(c.isalnum() or c in "_-" for c in name):
                raise UsageError(
                    f"names: {name!r} is not a name (one word of letters, digits, _ or -)"
                )
        app = self.app
        if app.session is None:
            app.reject("no game is being played")
            return
        try:
            app.name_seats([None if name == "-" else name for name in args])
        except BadName as err:
            raise UsageError(f"names: {err}") from None

    def line(self, number: int, words: list[str]) -> dict[str, Any]:
        """One script line, run to the end of what it sets off: its output object."""
        try:
            self.directive(words)
        except (BadAction, UsageError) as err:
            raise UsageError(f"line {number}: {err}") from None
        except Rejected as err:
            self.app.reject(err.reason)
        self.box.loop.drain()
        return self.snapshot(number)

    @staticmethod
    def _button(args: list[str], verb: str = "press") -> str:
        names = ", ".join(BUTTONS)
        if not args:
            raise UsageError(f"{verb} needs a BUTTON ({names})")
        if len(args) != 1:
            raise UsageError(f"{verb} takes one BUTTON, got {' '.join(args)!r} ({names})")
        if args[0] not in BUTTONS:
            raise UsageError(f"unknown button {args[0]!r} (use {names})")
        return args[0]

    @staticmethod
    def _options(game: str, tokens: Sequence[str]) -> dict[str, str]:
        names = games.available()
        keys = [o.name for o in games.get(game).options] if game in names else []
        return parse_kv(tokens, bare_id=False, what=f"game {game}", keys=keys)

    def _uid(self, args: list[str]) -> str:
        if len(args) != 1:
            raise UsageError("tap needs one UID or @CARD")
        text = args[0]
        if text.startswith("@"):
            card = self.app.registry.find(text[1:])
            if card is None:
                raise UsageError(f"no card is registered as {text[1:]!r}")
            return card.uid
        return text

    def snapshot(self, line: int) -> dict[str, Any]:
        app = self.app
        session = app.session
        screen, lights = app.shown if app.shown else app.current()
        out: dict[str, Any] = {
            "line": line,
            "t": round(self.box.clock.now(), 3),
            "game": session.name if session else None,
            "state": app.public_state(),
            "screen": screen.text_lines(),
            "leds": {"led": [round(c, 3) for c in lights.shown()]},
            "sounds": list(app.sounds),
            "log": list(app.logs),
        }
        if app.rejected is not None:
            out["rejected"] = app.rejected
        out["names"] = app.seat_names()
        if app.plays_added:
            out["plays"] = plays.shown(app.plays_added[-1])
        app.plays_added.clear()
        app.sounds.clear()
        app.logs.clear()
        app.rejected = None
        return out


def script_lines(text: str) -> Iterator[tuple[int, list[str]]]:
    return script_lines_stream(text.splitlines())


def script_lines_stream(raw_lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """Directives as they come (standard input is read a line at a time, not all at once)."""
    for number, raw in enumerate(raw_lines, start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            words = shlex.split(stripped)
        except ValueError as err:
            raise UsageError(f"line {number}: cannot split {stripped!r} ({err})") from None
        yield number, words


def run(
    lines: Iterable[tuple[int, list[str]]],
    emit: Callable[[dict[str, Any]], None],
    *,
    config: Config | None = None,
    state_dir: Path | None = None,
    game: str | None = None,
    sets: Sequence[str] = (),
    seed: int = 0,
) -> None:
    """Run directives, calling ``emit`` with each line's output object. A state dir that
    refuses writes (full, read-only) stops it with StateDirError naming the dir: what replay
    prints must be what the box would keep."""
    config = config or Config()
    try:
        scratch = tempfile.TemporaryDirectory(prefix="trap-replay-", ignore_cleanup_errors=True)
    except OSError as err:
        where = os.environ.get("TMPDIR") or "/tmp"  # Python found none it could write
        raise StateDirError(
            f"{where}: replay's state directory cannot be made there "
            f"({err.strerror or err}; choose another with TMPDIR or state.dir)"
        ) from None
    with scratch as tmp:
        if state_dir is None and not config.state.dir:
            state_dir = Path(tmp)
        box = SimulatedBox(config, state_dir=state_dir, seed=seed, today=lambda: REPLAY_DATE)
        try:
            _writable(box, condition=storage.probe(box.app.journal.path.parent))
            box.app.start()
            box.loop.drain()
            _writable(box)
            replay = Replay(box)
            if game is not None:
                try:
                    box.app.new_game(game, parse_kv(sets, bare_id=False))
                except (BadAction, UsageError) as err:
                    raise UsageError(f"--game {game} --set: {err}") from None
            replay.snapshot(0)  # start-up's sounds and log are not the first line's
            for number, words in lines:
                out = replay.line(number, words)
                _writable(box, f" at line {number}")
                emit(out)
        finally:
            box.close()


# What the person running a script can do about each condition of the state dir's storage.
REMEDIES = {
    storage.FULL: "free some space",
    storage.READ_ONLY: "mount it writable",
    storage.FAILING: "check the disk",
}


def _writable(box: SimulatedBox, where: str = "", condition: str = "") -> None:
    """StateDirError if the box's storage refuses its moves (exit 73), naming the dir;
    ``condition``: as a look at it tells, before the box starts."""
    journal = box.app.journal
    if journal.newer is not None:  # a newer release's journal: left as it is (exit 75)
        raise journal.newer
    condition = condition or journal.condition
    if condition != storage.OK:
        raise StateDirError(
            f"{journal.path.parent}: the state directory takes no writes{where} "
            f"({storage.NOTICES[condition]}): {REMEDIES[condition]} "
            "or choose another with TMPDIR or state.dir"
        )


def run_script(
    text: str,
    *,
    game: str | None = None,
    sets: Sequence[str] = (),
    seed: int = 0,
    config: Config | None = None,
    state_dir: Path | None = None,
) -> list[dict[str, Any]]:
    """The output objects of a whole script (tests use this)."""
    out: list[dict[str, Any]] = []
    run(
        script_lines(text),
        out.append,
        config=config,
        state_dir=state_dir,
        game=game,
        sets=sets,
        seed=seed,
    )
    return out


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(", ", ": "), ensure_ascii=False)
