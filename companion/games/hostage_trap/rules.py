"""Hostage Trap! rules: state + action -> state + effects. Time comes only from ``Action.at``.

The turn: an attack (at most one, before the draw), one draw (after a hit, from the attacked
seat), or instead a look at a hand that replaces the whole turn; one hostage ability at any
point. A drawn trap is filed with the turns it costs its taker: the box then passes that seat
by as many times, says so, and reminds it to take the trap card back. However a turn ends, the
next seat clockwise plays.

A win is shown, not announced: the claimant names (``claim``) or taps (``show``) its hostages,
and with enough different ones wins. Tapped hostages stay secret until they win: a claim that
falls short says only how many the box saw.

The first turn's timer starts when the game does. The rules cannot read that moment, so the
opening schedules ``begin`` at once, and any earlier action starts the timer at its own time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from companion.games import timer as clock
from companion.games.base import (
    Action,
    BadAction,
    Cancel,
    Effect,
    Log,
    Outcome,
    Rejected,
    Schedule,
    Sound,
    check_arguments,
)
from companion.games.hostage_trap.data import tables
from companion.games.hostage_trap.state import HostageState, Settings, Showing
from companion.games.seats import label, seat_arg

Effects = tuple[Effect, ...]
Handler = Callable[[HostageState, Action], tuple[HostageState, Effects]]

BEGIN = "begin"
CLAIM_WINDOW = "claim"
CLAIM_TICK = "claim_tick"  # the claim's countdown on screen: never journaled
# Actions the box gives by itself (timers, the menu's pause): they leave the turn's notice.
QUIET = ("begin", "tick", "pause", "resume", "shown", CLAIM_TICK)


# --- setup -------------------------------------------------------------------------------------


def initial(options: Mapping[str, Any]) -> Outcome:
    settings = Settings(
        players=int(options["players"]),
        hand=int(options["hand"]),
        hostages=int(options["hostages"]),
        turn_seconds=int(options["turn_seconds"]),
        spares=str(options.get("spares", "aside")),
    )
    timer = None
    if settings.turn_seconds:
        # Running from a start time that ``begin`` (or the first action) fills in.
        timer = replace(clock.fresh(settings.turn_seconds), running=True)
    state = HostageState(
        settings=settings, turn=1, turn_no=1, owed=(0,) * settings.players, timer=timer
    )
    timed = f", {settings.turn_seconds} s a turn" if timer else ""
    spares = ", spare hostages shuffled into the deck" if settings.spares == "shuffled" else ""
    effects: list[Effect] = [
        Log(
            f"{settings.players} seats, hands of {settings.hand}, "
            f"{settings.hostages} hostages to win{timed}{spares}"
        ),
        Log("Seat 1 plays (turn 1)"),
    ]
    if timer is not None:
        effects.append(Schedule(BEGIN, 0.0, Action(BEGIN)))
    return Outcome(state, tuple(effects))


# --- the turn ----------------------------------------------------------------------------------


def _seat(state: HostageState) -> int:
    assert state.turn is not None
    return state.turn


def _target(state: HostageState, action: Action) -> int:
    target = seat_arg(action, "target", state.settings.players)
    if target == state.turn:
        raise Rejected("choose another seat than your own")
    return target


def _refuse(reason: str | None) -> None:
    if reason is not None:
        raise Rejected(reason)


def _attack(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    target = _target(state, action)
    result = action.choice_arg("result", ("hit", "failed"))
    _refuse(state.may_attack())
    seat = _seat(state)
    if result == "failed":
        failed = replace(state, attacked=True)
        return end_turn(failed, action.at, f"{label(seat)}'s attack on seat {target} failed")
    text = f"{label(seat)} attacks seat {target}: draw from seat {target}"
    return replace(state, attacked=True, attack=target), (Sound("attack"), Log(text))


def _draw(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    target = _target(state, action)
    _refuse(state.may_draw())
    if state.attack is not None and target != state.attack:
        raise Rejected(f"after the attack, draw from seat {state.attack}")
    text = f"{label(_seat(state))} draws a card from seat {target}"
    return replace(state, drew=True, attack=None), (Log(text),)


def _peek(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    target = _target(state, action)
    _refuse(state.may_peek())
    return end_turn(state, action.at, f"{label(_seat(state))} discards 3 to see seat {target}")


def _ability(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    colour = colour_word(action, "color")
    _refuse(state.may_use_ability())
    text = f"{label(_seat(state))} uses the {colour} hostage's ability"
    return replace(state, ability_used=True), (Log(text),)


def _trap(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    turns = action.int_arg("turns", 0, tables().longest_trap)
    ends = action.choice_arg("ends", ("yes", "no"), "yes") == "yes"
    _refuse(state.may_trap())
    seat = _seat(state)
    trapped = replace(state.with_owed(seat, turns), trapped=True)
    cost = f"sits out {turns} turn{'s' if turns != 1 else ''}" if turns else "loses no turn"
    text = f"{label(seat)} drew a trap: {cost}"
    if ends:
        return end_turn(trapped, action.at, text)
    return replace(trapped, notice=(f"Trap: sit out {turns}",) if turns else ()), (Log(text),)


def _next(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    return end_turn(state, action.at, f"{label(_seat(state))} ends the turn")


def end_turn(state: HostageState, at: float, why: str) -> tuple[HostageState, Effects]:
    """The next seat clockwise plays; seats that owe turns to a trap lose theirs on the way."""
    seat = _seat(state)
    ring = state.ring
    effects: list[Effect] = [Log(why)]
    notices: list[str] = []
    state = replace(state, take_back=tuple(s for s in state.take_back if s != seat))
    turn_no = state.turn_no + 1
    nxt = ring.left(seat)
    while state.owes(nxt) > 0:
        left = state.owes(nxt) - 1
        state = state.with_owed(nxt, left)
        if left:
            notices.append(f"Seat {nxt} sat out: {left} more")
            effects.append(Log(f"{label(nxt)} sits out this turn ({left} more to sit out)"))
        else:
            state = replace(state, take_back=(*state.take_back, nxt))
            notices.append(f"Seat {nxt}: take trap card")
            effects.append(
                Log(f"{label(nxt)} sits out its last turn: take the trap card into your hand")
            )
        turn_no += 1
        nxt = ring.left(nxt)
    new = replace(
        state,
        turn=nxt,
        turn_no=turn_no,
        menu_paused=False,
        drew=False,
        attacked=False,
        attack=None,
        ability_used=False,
        trapped=False,
        notice=tuple(notices),
    )
    effects += [Sound("turn"), Log(f"{label(nxt)} plays (turn {turn_no})")]
    if new.timer is not None and new.showing is not None:
        # A claim is still open: the new turn's countdown waits for it to end.
        showing = replace(new.showing, stopped_timer=True)
        new = replace(new, timer=clock.fresh(new.timer.limit), showing=showing)
        effects += [*clock.cancel_all(), Cancel(BEGIN)]
    elif new.timer is not None:
        timer, timing = clock.start(clock.fresh(new.timer.limit), at)
        new = replace(new, timer=timer)
        effects += [*clock.cancel_all(), Cancel(BEGIN), *timing]
    return new, tuple(effects)


# --- the turn timer ------------------------------------------------------------------------------


def _timed(state: HostageState) -> clock.Timer:
    if state.timer is None:
        raise Rejected("this game has no turn timer")
    return state.timer


def _begin(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    """The first turn's timer starts (``apply`` has already done it if an action came first)."""
    _timed(state)
    return state, ()


def _tick(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    """The screen's second: only ``shown_at`` moves (ticks are not journaled)."""
    timer = _timed(state)
    if not timer.running:
        raise Rejected("the turn timer is not running")
    left = timer.remaining(action.at)
    effects = clock.next_tick(left)
    if abs(left - tables().warn_seconds) < 0.5:
        effects = (Sound("hurry"), Log(f"{tables().warn_seconds:g} s left"), *effects)
    return replace(state, shown_at=action.at), effects


def _timeout(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    if not _timed(state).running:
        raise Rejected("the turn timer is not running")
    new, effects = end_turn(state, action.at, f"{label(_seat(state))}'s time is up")
    notice = (f"Seat {_seat(state)}: time is up", *new.notice)
    return replace(new, notice=notice), (Sound("time_up"), *effects)


def _pause(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    """``by=menu``: the box's menu stopped it, and leaving the menu runs it again; a pause the
    player asked for (the default) waits for green."""
    timer = _timed(state)
    by = action.choice_arg("by", ("player", "menu"), "player")
    if not timer.running:
        raise Rejected("the turn timer is not running")
    stopped = clock.stop(timer, action.at)
    text = f"Turn timer paused, {stopped.remaining_at_start:.1f} s left"
    new = replace(state, timer=stopped, menu_paused=by == "menu")
    return new, (*clock.cancel_all(), Log(text))


def _resume(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    timer = _timed(state)
    if timer.running:
        raise Rejected("the turn timer is already running")
    if state.showing is not None:
        raise Rejected("a claim is open: the turn timer waits for it")
    running, effects = clock.start(timer, action.at)
    text = f"Turn timer runs again, {timer.remaining_at_start:.1f} s left"
    return replace(state, timer=running, menu_paused=False), (Log(text), *effects)


# --- showing hostages to win ---------------------------------------------------------------------


def colour_word(action: Action, key: str) -> str:
    """A hostage's colour: one free word (the box's own list is only what its menus offer)."""
    word = str(action.arg(key)).strip().lower()
    if not word or not all(c.isalnum() or c == "-" for c in word):
        raise BadAction(f"{key}={word!r} is not a colour word")
    return word


def _colours(action: Action) -> tuple[str, ...]:
    words = [w.strip().lower() for w in str(action.arg("hostages")).split(",")]
    if not all(words) or not all(all(c.isalnum() or c == "-" for c in w) for w in words):
        raise BadAction(f"hostages={action.arg('hostages')!r}: colour words joined by commas")
    return tuple(dict.fromkeys(words))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _claim(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    seat = seat_arg(action, "player", state.settings.players)
    colours = _colours(action)
    need = state.settings.hostages
    if len(colours) < need:
        raise Rejected(f"only {_plural(len(colours), 'different hostage')}; {need} needed")
    return win(state, seat, colours, action.at)


def win(
    state: HostageState, seat: int, colours: tuple[str, ...], at: float
) -> tuple[HostageState, Effects]:
    timer = state.timer
    if timer is not None and timer.running:
        timer = clock.stop(timer, at)
    new = replace(state, winner=seat, winning=colours, turn=None, showing=None, timer=timer)
    new = replace(new, notice=(), attack=None)
    text = f"{label(seat)} wins with {_plural(len(colours), 'hostage')}: {', '.join(colours)}"
    stops = (*clock.cancel_all(), Cancel(BEGIN), Cancel(CLAIM_WINDOW), Cancel(CLAIM_TICK))
    return new, (*stops, Sound("win"), Log(text))


def _show(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    """One tapped hostage card of a seat's claim. The claim's wait starts again from each tap,
    counted down on screen; the turn timer stands still while the claim is open."""
    showing = state.showing
    if "player" in action.args or showing is None:
        seat = seat_arg(action, "player", state.settings.players)
    else:
        seat = showing.seat
    colour = colour_word(action, "color")
    if showing is not None and showing.seat != seat:
        raise Rejected(f"seat {showing.seat} is showing hostages now")
    seen = showing.colours if showing is not None else ()
    if colour not in seen:
        seen = (*seen, colour)
    if len(seen) >= state.settings.hostages:
        return win(state, seat, seen, action.at)
    effects: list[Effect] = []
    stopped = showing.stopped_timer if showing is not None else False
    timer = state.timer
    if showing is None and timer is not None and timer.running:
        timer, stopped = clock.stop(timer, action.at), True
        effects += [*clock.cancel_all(), Cancel(BEGIN)]
    wait = tables().claim_seconds
    effects += [Schedule(CLAIM_WINDOW, wait, Action("shown")), *_claim_tick(wait)]
    effects.append(Log(f"{label(seat)} shows a hostage ({len(seen)} seen)"))
    showing = Showing(seat, seen, action.at + wait, stopped)
    return replace(state, showing=showing, timer=timer), tuple(effects)


def _claim_tick(left: float) -> Effects:
    """The claim's countdown: the next whole second of its wait (none below 1 s: the end of
    the wait covers 0)."""
    mark = math.ceil(left - clock.EPSILON) - 1
    if mark < 1:
        return ()
    return (Schedule(CLAIM_TICK, left - mark, Action(CLAIM_TICK), journal=False),)


def _claim_second(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    """The screen's second of a claim's wait: only ``shown_at`` moves (never journaled)."""
    showing = state.showing
    if showing is None:
        raise Rejected("no one is showing hostages")
    return replace(state, shown_at=action.at), _claim_tick(showing.until - action.at)


def claim_left(state: HostageState) -> float:
    """Seconds the open claim still waits for a tap, as the screen shows them."""
    if state.showing is None:
        return 0.0
    return max(0.0, state.showing.until - state.shown_at)


def _shown(state: HostageState, action: Action) -> tuple[HostageState, Effects]:
    """The claim's wait is over (or the seat said it is done): the box says how many it saw,
    and a turn timer the claim stopped runs on from where it stood."""
    showing = state.showing
    if showing is None:
        raise Rejected("no one is showing hostages")
    n, need = len(showing.colours), state.settings.hostages
    seen = _plural(n, "hostage")
    notice = (f"Seat {showing.seat}: saw {seen}", f"{need} needed to win")
    text = f"{label(showing.seat)} showed {seen}; {need} are needed"
    new = replace(state, showing=None, notice=notice)
    effects: list[Effect] = [Cancel(CLAIM_WINDOW), Cancel(CLAIM_TICK), Sound("fail"), Log(text)]
    if showing.stopped_timer and new.timer is not None and not new.timer.running:
        timer, timing = clock.start(new.timer, action.at)
        new = replace(new, timer=timer)
        effects += timing
    return new, tuple(effects)


# --- dispatch ----------------------------------------------------------------------------------

HANDLERS: dict[str, Handler] = {
    "attack": _attack,
    "draw": _draw,
    "peek": _peek,
    "ability": _ability,
    "trap": _trap,
    "next": _next,
    "claim": _claim,
    "show": _show,
    "shown": _shown,
    CLAIM_TICK: _claim_second,
    "begin": _begin,
    "tick": _tick,
    "timeout": _timeout,
    "pause": _pause,
    "resume": _resume,
}
ARGUMENTS: dict[str, tuple[str, ...]] = {name: () for name in HANDLERS} | {
    "attack": ("target", "result"),
    "draw": ("target",),
    "peek": ("target",),
    "ability": ("color",),
    "trap": ("turns", "ends"),
    "claim": ("player", "hostages"),
    "show": ("player", "color"),
    "pause": ("by",),
}


def check_name(action: Action) -> None:
    check_arguments("hostage-trap", action, ARGUMENTS)


def apply(state: HostageState, action: Action) -> Outcome:
    check_name(action)
    if action.rolls:
        raise BadAction(f"hostage-trap action {action.name!r} takes no dice, got {action.rolls}")
    if state.over:
        raise Rejected("the game is over")
    state, started = _start_waiting_timer(state, action.at)
    if action.name not in QUIET:
        state = replace(state, notice=())
    new, effects = HANDLERS[action.name](state, action)
    if action.name in ("tick", CLAIM_TICK):  # the screen's seconds, never journaled
        return Outcome(new, (*started, *effects))
    return Outcome(replace(new, last_at=action.at, shown_at=action.at), (*started, *effects))


def _start_waiting_timer(state: HostageState, at: float) -> tuple[HostageState, Effects]:
    """The first turn's timer runs from the first moment the rules learn (see the docstring)."""
    timer = state.timer
    if timer is None or not timer.running or timer.started_at is not None:
        return state, ()
    running, effects = clock.start(replace(timer, running=False), at)
    return replace(state, timer=running), (Cancel(BEGIN), *effects)


def restore(state: HostageState) -> HostageState:
    """After a power cut no schedule survives: a running timer comes back paused with the time
    the screen last showed (after a fold of the journal: as of the last journaled action)."""
    return restore_at(state, state.shown_at)


def restore_at(state: HostageState, at: float) -> HostageState:
    """Play stopped at ``at`` (an undo: the moment of the action taken back): a running timer
    comes back paused with what the screen showed then, and a claim being tapped is dropped
    (the seat taps again)."""
    if state.timer is not None and state.timer.running:
        state = replace(state, timer=clock.frozen(state.timer, state.last_at, at))
    if state.menu_paused:  # no menu is open after a restart: green runs the timer
        state = replace(state, menu_paused=False)
    if state.showing is not None:
        state = replace(state, showing=None, notice=("Claim cut off:", "tap hostages again"))
    return state
