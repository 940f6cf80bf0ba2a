"""The game's actions: dice rolled, rules applied, the journal appended and fsync'ed, then the
effects (sounds, logs, timers); new games, undo and the records of finished games."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from companion.app.session import Session
from companion.core.journal import Step, undo_steps
from companion.games import registry as games
from companion.games.base import (
    Action,
    Ask,
    BadAction,
    Cancel,
    Effect,
    Log,
    Pages,
    Rejected,
    Reply,
    Schedule,
    Sound,
)
from companion.ui import menus
from companion.ui import records as record_pages
from companion.ui.screen import RED

# One name for all the box's log lines, the same as before the App was split into pieces.
log = logging.getLogger("companion.app")


class Actions:
    """The game's actions, from dice to journal to effects (a part of App)."""

    def game_time(self) -> float:
        """The clock as games see it: continuous across restarts of the daemon."""
        return round(self.clock.now() + self.time_offset, 6)

    def answer(self, reply: Reply) -> None:
        """Do what a control map answered: an action is submitted; a menu of the game's forms
        or its information pages opens (walking them is never journaled)."""
        if isinstance(reply, Action):
            self.submit(reply, from_input=True)
        elif isinstance(reply, Ask):
            refused = reply.forms[0].refused if len(reply.forms) == 1 else None
            if reply.walk.in_play and refused:  # refused as an action is: nothing changes
                self.reject(refused)
                return
            self.under_menu = None  # a new question replaces one that waited
            self.menu = self.play_form = menus.FormMenu(reply)
            self._menu_command(self.menu.start())
        elif isinstance(reply, Pages):
            self.under_menu = None
            self.menu = self.play_form = menus.PageMenu(reply)

    def perform(self, action: Action) -> None:
        """``do ACTION`` in replay: an action the game answers with a question (its
        ``opens``) opens it; any other is submitted. BadAction propagates."""
        session = self.session
        opens = getattr(session.rules, "opens", None) if session else None
        reply = opens(session.state, action) if opens is not None else None
        if reply is None:
            self.submit(action)
        else:
            self.answer(reply)

    def ask_next(self) -> None:
        """Open the question a game puts by itself now (its ``next_question``: after an
        action, an undo or a power cut), unless a menu is open."""
        session = self.session
        asks = getattr(session.rules, "next_question", None) if session else None
        if asks is None or self.menu is not None:
            return
        reply = asks(session.state)
        if reply is not None:
            self.answer(reply)

    def in_play_menu(self) -> bool:
        """A menu that is a part of play (Walk.in_play) is open."""
        menu = self.menu
        if menu is None or menu is not self.play_form:
            return False
        shown = menu.ask if isinstance(menu, menus.FormMenu) else getattr(menu, "pages", None)
        return shown is not None and shown.walk.in_play

    def submit(
        self, action: Action, from_input: bool = False, auto: bool = False, journal: bool = True
    ) -> bool:
        """Roll what the action needs, apply the rules, journal, then effects. True if accepted.

        BadAction propagates to callers that feed text (replay); input from buttons is logged.
        ``journal`` false: a timer's tick, applied for the screen but never journaled.
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
        played = journal and not getattr(rules, "navigation", lambda action: False)(action)
        if played:
            self.journal.action(action.to_json(), auto=auto)  # fsync before anything shows
            session.add(Step(action, auto), outcome.effects)
            if self.in_play_menu():  # play went on: a question that was a part of it closes
                self.menu = self.play_form = None
            self.under_menu = None
        # else a timer's tick (the screen's, ``journal`` false) or a change the game only
        # shows (``navigation``: the dice tool's history page): shown, never journaled and
        # never a step (a fold, an undo or a power cut comes back without it, by restore)
        session.state = outcome.state
        self.effects(outcome.effects)
        self.keep_result(announce=True)
        if played:
            self.ask_next()
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
            self.note(f"result kept: {added.score} {added.unit} on {added.shown_date}")
            self.menu = menus.PageMenu(
                record_pages.pages(session.rules.title, self.records, session.name, added)
            )

    def play(self, cue: str) -> None:
        """Sound a cue, and note it for replay's ``sounds`` and the faces."""
        if self.recording or self.faces:
            self.sounds.append(cue)
        self.buzzer.play(cue)

    def note(self, text: str) -> None:
        """A line for replay's ``log`` and journald."""
        log.info("%s", text)
        if self.recording or self.faces:
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
                fire = self._scheduled(effect.action, effect.journal)
                self.loop.call_at(due, fire, f"game:{effect.key}")
            elif isinstance(effect, Cancel):
                self.loop.cancel(f"game:{effect.key}")

    def _scheduled(self, action: Action, journal: bool = True) -> Callable[[], None]:
        def fire() -> None:
            if self.session is None:
                return
            try:
                moved = self.submit(action, from_input=True, auto=True, journal=journal)
                if moved and journal and isinstance(self.menu, menus.FormMenu):
                    # The game moved on by itself (a time-up ended the turn, a claim's wait
                    # ran out): a question asked before it no longer fits. Close it, as back
                    # would (cards tapped while it was open are not taken).
                    self.menu = None
                    self.note("the game moved on: its question is closed")
                    self.play_form = None
                    self._take_held_taps(answered=False)  # what waited for it goes with it
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
        session.game_id = self.journal.new_game(
            name, dict(raw_options), session.setup_rolls, session.started_at
        )
        self.session = session
        self.menu = None
        self.play_form, self.held_taps, self.under_menu = None, [], None
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
        stopped = session.steps[last].action.at  # play stopped at the action taken back
        steps = list(session.steps)
        undo_steps(steps)
        session.rebuild(steps)
        self._cancel_game_timers()
        self._restore(stopped)
        self.keep_result(announce=False)
        self.note(f"undone: {label}")
        self.play("undo")
        self.under_menu = None
        self.ask_next()
        return True
