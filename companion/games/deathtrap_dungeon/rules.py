"""Deathtrap Dungeon rules as pure reducers: state + action -> Outcome(state, effects).

Section numbers are the rulebook's (../shared/rules/deathtrap-dungeon.txt); "ruling N" is
../shared/notes/rulings.md. The box cannot see the cards: it keeps whose turn it is, what lies
on the table, who passed, who went out, the scores and the exchanges, and refuses plays that
cannot beat the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.games.base import Action, BadAction, Log, Outcome, Rejected, Sound, check_arguments
from companion.games.deathtrap_dungeon.pack import ID_PATTERN
from companion.games.deathtrap_dungeon.state import (
    BIG_HERO,
    BY_PIG,
    DEAL,
    HAND_WON,
    HERO,
    KILLED,
    OVER,
    PLAY,
    TOTAL_WIMP,
    WIMP,
    Building,
    DeathtrapState,
    Exchange,
    HandStart,
    Settings,
    Table,
)
from companion.games.seats import seat_arg

GAME = "deathtrap-dungeon"
MAX_CARDS = 99
WILD_CARD = "wild"  # ``add card=wild``: a Chaindog or a Red Lotus

ACTIONS: dict[str, tuple[str, ...]] = {
    "pig": ("player", "lead"),
    "play": ("n", "value", "wild", "out", "set"),
    "pass": (),
    "killing_machine": ("player", "out"),
    "add": ("card", "value", "uid"),
    "clear": (),
}


def check_name(action: Action) -> None:
    check_arguments(GAME, action, ACTIONS)


def initial(options: Mapping[str, Any]) -> Outcome:
    settings = Settings(int(options["players"]), int(options["rounds"]), str(options["pig"]))
    state = DeathtrapState(settings, points=(0,) * settings.players)
    return Outcome(state, (Log(f"round 1 of {settings.rounds}: deal, then the pig"),))


def apply(state: DeathtrapState, action: Action) -> Outcome:
    check_name(action)
    handler = HANDLERS[action.name]
    return handler(state, action)


# --- the Exploding Pig (section 2, ruling 2) --------------------------------------------------


def _pig(state: DeathtrapState, action: Action) -> Outcome:
    players = state.settings.players
    holder = seat_arg(action, "player", players)
    chosen = seat_arg(action, "lead", players) if "lead" in action.args else None
    if state.phase == OVER:
        raise Rejected("The game is over")
    if state.phase != DEAL:
        raise Rejected("The pig starts a round: this one is under way")
    if state.settings.pig == "choose":
        if chosen is None:
            raise Rejected(f"Seat {holder} names who leads (lead=...)")
        leader = chosen
    else:
        leader = state.ring.left(holder)
    new = replace(
        state,
        phase=PLAY,
        turn=leader,
        leader=leader,
        table=None,
        passed=(),
        finished=(),
        building=None,
        played=frozenset(),
        wilds_down=0,
        start=HandStart(BY_PIG, holder),
    )
    return Outcome(new, (Log(f"pig: seat {holder} discards, seat {leader} leads"),))


# --- plays and passes (section 3, rulings 3 and 4) ---------------------------------------------


def _on_turn(state: DeathtrapState) -> int:
    if state.phase == DEAL:
        raise Rejected("Deal first: the pig starts the round")
    if state.phase == OVER:
        raise Rejected("The game is over")
    assert state.turn is not None
    return state.turn


def _card_id(action: Action, key: str) -> str:
    """A set's id from the pack (``orc``), or ``wild``: only a short name, never free text."""
    text = str(action.arg(key))
    if not ID_PATTERN.fullmatch(text):
        raise BadAction(f"{key}={text!r} is not a card id (lowercase letters, digits, dashes)")
    return text


def _yes(action: Action, key: str) -> bool:
    return action.choice_arg(key, ("yes", "no"), "no") == "yes"


def _play(state: DeathtrapState, action: Action) -> Outcome:
    n = action.int_arg("n", 1, MAX_CARDS)
    value = action.int_arg("value", 0, MAX_CARDS)
    wild = action.int_arg("wild", 0, MAX_CARDS, 0)
    out = _yes(action, "out")
    set_id = _card_id(action, "set") if "set" in action.args else None
    seat = _on_turn(state)
    if wild > n:
        raise Rejected(f"{wild} wilds cannot be among {n} cards")
    if wild == n and value != 0:
        raise Rejected("Wilds on their own are worth 0 (value=0)")
    if wild < n and value == 0:
        raise Rejected("A set is worth 1 or more; only wilds alone are worth 0")
    table = state.table
    if table is not None and n != table.n:
        raise Rejected(f"Put down {table.n} cards, as many as the table")
    if table is not None and value <= table.value:
        raise Rejected(f"A set worth more than {table.value} is needed")
    played = state.played
    if state.building is not None:
        played = played | frozenset(state.building.uids)
    laid = Table(n, value, seat, wild, set_id if wild < n else None)
    new = replace(
        state,
        table=laid,
        passed=(),
        building=None,
        played=played,
        wilds_down=state.wilds_down + wild,
        start=None,
        finished=state.finished + ((seat,) if out else ()),
    )
    what = f"seat {seat} puts down {n} worth {value}" + (f" ({wild} wild)" if wild else "")
    effects: list[Any] = [Log(what + (", and is out" if out else ""))]
    return _after(new, seat, effects)


def _pass(state: DeathtrapState, action: Action) -> Outcome:
    seat = _on_turn(state)
    if state.table is None:
        raise Rejected("The leader puts cards down; no passing")
    new = replace(state, passed=tuple(sorted((*state.passed, seat))), building=None)
    return _after(new, seat, [Log(f"seat {seat} passes")])


def _after(state: DeathtrapState, seat: int, effects: list[Any]) -> Outcome:
    """Whose turn comes next after ``seat`` played or passed: the next seat on the left still
    holding cards that has not passed; or the hand is won (everyone else passed); or the
    round is over (one seat alone holds cards)."""
    holding = state.holding
    if len(holding) <= 1:
        return _score(state, effects)
    assert state.table is not None
    by = state.table.by
    others = [s for s in holding if s != by]
    if all(s in state.passed for s in others):
        leader = by if by in holding else state.ring.next_among(by, holding)
        assert leader is not None
        won = replace(
            state,
            table=None,
            passed=(),
            turn=leader,
            leader=leader,
            start=HandStart(HAND_WON, by),
        )
        effects.append(Log(f"seat {by} wins the hand; seat {leader} leads"))
        effects.append(Sound("turn"))
        return Outcome(won, tuple(effects))
    waiting = [s for s in holding if s not in state.passed]
    following = state.ring.next_among(seat, waiting)
    assert following is not None
    return Outcome(replace(state, turn=following), tuple(effects))


# --- The Killing Machine (section 6, ruling 5) ------------------------------------------------


def _killing_machine(state: DeathtrapState, action: Action) -> Outcome:
    seat = seat_arg(action, "player", state.settings.players)
    out = _yes(action, "out")
    _on_turn(state)
    if seat in state.finished:
        raise Rejected(f"Seat {seat} is out: no cards left")
    building = state.building
    if building is not None and building.seat == seat:
        raise Rejected("The Killing Machine goes down alone: R clears the tapped cards")
    new = replace(
        state,
        table=None,
        passed=(),
        building=None,
        finished=state.finished + ((seat,) if out else ()),
        start=HandStart(KILLED, seat),
    )
    effects: list[Any] = [Log(f"seat {seat} plays The Killing Machine: the hand stops")]
    holding = new.holding
    if len(holding) <= 1:
        return _score(new, effects)
    leader = seat if seat in holding else new.ring.next_among(seat, holding)
    assert leader is not None
    effects.append(Log(f"seat {leader} leads"))
    return Outcome(replace(new, turn=leader, leader=leader), tuple(effects))


# --- tapped cards building a play (ruling 9) ---------------------------------------------------


def _add(state: DeathtrapState, action: Action) -> Outcome:
    card = _card_id(action, "card")
    uid = str(action.args.get("uid", ""))
    seat = _on_turn(state)
    value = 0 if card == WILD_CARD else action.int_arg("value", 1, MAX_CARDS)
    building = state.building or Building(seat)
    if uid and uid in building.uids:
        raise Rejected("That card is already in this play")
    if uid and uid in state.played:
        raise Rejected("That card was put down earlier this round")
    uids = building.uids + ((uid,) if uid else ())
    if card == WILD_CARD:
        building = replace(building, wild=building.wild + 1, uids=uids)
    elif building.set is None:
        building = replace(building, set=card, value=value, cards=building.cards + 1, uids=uids)
    elif building.set != card or building.value != value:
        raise Rejected("One set at a time: R clears the tapped cards")
    else:
        building = replace(building, cards=building.cards + 1, uids=uids)
    return Outcome(replace(state, building=building), (Log(f"seat {seat} taps {card}"),))


def _clear(state: DeathtrapState, action: Action) -> Outcome:
    _on_turn(state)
    if state.building is None:
        raise Rejected("No cards tapped to clear")
    return Outcome(replace(state, building=None), (Log("tapped cards cleared"),))


# --- the end of a round (sections 4, 5 and 7, rulings 6 to 8) ---------------------------------


def _score(state: DeathtrapState, effects: list[Any]) -> Outcome:
    players = state.settings.players
    order = state.finished + state.holding
    scored = tuple(players - order.index(s) for s in state.ring.seats)
    points = tuple(p + s for p, s in zip(state.points, scored, strict=True))
    titles = titles_for(order)
    effects.append(Log(f"round {state.round} over: " + ", ".join(f"seat {s}" for s in order)))
    base = replace(
        state,
        finished=order,
        titles=titles,
        points=points,
        history=(*state.history, scored),
        table=None,
        passed=(),
        building=None,
        turn=None,
        leader=None,
        start=None,
    )
    if state.round >= state.settings.rounds:
        best = max(points)
        winner = tuple(s for s in state.ring.seats if points[s - 1] == best)
        who = (
            f"seat {winner[0]} wins"
            if len(winner) == 1
            else f"seats {', '.join(map(str, winner))} win"
        )
        effects.append(Log(f"game over: {who}"))
        effects.append(Sound("win"))
        return Outcome(replace(base, phase=OVER, winner=winner), tuple(effects))
    named = dict(titles)
    seat_of = {title: seat for seat, title in named.items()}
    exchanges = (
        Exchange(seat_of[TOTAL_WIMP], seat_of[BIG_HERO], 2, True),
        Exchange(seat_of[BIG_HERO], seat_of[TOTAL_WIMP], 2, False),
        Exchange(seat_of[WIMP], seat_of[HERO], 1, True),
        Exchange(seat_of[HERO], seat_of[WIMP], 1, False),
    )
    effects.append(Sound("race_end"))
    new = replace(base, round=state.round + 1, phase=DEAL, exchanges=exchanges)
    return Outcome(new, tuple(effects))


def titles_for(order: tuple[int, ...]) -> tuple[tuple[int, str], ...]:
    """First big hero, second hero, second to last wimp, last total wimp (4 or more seats)."""
    return (
        (order[0], BIG_HERO),
        (order[1], HERO),
        (order[-2], WIMP),
        (order[-1], TOTAL_WIMP),
    )


def restore(state: DeathtrapState) -> DeathtrapState:
    """Nothing runs on its own in this game: a power cut changes nothing."""
    return state


HANDLERS = {
    "pig": _pig,
    "play": _play,
    "pass": _pass,
    "killing_machine": _killing_machine,
    "add": _add,
    "clear": _clear,
}
