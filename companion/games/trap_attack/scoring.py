"""End-of-race scoring (rulebook: Victory condition, Scoring) and the entries that feed it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from companion.games.base import Action, Rejected
from companion.games.trap_attack import ai
from companion.games.trap_attack.args import pawn_arg, yes_no
from companion.games.trap_attack.board import CRYSTAL
from companion.games.trap_attack.state import AI, State, name, short
from companion.games.trap_attack.step import Step


@dataclass(frozen=True)
class Score:
    race: int
    relics: int
    loot: int
    coins: int

    @property
    def total(self) -> int:
        return self.race + self.relics + self.loot + self.coins


def relic_points(state: State, relics: tuple[tuple[int, int], ...]) -> int:
    """Values plus a bonus per complete combo: two relics with the same combo number."""
    pairs = sum(n // 2 for n in Counter(combo for _, combo in relics).values())
    return sum(value for value, _ in relics) + state.rules.combo_bonus * pairs


def race_points(state: State, pawn_id: str) -> int:
    """Winner 30; others their last space if they hold the crystal (at least 1), else 0."""
    if state.winner == pawn_id:
        return state.rules.race_winner_points
    if pawn_id == AI:
        finish: tuple[int, bool] | None = (state.ai_spot.position, state.ai_spot.has_crystal)
    else:
        finish = state.entry(pawn_id).finish
    if finish is None or not finish[1]:
        return 0
    return max(1, finish[0])


def score(state: State, pawn_id: str) -> Score:
    entry = state.entry(pawn_id)
    return Score(
        race=race_points(state, pawn_id),
        relics=relic_points(state, entry.relics),
        loot=sum(entry.loot),
        coins=(entry.coins or 0) * state.rules.coin_points,
    )


def scored(state: State) -> tuple[str, ...]:
    """Who has a score line: anyone with entries or the race win; everyone once it is over."""
    out = []
    for seat in (*state.humans, AI):
        if seat == AI and not state.options.ai:
            continue
        if state.race_over or state.winner == seat or not state.entry(seat).empty:
            out.append(seat)
    return tuple(out)


def scores(state: State) -> dict[str, Score]:
    return {seat: score(state, seat) for seat in scored(state)}


def leaders(state: State) -> tuple[str, ...]:
    """The highest totals: one id, or several for a tie."""
    table = scores(state)
    if not table:
        return ()
    top = max(s.total for s in table.values())
    return tuple(seat for seat, s in table.items() if s.total == top)


def _hidden(step: Step, what: str, who: str) -> None:
    step.log(f"{what} filed for {name(who)} (value hidden until the race is over)")
    step.say(f"{what} filed for {short(who)}")


def relic(step: Step, action: Action) -> None:
    state = step.state
    who = pawn_arg(state, action, "player")
    value = action.int_arg("value", *state.rules.range("relic_value"))
    combo = action.int_arg("combo", *state.rules.range("combo"))
    entry = state.entry(who)
    step.state = state.with_entry(who, replace(entry, relics=(*entry.relics, (value, combo))))
    _hidden(step, "Relic", who)


def loot(step: Step, action: Action) -> None:
    state = step.state
    who = pawn_arg(state, action, "player")
    value = action.int_arg("value", *state.rules.range("loot_value"))
    entry = state.entry(who)
    step.state = state.with_entry(who, replace(entry, loot=(*entry.loot, value)))
    _hidden(step, "Loot", who)


def coins(step: Step, action: Action) -> None:
    state = step.state
    who = pawn_arg(state, action, "player")
    if who == AI:
        raise Rejected("the AI holds no coins")
    n = action.int_arg("n", *state.rules.range("coins"))
    step.state = state.with_entry(who, replace(state.entry(who), coins=n))
    step.log(f"{name(who)} holds {n} unused coin{'s' if n != 1 else ''}")
    step.say(f"{short(who)}: {n} coin{'s' if n != 1 else ''}")


def finish(step: Step, action: Action) -> None:
    """Where a pawn ended the race; for the AI this corrects its position."""
    state = step.state
    who = pawn_arg(state, action, "player")
    crystal = yes_no(action, "crystal")
    space = action.int_arg("space", CRYSTAL, state.board.start, None if crystal else CRYSTAL)
    if who == AI:
        args = {"position": space, "crystal": "yes" if crystal else "no"}
        ai.set_ai(step, Action("set_ai", args))
        return
    step.state = state.with_entry(who, replace(state.entry(who), finish=(space, crystal)))
    where = f"space {space} with the crystal" if crystal else "without the crystal"
    step.log(f"{name(who)} finished on {where}")
    step.say(f"{short(who)} finish: {space if crystal else 'no crystal'}")


def winner(step: Step, action: Action) -> None:
    state = step.state
    who = pawn_arg(state, action, "player")
    if state.winner is not None:
        raise Rejected(f"the race already has a winner: {name(state.winner)}")
    step.state = replace(state, winner=who, pending=None, threat=None)
    end_race(step, f"{name(who)} wins the race", f"{short(who)} wins the race")


def enter_scoring(step: Step) -> None:
    if step.state.race_over:
        raise Rejected("already scoring")
    step.state = replace(step.state, scoring=True, pending=None, threat=None)
    end_race(step, "Scoring without a race winner", "Scoring")


def end_race(step: Step, text: str, line: str) -> None:
    step.log(f"{text}: scores are open")
    step.sound("race_end")
    step.say(line, "Scores are open")
