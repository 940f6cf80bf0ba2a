"""The box: config, parts, the loop, the journal, the card registry and the game, wired together.

Everything here runs on the loop's consumer thread. The order that makes power cuts harmless:
rules accept an action -> journal append + fsync -> effects (sound, timers) -> screen.
"""

from __future__ import annotations

import datetime
import logging
import random
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from companion.core.clock import Clock
from companion.core.config import Config
from companion.core.events import ButtonEdge, CardSeen, Event, ReaderStatus
from companion.core.journal import GameRecord, Journal, Step, undo_steps
from companion.core.loop import Loop
from companion.core.records import RECORDS_FILE, Records
from companion.core.registry import Card, Registry, demo_uid
from companion.games import registry as games
from companion.games.base import (
    Action,
    Ask,
    BadAction,
    Cancel,
    Effect,
    Log,
    Pages,
    Press,
    Rejected,
    Reply,
    Schedule,
    Sound,
    Tap,
)
from companion.hal.buttons import ButtonPins, PressLogic
from companion.hal.lights import Led
from companion.hal.sound import Sound as Buzzer
from companion.ui import menus, notice
from companion.ui import records as record_pages
from companion.ui.screen import OFF, RED, RGB, Lights, Screen

log = logging.getLogger(__name__)

TOAST_SECONDS = 2.5
MENU_LIGHT: RGB = (0.25, 0.25, 0.25)  # a dim white: no game colour means "menu"
READER_DOWN = ("reader lost", "reader error")  # how the runner's status says it cannot read


class DiceSource:
    """Where die faces come from: values entered from physical dice first, else the RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.forced: deque[int] = deque()

    def force(self, values: Iterable[int]) -> None:
        self.forced.extend(values)

    def roll(self, faces: tuple[int, ...]) -> tuple[tuple[int, ...], list[int]]:
        """The rolls, and which forced values they used (to give back if the action fails)."""
        rolls, used = [], []
        for n in faces:
            if self.forced:
                value = self.forced.popleft()
                used.append(value)
                if not 1 <= value <= n:
                    self.forced.extendleft(reversed(used))
                    raise Rejected(f"a d{n} has no face {value}")
                rolls.append(value)
            else:
                rolls.append(self.rng.randint(1, n))
        return tuple(rolls), used

    def give_back(self, used: list[int]) -> None:
        self.forced.extendleft(reversed(used))


@dataclass
class Session:
    """The game being played: its rules object, parsed options and current state."""

    name: str
    rules: Any
    raw_options: dict[str, str]
    options: dict[str, Any]
    setup_rolls: tuple[int, ...]
    state: Any
    steps: list[Step] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # per step: its first log line, for undo
    opening: tuple[Effect, ...] = ()  # effects of ``initial``, played once at a new game
    started_at: float = 0.0  # the game's start on the game clock: names its records

    @property
    def record_key(self) -> str:
        return f"{self.name}@{self.started_at:.6f}"

    def add(self, step: Step, effects: Iterable[Effect] = ()) -> None:
        self.steps.append(step)
        label = next((e.text for e in effects if isinstance(e, Log)), "")
        self.labels.append(label or (step.action.name if step.action else ""))

    def last_by_person(self) -> int | None:
        return next(
            (i for i in range(len(self.steps) - 1, -1, -1) if self.steps[i].by_person), None
        )

    def rebuild(self, steps: list[Step]) -> None:
        """State and labels from standing steps, exactly as the journal's fold gives them.
        Raises what the rules raise, for a journal the rules no longer accept."""
        self.state = self.rules.initial(self.options, self.setup_rolls).state
        self.steps, self.labels = [], []
        for step in steps:
            if step.action is None:
                self.state = self.rules.restore(self.state)
                self.add(step)
            else:
                outcome = self.rules.apply(self.state, step.action)
                self.state = outcome.state
                self.add(step, outcome.effects)


@dataclass
class Parts:
    """The hardware the app drives, built by whoever starts it (daemon, sim, replay, tests)."""

    factory: Any
    display: Any  # companion.hal.display.Display
    reader: Callable[[], Any] | None = None  # driver factory for the ReaderRunner
    reader_kind: str = "none"


class App:
    def __init__(
        self,
        config: Config,
        clock: Clock,
        parts: Parts,
        rng: random.Random | None = None,
        demo_cards: bool = False,
        recording: bool = False,
        today: Callable[[], str] | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.parts = parts
        self.loop = Loop(clock, self.handle)
        self.dice = DiceSource(rng or random.SystemRandom())
        self.display = parts.display
        cfg = config
        self.pins = ButtonPins(cfg.buttons.pins(), parts.factory, self.loop.post, clock)
        self.presses = PressLogic(
            self.on_press,
            self.loop.call_at,
            self.loop.cancel,
            cfg.buttons.hold_seconds,
            cfg.buttons.debounce_ms / 1000,
        )
        self.led = Led(cfg.led.red, cfg.led.green, cfg.led.blue, parts.factory, cfg.led.brightness)
        self.buzzer = Buzzer(
            cfg.buzzer.pin,
            parts.factory,
            cfg.buzzer.volume,
            self.loop.call_at,
            self.loop.cancel,
            clock.now,
        )
        state_dir = cfg.state_dir()
        self.journal = Journal(state_dir / "journal.jsonl")
        self.problems: list[tuple[str, ...]] = []  # shown once the box is up
        self._attach_games(state_dir)
        self.registry, registry_problem = Registry.open_or_set_aside(
            state_dir / "cards.toml", self._demo_cards() if demo_cards else ()
        )
        if registry_problem:
            self.problems.append(("Card list unreadable", "set aside, see log"))
        # Finished games' results, dated by the wall clock (replay passes its own, fixed one).
        self.today = today or (lambda: datetime.date.today().isoformat())
        self.records, records_problem = Records.open_or_set_aside(state_dir / RECORDS_FILE)
        if records_problem:
            self.problems.append(("Records unreadable", "set aside, see log"))
        self.table_dice = config.dice.source == "table"
        self.session: Session | None = None
        self.menu: menus.Menu | None = None
        self.toast: tuple[Screen, Lights] | None = None  # a notice over the screen for a moment
        self.toast_pages: tuple[Screen, ...] = ()  # the notice's pages still to come
        self.time_offset = 0.0
        self.runner: Any = None
        self.presence: Any = None
        self.reader_status = "no reader" if parts.reader is None else "reader starting"
        # What replay reports per line, reset by whoever reads it.
        self.recording = recording  # only replay and the simulator read these; the daemon not
        self.sounds: list[str] = []
        self.logs: list[str] = []
        self.rejected: str | None = None
        self.shown: tuple[Screen, Lights] | None = None
        self.on_refresh: list[Callable[[], None]] = []

    # --- start and stop ------------------------------------------------------------------

    def _demo_cards(self) -> list[Card]:
        """Every catalog card gets a made-up UID, so the simulator and replay have a deck."""
        from companion.hal.readers.base import canonical_uid

        cards = []
        kind = self.parts.reader_kind if self.parts.reader_kind != "none" else "pn532"
        for name in games.available():
            for entry in games.get(name).catalog():
                uid = canonical_uid(demo_uid(name, entry.id), kind)
                cards.append(Card(uid, name, entry.id, entry.name))
        return cards

    def _attach_games(self, state_dir: Any) -> None:
        """Games that read the owner's own files (a card pack) read them from the state dir."""
        for name in games.available():
            attach = getattr(games.get(name), "attach", None)
            if attach is not None:
                problem = attach(state_dir)
                if problem:
                    self.problems.append(tuple(problem))

    def start(self) -> None:
        record = self.journal.open()
        if record is not None:
            self._resume(record)
        else:
            self.open_game_menu()
        for aside in self.journal.warnings:  # the journal has logged them
            if aside.kept:  # what still folds was kept: say how much
                kept = f"kept {aside.kept}/{aside.lines} lines"
                self.problems.append(("Saved game damaged", kept, "rest set aside"))
            else:
                self.problems.append(("Saved game damaged", "set aside, see log"))
        if self.parts.reader is not None:
            self._start_reader()
        if self.problems:  # every one of them, paged
            self._toast(tuple(line for problem in self.problems for line in problem))
        self.refresh()

    def _start_reader(self) -> None:
        from companion.hal.readers.runner import Presence, ReaderRunner

        self.presence = Presence(self.config.reader.removal_seconds)
        self.runner = ReaderRunner(
            self.parts.reader,
            on_seen=lambda uid: self.loop.post(CardSeen(uid, self.clock.now())),
            on_status=lambda text: self.loop.post(ReaderStatus(text)),
        )
        self.runner.start()

    def _resume(self, record: GameRecord) -> None:
        session = None
        try:
            session = self._build(record.game, record.options, record.setup_rolls)
            session.rebuild(record.steps)
        except (BadAction, Rejected, KeyError, TypeError, ValueError) as err:
            why = f"cannot replay the saved {record.game} game: {err}"
            self.journal.close()
            if session is not None:  # the game set up, up to the step refused
                self.journal.keep_game(why, record, len(session.steps))
                self._resume(self.journal.open())
                return
            self.journal.move_aside(why)
            self.journal.open()
            self.open_game_menu()
            return
        session.started_at = record.started_at
        self.session = session
        self._restore()
        self.keep_result(announce=False)  # a cut between the journal and the records
        actions = record.actions
        last_at = actions[-1].at if actions else record.started_at
        self.time_offset = max(0.0, last_at - self.clock.now())
        log.info("resumed %s after %d actions", record.game, len(actions))

    def _restore(self) -> None:
        """Pause what a power cut or an undo interrupted, and say so in the journal, so that
        folding the journal later gives this very state (not the unpaused one)."""
        session = self.session
        restored = session.rules.restore(session.state)
        if restored != session.state:
            self.journal.restore()
            session.state = restored
            session.add(Step(None))

    def workers_alive(self) -> bool:
        reader_ok = self.runner is None or self.runner.alive
        return reader_ok and self.pins.alive()

    def shutdown(self) -> None:
        """Stop cleanly: journal closed, LED off, a 'stopped' screen."""
        if self.runner is not None:
            self.runner.stop(timeout=1.0)
        self.journal.close()
        self.buzzer.close()
        self.led.close()
        self.display.show(Screen("Trap Companion", ("Stopped",), footer=""))
        self.display.close(keep_picture=True)
        self.pins.close()

    # --- time and dice -----------------------------------------------------------------------

    def game_time(self) -> float:
        """The clock as games see it: continuous across restarts of the daemon."""
        return round(self.clock.now() + self.time_offset, 6)

    # --- events ----------------------------------------------------------------------------

    def handle(self, event: Event) -> None:
        if isinstance(event, ButtonEdge):
            self.presses.edge(event.button, event.pressed, event.t)
        elif isinstance(event, CardSeen):
            self._card_seen(event.uid, event.t)
        elif isinstance(event, ReaderStatus):
            was_down = self.reader_status.startswith(READER_DOWN)
            self.reader_status = event.text
            if not event.text.startswith(READER_DOWN):
                log.info("%s", event.text)
            elif was_down:
                log.debug("%s", event.text)  # every retry: said once per outage
            else:
                log.warning("card reader unavailable, games without cards play on: %s", event.text)
                self._toast(("Card reader", "not answering", "retrying..."))
            self.refresh()

    def _card_seen(self, uid: str, t: float) -> None:
        # The read's own time, not the handling time: a busy loop must not re-tap a resting card.
        for what, who in self.presence.seen(uid, t):
            if what == "tap":
                self.on_tap(who)
        deadline = self.presence.deadline()
        if deadline is not None:
            self.loop.call_at(deadline, self._presence_expire, "presence")

    def _presence_expire(self) -> None:
        for what, who in self.presence.expire(self.clock.now()):
            log.debug("card %s %s", who, what)

    def _dismiss_toast(self) -> None:
        """Any input answers at once: an old notice must not cover the answer."""
        self.toast, self.toast_pages = None, ()
        self.loop.cancel("toast")

    def on_press(self, button: str, long: bool) -> None:
        self._dismiss_toast()
        if self.menu is not None:
            self._menu_press(button, long)
        elif button == "back":
            if self.session is None:
                self.open_game_menu()
            elif long:
                self.ask_undo()
            else:
                self.open_session_menu()
        elif self.session is not None:
            self.answer(self.session.rules.control(self.session.state, Press(button, long)))
        self.refresh()

    def on_tap(self, uid: str) -> None:
        self._dismiss_toast()
        card = self.registry.lookup(uid)
        if isinstance(self.menu, menus.EnrolRun):
            self._copy_tapped(self.menu, uid, card)
            self.refresh()
            return
        if card is None:
            self.note(f"card {uid}: unknown")
            self.play("card_unknown")
            if isinstance(self.menu, menus.Enrol):
                self.menu = None
            self.offer_enrol(uid)
            self.refresh()
            return
        self.play("card_ok")
        session = self.session
        name = card.name
        if session is not None and card.game == session.name:
            secret = getattr(session.rules, "secret_card", lambda card: None)
            name = secret(card.as_tap()) or name
        self.note(f"card {uid}: {name}")
        if session is None or self.menu is not None:
            self._toast((name, "start a game first" if session is None else ""))
        elif card.game != session.name:
            title = games.get(card.game).title if card.game in games.available() else card.game
            self._toast((name, f"a {title} card"))
        elif not self._play_card(card):
            self._toast((name, "not needed now"))
        self.refresh()

    def _play_card(self, card: Card) -> bool:
        """A tap of a card of the game being played, as its control map reads it."""
        session = self.session
        if session is None or card.game != session.name:
            return False
        reply = session.rules.control(session.state, Tap(card.uid, card.as_tap()))
        if reply is None:
            return False
        self.answer(reply)
        return True

    # --- actions ---------------------------------------------------------------------------

    def answer(self, reply: Reply) -> None:
        """Do what a control map answered: an action is submitted; a menu of the game's forms
        or its information pages opens (walking them is never journaled)."""
        if isinstance(reply, Action):
            self.submit(reply, from_input=True)
        elif isinstance(reply, Ask):
            self.menu = menus.FormMenu(reply)
            self._menu_command(self.menu.start())
        elif isinstance(reply, Pages):
            self.menu = menus.PageMenu(reply)

    def submit(self, action: Action, from_input: bool = False, auto: bool = False) -> bool:
        """Roll what the action needs, apply the rules, journal, then effects. True if accepted.

        BadAction propagates to callers that feed text (replay); input from buttons is logged.
        """
        session = self.session
        if session is None:
            raise Rejected("no game is being played")
        rules = session.rules
        used: list[int] = []
        try:
            faces = rules.dice_for(session.state, action)
            rolls = action.rolls
            if faces and not rolls and self.table_dice and not self.dice.forced:
                labels = getattr(rules, "dice_labels", lambda state, action: ())
                self.menu = menus.DiceEntry(
                    tuple(faces), action, tuple(labels(session.state, action))
                )
                return False
            if faces and not rolls:
                rolls, used = self.dice.roll(tuple(faces))
            action = replace(action, rolls=tuple(rolls), at=self.game_time())
            outcome = rules.apply(session.state, action)
        except Rejected as err:
            self.dice.give_back(used)
            self.reject(err.reason)
            return False
        except BadAction as err:
            self.dice.give_back(used)
            if not from_input:
                raise
            log.error("control map produced a bad action %r: %s", action, err)
            return False
        nav = getattr(rules, "navigation", lambda action: False)(action)
        self.journal.action(action, auto=auto, nav=nav)  # fsync before anything shows
        session.state = outcome.state
        session.add(Step(action, auto, nav), outcome.effects)
        self.effects(outcome.effects)
        self.keep_result(announce=True)
        return True

    def keep_result(self, announce: bool) -> None:
        """Bring the records in line with the game's result, if the game reports one (a game
        just finished, or undone past its end); announce a new one with its pages."""
        session = self.session
        report = getattr(session.rules, "result", None)
        if report is None:
            return
        try:
            added = self.records.sync(
                session.record_key, session.name, report(session.state), self.today()
            )
        except OSError as err:
            log.error("records not saved: %s", err)
            self._toast(("Records not saved", "see log"), RED)
            return
        if added is not None and announce:
            self.note(f"result kept: {added.score} {added.unit} on {added.date}")
            self.menu = menus.PageMenu(
                record_pages.pages(session.rules.title, self.records, session.name, added)
            )

    def play(self, cue: str) -> None:
        """Sound a cue, and note it for replay's ``sounds``."""
        if self.recording:
            self.sounds.append(cue)
        self.buzzer.play(cue)

    def note(self, text: str) -> None:
        """A line for replay's ``log`` and journald."""
        log.info("%s", text)
        if self.recording:
            self.logs.append(text)

    def reject(self, reason: str) -> None:
        self.rejected = reason
        self.play("error")
        self.note(f"not allowed: {reason}")
        self._toast((reason,), RED, title="Not allowed")

    def effects(self, effects: Iterable[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Log):
                self.note(effect.text)
            elif isinstance(effect, Sound):
                self.play(effect.cue)
            elif isinstance(effect, Schedule):
                due = self.clock.now() + effect.seconds
                self.loop.call_at(due, self._scheduled(effect.action), f"game:{effect.key}")
            elif isinstance(effect, Cancel):
                self.loop.cancel(f"game:{effect.key}")

    def _scheduled(self, action: Action) -> Callable[[], None]:
        def fire() -> None:
            if self.session is None:
                return
            try:
                self.submit(action, from_input=True, auto=True)
            finally:
                self.refresh()

        return fire

    def _cancel_game_timers(self) -> None:
        self.loop.cancel_prefix("game:")

    def _build(self, name: str, raw: dict[str, Any], rolls: tuple[int, ...] | None) -> Session:
        rules = games.get(name)
        options = rules.check_options({k: str(v) for k, v in raw.items()})
        if rolls is None:
            rolls, _ = self.dice.roll(tuple(rules.setup_dice(options)))
        outcome = rules.initial(options, tuple(rolls))
        return Session(
            name, rules, dict(raw), options, tuple(rolls), outcome.state, opening=outcome.effects
        )

    def new_game(self, name: str, raw_options: dict[str, str]) -> None:
        """Start a game; BadAction (unknown game or option) propagates to the caller."""
        session = self._build(name, raw_options, None)
        self._cancel_game_timers()
        session.started_at = self.game_time()
        self.journal.new_game(name, dict(raw_options), session.setup_rolls, session.started_at)
        self.session = session
        self.menu = None
        self.note(f"new game: {session.rules.title}")
        self.effects(session.opening)
        self.refresh()

    def undo(self) -> bool:
        """Take back the last action a person made (and the timer ticks after it)."""
        session = self.session
        last = session.last_by_person() if session else None
        if last is None:
            self.reject("nothing to undo")
            return False
        self.journal.undo()
        label = session.labels[last]
        steps = list(session.steps)
        undo_steps(steps)
        session.rebuild(steps)
        self._cancel_game_timers()
        self._restore()
        self.keep_result(announce=False)
        self.note(f"undone: {label}")
        self.play("undo")
        return True

    # --- menus -----------------------------------------------------------------------------

    def open_game_menu(self) -> None:
        names = games.available()
        titles = [games.get(n).title for n in names]
        self.menu = menus.ListMenu("Choose a game", titles, names, "pick_game")

    def _game_hook(self, hook: str) -> None:
        """Submit what the game asks for when its play stops or goes on around the box's menu
        (a turn timer pauses while the menu is open); games without the hook ignore it."""
        session = self.session
        ask = getattr(session.rules, hook, None) if session else None
        action = ask(session.state) if ask else None
        if action is not None:
            self.submit(action, from_input=True, auto=True)

    def open_session_menu(self) -> None:
        self._game_hook("pause_action")
        items = ["Resume", "Undo last", "New game", "Other game"]
        keys = ["resume", "undo", "new_game", "switch_game"]
        if getattr(self.session.rules, "uses_dice", True):  # a game without dice: no choice
            items.append("Dice: table" if self.table_dice else "Dice: box")
            keys.append("dice")
        if hasattr(self.session.rules, "result"):
            items.append("Records")
            keys.append("records")
        if tuple(self.session.rules.catalog()):
            items.append("Enrol copies")
            keys.append("enrol_run")
        self.menu = menus.ListMenu(self.session.rules.title, items, keys, "session")

    def ask_undo(self) -> None:
        session = self.session
        last = session.last_by_person() if session else None
        if last is None:
            self.reject("nothing to undo")
            return
        what = notice.wrap(session.labels[last])
        # A long step takes all three lines (the title asks already); the renderer shrinks it.
        what = [*what[:2], " ".join(what[2:])] if len(what) > 2 else ["Take back:", *what]
        self.menu = menus.Confirm("Undo?", tuple(what), menus.Command("undo"))

    def _copy_tapped(self, run: menus.EnrolRun, uid: str, card: Card | None) -> None:
        """A tap during an enrolment run: a new tag is enrolled and counted; a tag that is
        already something else is named and waits for a yes."""
        run.asking = None
        if uid in run.seen:
            run.said = f"again {uid}"
            self.play("card_ok")
        elif card is None:
            self._enrol_copy(run, uid)
        elif (card.game, card.card, card.fields) == (run.game, run.kind.id, run.values):
            run.seen.add(uid)
            run.count += 1
            run.said = f"already {uid}"
            self.play("card_ok")
        else:
            self.note(f"card {uid}: {card.name}, asking before making it {run.kind.name}")
            run.asking = (uid, card.name)
            self.play("card_unknown")

    def _enrol_copy(self, run: menus.EnrolRun, uid: str) -> None:
        card = Card(uid, run.game, run.kind.id, run.kind.name, dict(run.values))
        self.registry.enrol(card)
        run.seen.add(uid)
        run.count += 1
        run.said = f"added {uid}"
        self.note(f"enrolled {uid} as {run.kind.name} ({run.count} in this run)")
        self.play("card_ok")

    def offer_enrol(self, uid: str) -> None:
        game = self.session.name if self.session else None
        kinds: tuple = ()
        if game is not None:
            kinds = tuple(self.session.rules.catalog())
        if not kinds:
            self.menu = None
            self._toast(("Unknown card", uid, "no cards to enrol"))
            return
        self.menu = menus.Confirm(
            "Unknown card", (uid, "Enrol it?"), menus.Command("enrol", {"uid": uid, "game": game})
        )

    def _menu_press(self, button: str, long: bool) -> None:
        self._menu_command(self.menu.press(button, long))

    def _menu_command(self, command: menus.Command) -> None:
        kind, data = command.kind, command.data
        if kind == "stay":
            return
        left_session_menu = getattr(self.menu, "on_pick", None) == "session"
        # An enrolment run is opened from the session menu: leaving it goes back to play.
        left_run = isinstance(self.menu, menus.EnrolRun) or (
            isinstance(self.menu, menus.Enrol) and not self.menu.uid
        )
        self.menu = None
        if (left_session_menu and (kind == "close" or data.get("key") in ("resume", "dice"))) or (
            left_run and kind == "close"
        ):
            self._game_hook("resume_action")
        if kind == "close":
            if self.session is None:
                self.open_game_menu()
        elif kind == "pick_game":
            rules = games.get(data["key"])
            self.menu = menus.OptionsMenu(data["key"], rules.title, tuple(rules.options))
        elif kind == "start":
            self.new_game(data["game"], data["options"])
        elif kind == "undo":
            self.undo()
        elif kind == "session":
            key = data["key"]
            if key == "undo":
                self.ask_undo()
            elif key == "new_game":
                rules = self.session.rules
                self.menu = menus.OptionsMenu(
                    self.session.name,
                    rules.title,
                    tuple(rules.options),
                    dict(self.session.raw_options),
                )
            elif key == "switch_game":
                self.open_game_menu()
            elif key == "records":
                session = self.session
                book = record_pages.pages(session.rules.title, self.records, session.name)
                self.menu = menus.PageMenu(book)
            elif key == "enrol_run":
                kinds = tuple(self.session.rules.catalog())
                self.menu = menus.Enrol("", self.session.name, kinds)
            elif key == "dice":
                self.table_dice = not self.table_dice
                where = "the table's dice" if self.table_dice else "the box"
                self.note(f"dice now come from {where}")
                self._toast(("Dice now from", where))
        elif kind == "form_done":
            self.submit(data["action"], from_input=True)
        elif kind == "refused":
            self.reject(data["reason"])
        elif kind == "dice_entered":
            self.submit(replace(data["action"], rolls=data["rolls"]), from_input=True)
        elif kind == "enrol":
            kinds = tuple(games.get(data["game"]).catalog())
            self.menu = menus.Enrol(data["uid"], data["game"], kinds)
        elif kind == "enrol_run":
            self.menu = data["run"]
            self.note(f"enrolling copies of {data['run'].kind.name}")
        elif kind == "enrol_copy":
            self.menu = data["run"]
            self._enrol_copy(data["run"], data["uid"])
        elif kind == "enrol_done":
            card = Card(data["uid"], data["game"], data["card"], data["name"], data["fields"])
            self.registry.enrol(card)
            self.note(f"enrolled {card.uid} as {card.name}")
            self.play("card_ok")
            if not self._play_card(card):  # the tap that asked for the enrolment counts
                self._toast(("Enrolled:", card.name))

    # --- screen ----------------------------------------------------------------------------

    def _toast(self, lines: tuple[str, ...], color: RGB = MENU_LIGHT, title: str = "") -> None:
        """A notice for a moment, a page at a time: all its words, none cut."""
        title = title or (self.session.rules.title if self.session else "Trap Companion")
        first, *rest = notice.pages(title, [line for line in lines if line])
        self.toast, self.toast_pages = (first, Lights(color)), tuple(rest)
        self.loop.call_later(TOAST_SECONDS, self._toast_over, "toast")

    def _toast_over(self) -> None:
        if self.toast is not None and self.toast_pages:
            (page, *rest), lights = self.toast_pages, self.toast[1]
            self.toast, self.toast_pages = (page, lights), tuple(rest)
            self.loop.call_later(TOAST_SECONDS, self._toast_over, "toast")
        else:
            self.toast = None
        self.refresh()

    def current(self) -> tuple[Screen, Lights]:
        if self.toast is not None:
            return self.toast
        if self.menu is not None:
            return self.menu.screen(), Lights(MENU_LIGHT, "solid")
        if self.session is not None:
            return self.session.rules.view(self.session.state)
        return Screen("Trap Companion", ("Press back",)), Lights(OFF)

    def refresh(self) -> None:
        screen, lights = self.current()
        if self.shown is None or self.shown[0] != screen:
            self.display.show(screen)
        self.led.show(lights)
        self.shown = (screen, lights)
        for hook in self.on_refresh:
            hook()

    def status_line(self) -> str:
        game = self.session.rules.title if self.session else "menu"
        reader = self.reader_status
        if reader.startswith(READER_DOWN):
            reader = f"{reader} (retrying)"
        return f"{game}; {self.display.status}; {reader}"
