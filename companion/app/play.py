"""The game's part of the box's step: an action rolled, applied, journaled, then its effects;
the questions a game asks, answered, and the cards held while one is open; the game's play
paused and resumed around the box's menu; new games, undo, a saved game resumed, the records
of finished games. Every function takes the step's ``Draft`` and changes only it.

The one loop of the box's flow lives here, whole: an action accepted may make the game ask a
question (``ask_next``), a question of one entry answers at once (``form_answered``), and its
answer is an action again. The handlers above (cards.py, box_menus.py, menu_flow.py,
phones.py) call into this module; it calls none of them."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from companion.app import playkeep
from companion.app.draft import Draft
from companion.app.effects import (
    JournalAction,
    JournalNewGame,
    JournalRestore,
    JournalUndo,
    KeepResult,
    SwapGame,
    Unwake,
)
from companion.app.events import TimerFired
from companion.app.session import Session, checked, restored, set_up
from companion.core.journal_lines import GameRecord, Step, undo_steps
from companion.core.registry import Card
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
    Tap,
)
from companion.ui import menus


def answer(d: Draft, reply: Reply) -> None:
    """Do what a control map answered: an action is submitted; a menu of the game's forms
    or its information pages opens (walking them is never journaled)."""
    if isinstance(reply, Action):
        submit(d, reply, from_input=True)
    elif isinstance(reply, Ask):
        refused = reply.forms[0].refused if len(reply.forms) == 1 else None
        if reply.walk.in_play and refused:  # refused as an action is: nothing changes
            d.reject(refused)
            return
        d.under_menu = None  # a new question replaces one that waited
        menu, command = menus.FormMenu(reply).start()
        d.menu = d.play_form = menu
        d.form_by_tap = False  # (play_card says when a card opened it)
        form_answered(d, command)
    elif isinstance(reply, Pages):
        d.under_menu = None
        d.menu = d.play_form = menus.PageMenu(reply)
        d.form_by_tap = False


def perform(d: Draft, action: Action) -> None:
    """``do ACTION`` in replay: an action the game answers with a question (its ``opens``)
    opens it; any other is submitted. BadAction propagates."""
    session = d.session
    reply = session.rules.opens(session.state, action) if session else None
    if reply is None:
        submit(d, action)
    else:
        answer(d, reply)


def ask_next(d: Draft) -> None:
    """Open the question a game puts by itself now (its ``next_question``: after an action,
    an undo or a power cut), unless a menu is open."""
    session = d.session
    if session is None or d.menu is not None:
        return
    reply = session.rules.next_question(session.state)
    if reply is not None:
        answer(d, reply)


def in_play_menu(d: Draft) -> bool:
    """A menu that is a part of play (Walk.in_play) is open."""
    menu = d.menu
    if menu is None or menu is not d.play_form:
        return False
    if isinstance(menu, menus.FormMenu):
        return menu.ask.walk.in_play
    return isinstance(menu, menus.PageMenu) and menu.pages.walk.in_play


def form_answered(d: Draft, command: menus.Command) -> None:
    """What a question of play answers by itself as it opens (a menu of one entry asks its
    questions at once): an entry refused, an action, or what the form built. The box's own
    menus' answers go through ``menu_flow.menu_command``, which ends as this does."""
    if command.kind == "stay":
        return
    from_play = d.menu is not None and d.menu is d.play_form
    form = d.menu
    d.menu = None
    form_step(d, command.kind, command.data, form)
    after_answer(d, from_play, command.kind)


def form_step(d: Draft, kind: str, data: dict, form: Any) -> None:
    """A form of play answered (``form`` was on screen; the draft's menu is already gone)."""
    if kind == "refused":
        if isinstance(form, menus.FormMenu) and form.ask.walk.in_play:
            d.menu = form  # refused as an action is: the menu stays as it was
        d.reject(data["reason"])
    elif kind == "form_done":
        submit(d, Action(data["name"], data["args"]), from_input=True)
    elif kind == "form_built":
        built(d, data["reply"], form)


def after_answer(d: Draft, from_play: bool, kind: str) -> None:
    """A menu answered: if it was a question of play and it is gone, the cards held for it
    are played (or dropped, when it was left with back); a question of play that waited
    under the box's menu comes back."""
    if from_play and d.menu is not d.play_form:
        d.play_form = None
        take_held_taps(d, answered=kind != "close", left=kind == "close")
    back_under_menu(d)


def built(d: Draft, reply: Reply, form: Any) -> None:
    """What a finished form built: an action, or another menu to open. A menu that is a
    part of play stays as it was when that is refused."""
    if not (isinstance(form, menus.FormMenu) and form.ask.walk.in_play):
        answer(d, reply)
        return
    d.menu = None
    if isinstance(reply, Action):
        state = d.session.state
        if not submit(d, reply, from_input=True):
            if d.menu is None:
                d.menu = d.play_form = form
            elif isinstance(d.menu, menus.DiceEntry):  # the table's dice: it waits
                d.under_menu = (form, state)
        return
    if isinstance(reply, Ask) and len(reply.forms) == 1 and reply.forms[0].refused:
        d.menu = d.play_form = form
        d.reject(reply.forms[0].refused)
        return
    answer(d, reply)


def cover_play_menu(d: Draft) -> None:
    """The box's own menu is about to open: a menu that is a part of play waits under it."""
    if in_play_menu(d):
        d.under_menu = (d.menu, d.session.state)
        d.menu = d.play_form = None


def back_under_menu(d: Draft) -> None:
    """The box's menu is gone: the question of play it covered comes back, if play is where
    it was (an undo or a new game took it away)."""
    waiting, d.under_menu = d.under_menu, None
    if waiting is None or d.menu is not None:
        d.under_menu = waiting
        return
    menu, state = waiting
    if d.session is not None and d.session.state is state:
        d.menu = d.play_form = menu


def pause_play(d: Draft) -> None:
    """The box's menu opens: what the game does when its play stops around it (a turn timer
    pauses), submitted as an automatic step."""
    session = d.session
    action = session.rules.pause_action(session.state) if session else None
    if action is not None:
        _menu_step(d, action)


def resume_play(d: Draft) -> None:
    """The box's menu is left to play on: what the game does then (the timer runs again)."""
    session = d.session
    action = session.rules.resume_action(session.state) if session else None
    if action is not None:
        _menu_step(d, action)


def _menu_step(d: Draft, action: Action) -> None:
    """The timer's pause or run as the box's menu opens or closes: an automatic step that is
    no move of play, so a question of play waiting under the menu still waits for it."""
    waiting = d.under_menu
    submit(d, action, from_input=True, auto=True)
    if waiting is not None and d.under_menu is None and d.session is not None:
        d.under_menu = (waiting[0], d.session.state)


def take_held_taps(d: Draft, answered: bool, left: bool = False) -> None:
    """The form the held taps waited for is gone: with an answer, each is played in turn
    (one may open a form again: the rest wait for it); left with back, they are dropped and
    the screen says so, as the table gave up what the first card began. A form a button
    opened (the seat's menu) left with back keeps them: they are played as if tapped now,
    still in the turn they were tapped in (issue 42, point 11). A form the game closed by
    itself (a turn ran out) takes them with it."""
    if not d.held_taps:
        return
    kept = answered or (left and not d.form_by_tap)
    if d.menu is not None and kept:  # the answer asks on (the table's dice): wait
        d.play_form = d.menu
        return
    held, d.held_taps = d.held_taps, []
    if not kept:
        d.note(f"{len(held)} tapped cards dropped with the form")
        many = "card" if len(held) == 1 else "cards"
        d.toast_up((f"{len(held)} tapped {many}", "not taken:", "tap again"))
        return
    for n, card in enumerate(held):
        if d.menu is not None:
            d.held_taps = held[n:]
            return
        if not play_card(d, card):
            d.toast_up((card.name, "not needed now"))


def play_card(d: Draft, card: Card) -> bool:
    """A tap of a card of the game being played, as its control map reads it."""
    session = d.session
    if session is None or card.game != session.name:
        return False
    reply = session.rules.control(session.state, Tap(card.uid, card.as_tap()))
    if reply is None:
        return False
    answer(d, reply)
    if isinstance(reply, (Ask, Pages)) and d.menu is not None and d.menu is d.play_form:
        d.form_by_tap = True  # the cards tapped while it is open wait for what this one began
    return True


def submit(
    d: Draft, action: Action, from_input: bool = False, auto: bool = False, journal: bool = True
) -> bool:
    """Roll what the action needs, apply the rules, journal, then effects. True if accepted.

    BadAction propagates to callers that feed text (replay); input from buttons is logged.
    ``journal`` false: a timer's tick, applied for the screen but never journaled.
    """
    session = d.session
    if session is None:
        raise Rejected("no game is being played")
    rules = session.rules
    before = dice = d.dice
    try:
        faces = rules.dice_for(session.state, action)
        rolls = action.rolls
        if faces and not rolls and d.table_dice and not dice.forced:
            labels = tuple(rules.dice_labels(session.state, action))
            d.menu = menus.DiceEntry(tuple(faces), action, labels)
            return False
        if faces and not rolls:
            rolls, dice = dice.roll(tuple(faces))
            d.dice = dice
        action = replace(action, rolls=tuple(rolls), at=d.world.game_time)
        outcome = rules.apply(session.state, action)
    except (Rejected, BadAction) as err:
        d.dice = replace(d.dice, forced=before.forced)  # values entered come back; luck not
        if isinstance(err, Rejected):
            d.reject(err.reason)
            return False
        if not from_input:
            raise
        d.log(logging.ERROR, f"control map produced a bad action {action!r}: {err}")
        return False
    played = journal and not rules.navigation(action)
    if played:
        d.out.append(JournalAction(action.to_json(), auto))  # before anything shows
        session = session.took(Step(action, auto), outcome.effects, outcome.state)
        if in_play_menu(d):  # play went on: a question that was a part of it closes
            d.menu = d.play_form = None
        d.under_menu = None
    # else a timer's tick (the screen's, ``journal`` false) or a change the game only shows
    # (``navigation``: the dice tool's history page): shown, never journaled and never a step
    # (a fold, an undo or a power cut comes back without it, by restore)
    d.session = session.with_state(outcome.state)
    game_effects(d, outcome.effects)
    keep_result(d, announce=True)
    if played:
        ask_next(d)
    return True


def keep_result(d: Draft, announce: bool) -> None:
    """Bring the records in line with the game's result, if the game keeps one (a game just
    finished, or undone past its end); a new one is announced with its pages (ResultKept)."""
    session = d.session
    if session is not None:
        playkeep.keep_play(d)  # every game's play, with its players (issue 48)
    if session is None or not session.rules.keeps_records:
        return
    report = session.rules.result(session.state)
    d.out.append(KeepResult(session.record_key, session.name, report, d.world.today, announce))


def result_kept(d: Draft, added: Any) -> None:
    """The records took a new result: say so, and show where it stands."""
    session = d.session
    if session is None:
        return
    from companion.ui import records as record_pages  # only once a game ends: not at start

    d.note(f"result kept: {added.score} {added.unit} on {added.shown_date}")
    book = record_pages.pages(session.rules.title, d.world.records, session.name, added)
    d.menu = menus.PageMenu(book)


def game_effects(d: Draft, effects: Iterable[Effect]) -> None:
    for effect in effects:
        if isinstance(effect, Log):
            d.note(effect.text)
        elif isinstance(effect, Sound):
            d.play(effect.cue)
        elif isinstance(effect, Schedule):
            d.wake(f"game:{effect.key}", effect.seconds, TimerFired(effect.action, effect.journal))
        elif isinstance(effect, Cancel):
            d.out.append(Unwake(f"game:{effect.key}"))


def timer_fired(d: Draft, action: Action, journal: bool) -> None:
    if d.session is None:
        return
    moved = submit(d, action, from_input=True, auto=True, journal=journal)
    if moved and journal and isinstance(d.menu, menus.FormMenu):
        # The game moved on by itself (a time-up ended the turn, a claim's wait ran out): a
        # question asked before it no longer fits. Close it, as back would (cards tapped
        # while it was open are not taken).
        d.menu = None
        d.note("the game moved on: its question is closed")
        d.play_form = None
        take_held_taps(d, answered=False)  # what waited for it goes with it


def build(d: Draft, name: str, raw: dict[str, Any]) -> Session:
    """A new game with its setup dice rolled; BadAction (unknown game or option)."""
    rules, options = checked(name, raw)
    rolls, d.dice = d.dice.roll(tuple(rules.setup_dice(options)))
    return set_up(name, rules, raw, options, rolls)


def worth_keeping(session: Session | None) -> bool:
    """A game that would be lost if another took its place: someone has played in it and it
    has not ended (a result, or its final standings: ``Game.ended``; the dice never end)."""
    if session is None:
        return False
    if session.last_by_person() is None and not session.folded_in:  # a checkpoint: played
        return False
    return not session.rules.ended(session.state)


def as_record(session: Session) -> GameRecord:
    """The game in play as the journal folds it: its start, its checkpoint (the base, when
    older steps were folded into it) and its standing steps."""
    steps = [
        Step(None if s.action is None else s.action.to_json(), s.auto, s.at) for s in session.steps
    ]
    return GameRecord(
        session.name,
        dict(session.raw_options),
        session.setup_rolls,
        session.started_at,
        steps,
        session.game_id,
        session.checkpoint(),
    )


def _make_way(d: Draft, ending: bool = False) -> tuple[GameRecord | None, bool]:
    """The game in play before another takes its place: one worth keeping is paused as it
    stands (a running timer stops where it is), to wait in the game list; one the table
    chose to end ("End it") goes to history instead."""
    keep = worth_keeping(d.session) and not ending
    if keep:
        restore(d, d.world.game_time)
    d.out.append(Unwake("game:", prefix=True))
    return (as_record(d.session) if d.session else None), keep


def new_game(d: Draft, name: str, raw_options: dict[str, str], set_aside: bool = False) -> None:
    """Start a game; BadAction (unknown game or option) propagates to the caller.

    ``set_aside``: the game in play, if worth keeping, waits to be taken up again (the box's
    menus, which asked first); else it stays in the journal's history (replay's ``game``)."""
    session = build(d, name, raw_options)
    in_play, keep = _make_way(d) if set_aside else (None, False)
    if not set_aside:
        d.out.append(Unwake("game:", prefix=True))
    session = replace(session, started_at=d.world.game_time)
    entry = JournalNewGame(name, dict(raw_options), session.setup_rolls, session.started_at)
    # answered with GameJournaled: the game's id
    d.out.append(SwapGame(in_play, keep, start=entry) if keep else entry)
    d.session = session
    d.menu = None
    d.play_form, d.held_taps, d.under_menu = None, [], None
    d.note(f"new game: {session.rules.title}")
    game_effects(d, session.opening)


def restore(d: Draft, at: float | None = None) -> None:
    """Pause what a power cut or an undo (at ``at``) interrupted, and say so in the journal,
    so that folding the journal later gives this very state (not the unpaused one)."""
    session = d.session
    state = restored(session.rules, session.state, at)
    if state != session.state:
        d.out.append(JournalRestore(at))
        d.session = session.took(Step(None, at=at), (), state)


def set_aside_now(d: Draft, ending: bool) -> bool:
    """The answer to "Set aside?" done as it is given: the game in play waits in the game list
    (or, "End it", goes to history) at once, and no game is in play until another starts or
    is taken up. True if it waits."""
    name = d.session.name
    in_play, keep = _make_way(d, ending)
    d.out.append(SwapGame(in_play, keep))
    d.note(f"{'set aside' if keep else 'ended'}: {game_title(name)}")
    d.session = None
    d.menu = d.play_form = None
    d.held_taps, d.under_menu = [], None
    return keep


def take_up(d: Draft, name: str) -> None:
    """The game of kind ``name`` that waits comes back into play; the game in play, if worth
    keeping, waits in its place (answered with Resumed, the game folded back)."""
    in_play, keep = _make_way(d)
    d.out.append(SwapGame(in_play, keep, take=name))
    d.note(f"taken up again: {game_title(name)}")
    d.session = None
    d.menu = d.play_form = None
    d.held_taps, d.under_menu = [], None


def resumed(d: Draft, session: Session) -> None:
    """A saved game folded back at start-up: paused as the power cut left it, its question
    asked again, its result kept if the records missed it."""
    d.session = session
    restore(d)
    ask_next(d)  # the question the game was asking when the power went
    keep_result(d, announce=False)  # a cut between the journal and the records


def undo(d: Draft) -> bool:
    """Take back the last action a person made (and the timer ticks after it)."""
    session = d.session
    last = session.last_by_person() if session else None
    if last is None:
        d.reject("nothing to undo")
        return False
    d.out.append(JournalUndo())
    label = session.labels[last]
    stopped = session.steps[last].action.at  # play stopped at the action taken back
    steps = list(session.steps)
    undo_steps(steps)
    d.session = session.cut_back(len(steps))  # the journal's own rule cut them
    d.out.append(Unwake("game:", prefix=True))
    restore(d, stopped)
    keep_result(d, announce=False)
    d.note(f"undone: {label}")
    d.play("undo")
    d.under_menu = None
    ask_next(d)
    return True


def game_title(name: str) -> str:
    return games.title(name) if name in games.available() else name
