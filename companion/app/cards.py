"""Cards in the box's step: a tap played, held for an open question (play.py plays the held
ones once it is answered), or offered for enrolment; runs of copies enrolled in a row. Every
function takes the step's ``Draft`` and changes only it; an enrolment leaves as an effect
(EnrolCard)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from companion.app import play
from companion.app.effects import EnrolCard
from companion.core.registry import Card
from companion.ui import menus
from companion.ui.forms import CardKind

if TYPE_CHECKING:
    from companion.app.draft import Draft


def on_tap(d: Draft, uid: str) -> None:
    d.dismiss_toast()
    card = d.lookup(uid)
    if isinstance(d.menu, menus.EnrolRun):  # the box's own menu, never a question of play
        d.menu = copy_tapped(d, d.menu, uid, card)
        return
    if card is None:
        d.note(f"card {uid}: unknown")
        d.play("card_unknown")
        if isinstance(d.menu, menus.Enrol):
            d.menu = None
        play.cover_play_menu(d)
        offer_enrol(d, uid)
        return
    d.play("card_ok")
    session = d.session
    name = card.name
    if session is not None and card.game == session.name:
        name = session.rules.secret_card(card.as_tap()) or name
    d.note(f"card {uid}: {name}")
    in_play = play.in_play_menu(d)  # a question that is a part of play: the tap plays
    if session is not None and card.game == session.name and form_open(d) and not in_play:
        # Cards laid fast (a claim's hostages, a play's cards) while a question of the game
        # is still being answered: each is still a tap, taken once it is done.
        d.held_taps.append(card)
        d.note(f"card {uid}: taken once the form is done")
    elif session is None or (d.menu is not None and not in_play):
        d.toast_up((name, "start a game first" if session is None else ""))
    elif card.game != session.name:
        d.toast_up((name, f"a {play.game_title(card.game)} card"))
    elif not play.play_card(d, card):
        d.toast_up((name, "not needed now"))


def form_open(d: Draft) -> bool:
    """A form or pages that play opened (not the box's own menus) is on screen."""
    return d.menu is not None and d.menu is d.play_form


def enrol(d: Draft, card: Card) -> None:
    """The card list learns ``card`` (at once for the rest of this step)."""
    d.enrolled[card.uid] = card
    d.out.append(EnrolCard(card))


def copy_tapped(d: Draft, run: menus.EnrolRun, uid: str, card: Card | None) -> menus.EnrolRun:
    """A tap during an enrolment run: a new tag is enrolled and counted; a tag that is
    already something else is named and waits for a yes. Tags tapped while that question is
    open wait for its answer (a run goes fast: none is lost). The run as the tap leaves it."""
    if run.asking is not None:
        if uid != run.asking[0] and uid not in run.waiting:
            d.note(f"card {uid}: taken once {run.asking[0]} is answered")
            d.play("card_ok")
            return replace(run, waiting=(*run.waiting, uid))
        return run
    from companion.ui.copies import FILL, NEW, SAME, copy_verdict  # runs only: not at start

    verdict = copy_verdict(card, run.game, run.kind.id, run.values)
    if uid in run.seen:
        d.play("card_ok")
        return replace(run, said=f"again {uid}")
    if verdict in (NEW, FILL):
        return enrol_copy(d, run, uid)
    if verdict == SAME:
        d.play("card_ok")
        return replace(run, seen=run.seen | {uid}, count=run.count + 1, said=f"already {uid}")
    if card is not None:
        d.note(f"card {uid}: {card.name}, asking before making it {run.kind.name}")
        d.play("card_unknown")
        return replace(run, asking=(uid, card.name))
    return run


def enrol_copies(d: Draft, kind: CardKind, values: dict[str, int], source: str) -> None:
    """Open a run of copies of ``kind`` as the game menu's "Enrol copies" does, for a face
    that chose the kind itself (a phone). Refused while the box asks a question."""
    if isinstance(d.menu, menus.EnrolRun | menus.Confirm | menus.DiceEntry):
        raise PermissionError("the box is busy with a question: answer it there first")
    play.cover_play_menu(d)  # a question that is a part of play waits under the run
    if d.menu is None:
        play.pause_play(d)
    d.dismiss_toast()
    d.menu = menus.EnrolRun(d.session.name, kind, dict(values))
    d.note(f"enrolling copies of {kind.name} (from {source})")


def take_waiting_copies(d: Draft) -> None:
    """The run's question is answered: the tags tapped meanwhile are taken in turn (one may
    ask again: the rest wait for that answer)."""
    run = d.menu
    if not isinstance(run, menus.EnrolRun):
        return
    while run.asking is None and run.waiting:
        uid, run = run.waiting[0], replace(run, waiting=run.waiting[1:])
        run = copy_tapped(d, run, uid, d.lookup(uid))
    d.menu = run  # a run is the box's own menu, never a question of play


def enrol_copy(d: Draft, run: menus.EnrolRun, uid: str) -> menus.EnrolRun:
    """A tag enrolled as the run's card, and counted: the run as it leaves it."""
    card = Card(uid, run.game, run.kind.id, run.kind.name, dict(run.values))
    enrol(d, card)
    run = replace(run, seen=run.seen | {uid}, count=run.count + 1, said=f"added {uid}")
    d.note(f"enrolled {uid} as {run.kind.name} ({run.count} in this run)")
    d.play("card_ok")
    return run


def offer_enrol(d: Draft, uid: str) -> None:
    session = d.session
    game = session.name if session else None
    kinds: tuple = ()
    if session is not None:
        kinds = tuple(session.rules.catalog())
    if not kinds:
        d.menu = None
        d.toast_up(("Unknown card", uid, "no cards to enrol"))
        return
    d.menu = menus.Confirm(
        "Unknown card", (uid, "Enrol it?"), menus.Command("enrol", {"uid": uid, "game": game})
    )
