"""Enrolling cards: an unknown tag offered for enrolment, and runs of copies tapped in a row."""

from __future__ import annotations

from companion.core.registry import Card
from companion.ui import menus


class Enrolment:
    """Enrolling tags as cards (a part of App)."""

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
