"""Input arriving on the loop: button edges become presses, card reads become taps, the
reader's status is kept; each then goes to the open menu or the game in play."""

from __future__ import annotations

import logging

from companion.app.refresh import READER_DOWN
from companion.core.events import ButtonEdge, CardSeen, Event, ReaderStatus
from companion.core.registry import Card
from companion.games import registry as games
from companion.games.base import Press, Tap
from companion.ui import menus

# One name for all the box's log lines, the same as before the App was split into pieces.
log = logging.getLogger("companion.app")


class Inputs:
    """Buttons, cards and reader status arriving on the loop (a part of App)."""

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

    def on_press(self, button: str, long: bool) -> None:
        self._dismiss_toast()
        if button == "back":  # the box's own menu opens over a question of play: it waits
            self.cover_play_menu()
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
        self.back_under_menu()
        self.refresh()

    def cover_play_menu(self) -> None:
        """The box's own menu is about to open: a menu that is a part of play waits under it."""
        if self.in_play_menu():
            self.under_menu = (self.menu, self.session.state)
            self.menu = self.play_form = None

    def back_under_menu(self) -> None:
        """The box's menu is gone: the question of play it covered comes back, if play is
        where it was (an undo or a new game took it away)."""
        waiting, self.under_menu = self.under_menu, None
        if waiting is None or self.menu is not None:
            self.under_menu = waiting
            return
        menu, state = waiting
        if self.session is not None and self.session.state is state:
            self.menu = self.play_form = menu

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
            self.cover_play_menu()
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
        in_play = self.in_play_menu()  # a question that is a part of play: the tap plays
        if session is not None and card.game == session.name and self._form_open() and not in_play:
            # Cards laid fast (a claim's hostages, a play's cards) while a question of the
            # game is still being answered: each is still a tap, taken once it is done.
            self.held_taps.append(card)
            self.note(f"card {uid}: taken once the form is done")
        elif session is None or (self.menu is not None and not in_play):
            self._toast((name, "start a game first" if session is None else ""))
        elif card.game != session.name:
            title = games.get(card.game).title if card.game in games.available() else card.game
            self._toast((name, f"a {title} card"))
        elif not self._play_card(card):
            self._toast((name, "not needed now"))
        self.refresh()

    def _form_open(self) -> bool:
        """A form or pages that play opened (not the box's own menus) is on screen."""
        return self.menu is not None and self.menu is self.play_form

    def _take_held_taps(self, answered: bool) -> None:
        """The form the held taps waited for is gone: with an answer, each is played in turn
        (one may open a form again: the rest wait for it); left with back, they are dropped
        and the screen says so, as the table gave up what the first card began."""
        if not self.held_taps:
            return
        if self.menu is not None and answered:  # the answer asks on (the table's dice): wait
            self.play_form = self.menu
            return
        held, self.held_taps = self.held_taps, []
        if not answered:
            self.note(f"{len(held)} tapped cards dropped with the form")
            many = "card" if len(held) == 1 else "cards"
            self._toast((f"{len(held)} tapped {many}", "not taken:", "tap again"))
            return
        for n, card in enumerate(held):
            if self.menu is not None:
                self.held_taps = held[n:]
                return
            if not self._play_card(card):
                self._toast((card.name, "not needed now"))

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
