"""Trapwords rules: state + action -> state + effects. Time comes only from ``Action.at``.

A round is two turns (the team behind first, else the glowing book's team). When the second
turn ends the round is resolved at once: teams that guessed advance (or win, if they fought the
monster), the curses that applied are discarded, and if nobody guessed and nobody has fought the
monster yet, the monster moves one room closer, pushing curses ahead of it.

A power cut or an undo pauses a running timer (``restore``); the app journals that pause, and
older journals did not. So the actions the buttons give while paused say so (``paused=yes``), and
``resume`` always implies it: folding the journal then pauses at the same moment the live box
did, and the rebuilt game is the one the table saw. Ticks are not journaled: they move only
``shown_at``, the screen's time.
"""

from __future__ import annotations

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
from companion.games.trapwords.data import TABLES
from companion.games.trapwords.dungeon import (
    TEAMS,
    clue_order,
    curse_pushes,
    discard_in,
    glowing_for,
    monster_step,
    next_room,
    other,
)
from companion.games.trapwords.options import monster_from
from companion.games.trapwords.report import report_pages
from companion.games.trapwords.state import (
    IN_TURN,
    OVER,
    PAUSED,
    READING,
    READY,
    REASONS,
    RUNNING,
    WAITING,
    WHY,
    CurseNamed,
    RoundReport,
    Settings,
    TrapwordsState,
    Turn,
)

Effects = tuple[Effect, ...]
PAUSED_ARG = "paused"  # on an action given while the timer was paused (see above)
Handler = Callable[[TrapwordsState, Action], tuple[TrapwordsState, Effects]]

RESULT_WORDS = {
    "correct": "guessed the word",
    "wrong": "used all guesses",
    "trap": "said a trapword",
    "illegal": "gave an illegal clue",
    "timeout": "ran out of time",
}


# --- setup -------------------------------------------------------------------------------------


def initial(options: Mapping[str, Any], rolls: tuple[int, ...]) -> Outcome:
    settings = Settings(
        rooms=tuple(int(r) for r in options["rooms"]),
        seconds=float(options["seconds"]),
        start_mode=str(options["start_mode"]),
        read_seconds=float(options["read_seconds"]),
        tiebreak=bool(options["tiebreak"]),
        monster=monster_from(options, rolls),
        nasty=bool(options["nasty"]),
        tick=bool(options["tick"]),
        curses=tuple(int(r) for r in options["curses"]),
    )
    first = settings.rooms[0]
    state = TrapwordsState(
        settings=settings,
        round=0,
        team_rooms=(first, first),
        monster_room=settings.rooms[-1],
        curse_rooms=settings.curses,
        battled=False,
        order=("A", "B"),
        turns=(),
        phase=READY,
        guesses_left=TABLES.guesses,
        timer=clock.fresh(settings.seconds),
        last_at=0.0,
    )
    monster = ("nasty " if settings.nasty else "") + settings.monster_info.name
    curses = ", ".join(map(str, settings.curses)) or "none"
    setup = Log(f"Setup: {monster} in room {state.monster_room}; curses beside rooms {curses}")
    state, effects = begin_round(state, 1)
    return Outcome(state, (setup, *effects))


def begin_round(state: TrapwordsState, number: int) -> tuple[TrapwordsState, Effects]:
    room_a, room_b = state.team_rooms
    glowing = glowing_for(number)
    order = clue_order(room_a, room_b, glowing)
    new = replace(
        state,
        round=number,
        order=order,
        turns=(),
        phase=READY,
        guesses_left=TABLES.guesses,
        timer=clock.fresh(state.settings.seconds),
        named=(),
        why="trap",
    )
    if new.battling:
        new = replace(new, battled=True)
    logs = [
        Log(
            f"Round {number}: A writes {room_b} trapwords, B writes {room_a}; "
            f"{order[0]} gives clues first"
        )
    ]
    for room in new.cursed_rooms:
        teams = " and ".join(t for t in TEAMS if new.room_of(t) == room)
        logs.append(Log(f"Curse in room {room} applies to {teams}: reveal it"))
    monster = new.settings.monster_info.name
    if new.battling:
        fight = "fight" if len(new.battling) > 1 else "fights"
        logs.append(Log(f"{' and '.join(new.battling)} {fight} the {monster} this round"))
    if new.monster_curses:
        n = new.monster_curses
        plural = "s" if n > 1 else ""
        logs.append(Log(f"The {monster} brings {n} new curse{plural}: draw and reveal"))
    return new, tuple(logs)


# --- the turn ----------------------------------------------------------------------------------


def _start(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    if state.phase != READY:
        raise Rejected("a turn is already under way")
    team = state.clue_team
    mode = state.settings.start_mode
    state = replace(state, report=None)
    opening: Effects = (Sound("turn"), Log(f"{team} gives clues ({state.timer.limit:g} s)"))
    if mode == "pickup" or (mode == "official" and state.settings.read_seconds <= 0):
        new, effects = _run_clock(state, action.at)
        return new, opening + effects
    if mode == "official":
        read = Schedule("read", state.settings.read_seconds, Action("run"))
        return replace(state, phase=READING), (*opening, read)
    return replace(state, phase=WAITING), opening


def _run_clock(state: TrapwordsState, at: float) -> tuple[TrapwordsState, Effects]:
    timer, effects = clock.start(state.timer, at)
    return replace(state, timer=timer, phase=RUNNING), effects


def _run(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    if state.phase != READING:
        raise Rejected("the timer is not waiting for the reading time")
    return _run_clock(state, action.at)


def _go(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    if state.phase not in (READING, WAITING):
        raise Rejected(
            "start the turn first" if state.phase == READY else "the timer has already started"
        )
    new, effects = _run_clock(state, action.at)
    return new, (Cancel("read"), *effects)


def _pause(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    """``by=menu``: the box's menu (the game menu, the undo question) stopped it, and leaving
    the menu runs it again; a pause the table asked for (the default) waits for ok."""
    by = action.choice_arg("by", ("player", "menu"), "player")
    if state.phase not in (RUNNING, READING):
        raise Rejected("the timer is not running")
    timer = clock.stop(state.timer, action.at)
    text = f"Timer paused, {timer.remaining_at_start:.1f} s left"
    new = replace(state, timer=timer, phase=PAUSED, menu_paused=by == "menu")
    return new, (*clock.cancel_all(), Log(text))


def _resume(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    if state.phase != PAUSED:
        raise Rejected("the timer is not paused")
    new, effects = _run_clock(state, action.at)
    new = replace(new, menu_paused=False)
    return new, (Log(f"Timer runs again, {state.timer.remaining_at_start:.1f} s left"), *effects)


def _tick(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    if state.phase != RUNNING:
        raise Rejected("the timer is not running")
    left = state.timer.remaining(action.at)
    effects = clock.next_tick(left)
    if state.settings.tick and left < TABLES.tick_from + 0.5:
        effects = (Sound("tick"), *effects)
    return replace(state, shown_at=action.at), effects


def _timeout(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    if state.phase != RUNNING:
        raise Rejected("the timer is not running")
    return end_turn(state, action.at, "timeout")


def _wrong(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    _need_turn(state)
    left = state.guesses_left - 1
    if left <= 0:
        return end_turn(replace(state, guesses_left=0), action.at, "wrong")
    text = f"{state.clue_team}: wrong guess, {left} left"
    return replace(state, guesses_left=left), (Sound("error"), Log(text))


def _correct(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    _need_turn(state)
    return end_turn(state, action.at, "correct")


def _failure(result: str) -> Handler:
    def handler(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
        if state.phase not in (*IN_TURN, WHY):
            raise Rejected("no turn is under way")
        return end_turn(state, action.at, result)

    return handler


def _fail(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    """Open the failure choice; the clock stops while the table says why."""
    _need_turn(state)
    timer = clock.stop(state.timer, action.at) if state.timer.running else state.timer
    new = replace(state, phase=WHY, why="trap", before_why=state.phase, timer=timer)
    return new, clock.cancel_all()


def _why(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    reason = _named_arg(action, "reason")
    if reason not in REASONS:
        raise BadAction(f"reason={reason!r} is not one of {', '.join(REASONS)}")
    if state.phase != WHY:
        raise Rejected("the box is not asking why the turn failed")
    return replace(state, why=reason), ()


def _keep(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    """Drop the failure choice: the turn goes on as it was."""
    if state.phase != WHY:
        raise Rejected("the box is not asking why the turn failed")
    if state.before_why in (RUNNING, READING):
        return _run_clock(state, action.at)
    return replace(state, phase=state.before_why), ()


def _named_arg(action: Action, key: str) -> str:
    """``key=V``, or the bare first word replay passes as ``id`` (``do curse curse-echo``)."""
    if key in action.args:
        return str(action.args[key])
    if "id" in action.args:
        return str(action.args["id"])
    raise BadAction(f"action {action.name!r} needs {key}=...")


def _need_turn(state: TrapwordsState) -> None:
    if state.phase == WHY:
        raise Rejected("say why the turn failed first (or keep playing)")
    if state.phase not in IN_TURN:
        raise Rejected("no turn is under way: press ok to start")


def _next(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    """From the end-of-round report to the new round's page (trapwords to write, who starts)."""
    if state.phase != READY or state.report is None:
        raise Rejected("there is no round report to move past")
    if state.report_page + 1 < len(report_pages(state, state.report)):
        return replace(state, report_page=state.report_page + 1, show_map=False), ()
    return replace(state, report=None, report_page=0, show_map=False), ()


def _map(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    """Between turns (and at the end) up/down flip between the text page and the dungeon."""
    if state.phase not in (READY, OVER):
        raise Rejected("the dungeon is shown between turns")
    return replace(state, show_map=not state.show_map), ()


# --- curses ------------------------------------------------------------------------------------


def _curse(state: TrapwordsState, action: Action) -> tuple[TrapwordsState, Effects]:
    card_id = _named_arg(action, "card")
    card = TABLES.curse(card_id)
    if card is None:
        known = ", ".join(c.id for c in TABLES.curses)
        raise BadAction(f"card={card_id!r} is not a Trapwords curse ({known})")
    name = str(action.args.get("name", "") or card.name)
    if state.phase == OVER:
        raise Rejected("the game is over")
    if state.curses_to_name == 0:
        raise Rejected("no curse to reveal this round")
    if any(n.card == card_id and n.name == name for n in state.named):
        raise Rejected(f"{name} is already revealed")
    # Each curse to reveal, and the room it lies in: a room's own, then the ones the monster
    # brings into the room where it is fought.
    slots = [(f"room {r}", r) for r in state.cursed_rooms]
    slots += [(state.settings.monster_info.name, state.monster_room)] * state.monster_curses
    if len(state.named) >= len(slots):
        raise Rejected("every curse of this round is already revealed")
    where, room = slots[len(state.named)]
    void = card.void_in_first_room and room == state.settings.rooms[0]
    named = CurseNamed(card_id, name, where, void)
    effects: list[Effect] = [Log(f"Curse ({where}): {name}")]
    if void:
        effects.append(Log(f"{name} has no effect in the first room: discard it"))
    return replace(state, named=(*state.named, named)), tuple(effects)


# --- end of a turn and of a round -------------------------------------------------------------


def end_turn(state: TrapwordsState, at: float, result: str) -> tuple[TrapwordsState, Effects]:
    team = state.order[len(state.turns)]
    used = state.timer.used(at)
    turn = Turn(team, result, used)
    sound = {"correct": "correct", "timeout": "time_up"}.get(result, "fail")
    effects: Effects = (
        *clock.cancel_all(),
        Sound(sound),
        Log(f"{team} {RESULT_WORDS[result]} ({used:.2f} s used)"),
    )
    stopped = replace(
        state,
        turns=(*state.turns, turn),
        result=result,
        phase=READY,
        timer=clock.stop(state.timer, at),
    )
    if len(stopped.turns) == 1:
        second = other(team)
        limit = state.settings.seconds
        tiebreak = state.settings.tiebreak and len(state.battling) == 2 and turn.guessed
        if tiebreak:
            limit = used
        new = replace(stopped, guesses_left=TABLES.guesses, timer=clock.fresh(limit))
        effects += (Log(f"Next: {second} gives clues"),)
        if tiebreak:
            effects += (Log(f"Tiebreak: {second} has {limit:.2f} s to win"),)
        return new, effects
    new, more = resolve_round(stopped)
    return new, effects + more


def _winner(state: TrapwordsState) -> str | None:
    guessed = {t.team for t in state.turns if t.guessed}
    battling = state.battling
    if state.settings.tiebreak and len(battling) == 2:
        first, second = state.order
        if second in guessed:
            return second
        return first if first in guessed else None
    winners = [t for t in battling if t in guessed]
    if len(winners) == 2:
        return "both"
    return winners[0] if winners else None


def resolve_round(state: TrapwordsState) -> tuple[TrapwordsState, Effects]:
    rooms = state.settings.rooms
    guessed = {t.team for t in state.turns if t.guessed}
    winner = _winner(state)
    moves: list[str] = []
    team_rooms = list(state.team_rooms)
    for index, team in enumerate(TEAMS):
        if team in guessed and team not in state.battling:
            team_rooms[index] = next_room(rooms, team_rooms[index])
            moves.append(f"{team} -> {team_rooms[index]}")
    curses = discard_in(state.curse_rooms, state.team_rooms)
    monster = state.monster_room
    effects: list[Effect] = []
    live = state.live_curses  # a void curse was discarded as it was revealed, and said so
    if len(curses) < len(state.curse_rooms) and live:
        rooms_of = f"room {live[0]}" if len(live) == 1 else f"rooms {_rooms_text(live)}"
        effects.append(Log(f"Discarded the curse{'s' if len(live) > 1 else ''} of {rooms_of}"))
    moved_to: int | None = None
    pushes: tuple[tuple[int, int], ...] = ()
    if not guessed and not state.battled:
        pushes = curse_pushes(rooms, monster, curses)
        monster, curses = monster_step(rooms, monster, curses)
        moved_to = monster
        moves.append(f"Monster -> {monster}")
        moves.extend(f"curse {a} -> {b}" for a, b in pushes)
    summary = ", ".join(moves) or "No one moves"
    if winner is None or moves:
        effects.append(Log(f"End of round {state.round}: {summary}"))
    report = RoundReport(
        round=state.round,
        last=state.turns[-1],
        advanced=tuple(
            (team, room)
            for team, room, before in zip(TEAMS, team_rooms, state.team_rooms, strict=True)
            if room != before
        ),
        monster_to=moved_to,
        pushes=pushes,
        discarded=state.live_curses,  # a void curse went when it was revealed
        monster_discards=state.live_monster_curses,
    )
    new = replace(
        state,
        report_page=0,
        team_rooms=(team_rooms[0], team_rooms[1]),
        monster_room=monster,
        curse_rooms=curses,
        report=report,
        show_map=False,
    )
    name = state.settings.monster_info.name
    if winner is not None:
        text = "A and B both beat the" if winner == "both" else f"{winner} beats the"
        effects += [Sound("win"), Log(f"{text} {name} and win{'' if winner == 'both' else 's'}")]
        return replace(new, winner=winner, phase=OVER), tuple(effects)
    if state.round >= TABLES.max_rounds:
        effects += [Sound("lose"), Log(f"{TABLES.max_rounds} rounds are over: the {name} wins")]
        return replace(new, winner="monster", phase=OVER), tuple(effects)
    new, more = begin_round(new, state.round + 1)
    return new, (*effects, *more)


def _rooms_text(rooms: tuple[int, ...]) -> str:
    return ", ".join(map(str, rooms))


# --- dispatch ----------------------------------------------------------------------------------

HANDLERS: dict[str, Handler] = {
    "start": _start,
    "run": _run,
    "go": _go,
    "pause": _pause,
    "resume": _resume,
    "tick": _tick,
    "timeout": _timeout,
    "wrong": _wrong,
    "correct": _correct,
    "trap": _failure("trap"),
    "illegal": _failure("illegal"),
    "fail": _fail,
    "why": _why,
    "keep": _keep,
    "curse": _curse,
    "map": _map,
    "next": _next,
}
ACTIONS = tuple(HANDLERS)
# The arguments each action takes; any action may carry the paused mark (see PAUSED_ARG).
ARGUMENTS: dict[str, tuple[str, ...]] = {name: (PAUSED_ARG,) for name in HANDLERS} | {
    "why": (PAUSED_ARG, "reason", "id"),
    "curse": (PAUSED_ARG, "card", "id", "name"),
    "pause": (PAUSED_ARG, "by"),
}


def check_name(action: Action) -> None:
    check_arguments("trapwords", action, ARGUMENTS)


def apply(state: TrapwordsState, action: Action) -> Outcome:
    check_name(action)
    if action.rolls:
        raise BadAction(f"trapwords action {action.name!r} takes no dice, got {action.rolls}")
    if state.phase == OVER and action.name not in ("curse", "map"):
        raise Rejected("the game is over")
    if _given_while_paused(action):
        state = restore_at(state, state.last_at)  # the journal's own moment, live or folded
    new, effects = HANDLERS[action.name](state, action)
    if action.name == "tick":  # the screen's second, never journaled (see the docstring)
        return Outcome(new, effects)
    return Outcome(replace(new, last_at=action.at, shown_at=action.at), effects)


def _given_while_paused(action: Action) -> bool:
    """The box was paused when this action was given: by a pause, or by a power cut or an undo
    that the journal does not show (see the module's docstring)."""
    marker = action.args.get(PAUSED_ARG)
    if marker is not None and str(marker) != "yes":
        raise BadAction(f"{PAUSED_ARG}={marker!r}: the only value is yes")
    return marker is not None or action.name == "resume"


def restore(state: TrapwordsState) -> TrapwordsState:
    """After a power cut no schedule survives: a running or reading timer comes back paused with
    the time the screen last showed (after a fold of the journal: as of the last journaled
    action)."""
    return restore_at(state, state.shown_at)


def restore_at(state: TrapwordsState, at: float) -> TrapwordsState:
    """Play stopped at ``at`` (an undo: the moment of the action taken back; an action given
    while paused: its own): a running timer keeps what the screen showed then, a reading timer
    the full turn. No menu is open after it: a timer the menu stopped waits for ok."""
    if state.menu_paused:
        state = replace(state, menu_paused=False)
    if state.phase in (RUNNING, READING):
        return replace(state, phase=PAUSED, timer=clock.frozen(state.timer, state.last_at, at))
    if state.phase == WHY and state.before_why in (RUNNING, READING):
        return replace(state, before_why=PAUSED)
    return state
