"""Enrolling cards: an unknown tag offered for enrolment, and runs of copies tapped in a row."""

from __future__ import annotations

import logging

from companion.core import storage
from companion.core.registry import Card
from companion.ui import menus
from companion.ui.forms import CardKind
from companion.ui.screen import RED


class Enrolment:
    """Enrolling tags as cards (a part of App)."""

    def _copy_tapped(self, run: menus.EnrolRun, uid: str, card: Card | None) -> None:
        """A tap during an enrolment run: a new tag is enrolled and counted; a tag that is
        already something else is named and waits for a yes. Tags tapped while that question
        is open wait for its answer (a run goes fast: none is lost)."""
        if run.asking is not None:
            if uid != run.asking[0] and uid not in run.waiting:
                run.waiting.append(uid)
                self.note(f"card {uid}: taken once {run.asking[0]} is answered")
                self.play("card_ok")
            return
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

    def enrol_copies(self, kind: CardKind, values: dict[str, int], source: str) -> None:
        """Open a run of copies of ``kind`` as the game menu's "Enrol copies" does, for a face
        that chose the kind itself (a phone). Refused while the box asks a question."""
        if isinstance(self.menu, menus.EnrolRun | menus.Confirm | menus.DiceEntry):
            raise PermissionError("the box is busy with a question: answer it there first")
        self.cover_play_menu()  # a question that is a part of play waits under the run
        if self.menu is None:
            self._game_hook("pause_action")
        self._dismiss_toast()
        self.menu = menus.EnrolRun(self.session.name, kind, dict(values))
        self.note(f"enrolling copies of {kind.name} (from {source})")

    def _take_waiting_copies(self) -> None:
        """The run's question is answered: the tags tapped meanwhile are taken in turn (one
        may ask again: the rest wait for that answer)."""
        run = self.menu
        if not isinstance(run, menus.EnrolRun):
            return
        while run.asking is None and run.waiting:
            uid = run.waiting.pop(0)
            self._copy_tapped(run, uid, self.registry.lookup(uid))

    def _enrolled(self, card: Card) -> bool:
        """Enrol ``card``; False, with a notice, when a full or read-only card refuses it."""
        try:
            self.registry.enrol(card)
        except OSError as err:
            logging.getLogger("companion.app").error("card %s not enrolled: %s", card.uid, err)
            self.play("error")
            self._toast((storage.TITLES[storage.condition_of(err)], "card not enrolled"), RED)
            return False
        return True

    def _enrol_copy(self, run: menus.EnrolRun, uid: str) -> None:
        card = Card(uid, run.game, run.kind.id, run.kind.name, dict(run.values))
        if not self._enrolled(card):
            return
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
