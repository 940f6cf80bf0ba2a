"""End-of-race scoring (rulebook: Victory condition, Scoring) and the entries that feed it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from companion.games.base import Action, Rejected
from companion.games.trap_attack import ai
from companion.games.trap_attack.board import CRYSTAL
from companion.games.trap_attack.state import AI, Played, State, name, short
from companion.games.trap_attack.step import Step, pawn_arg, yes_no


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
    """Values plus a bonus per complete combo: two relics with the same combo number (each
    number is on two cards only, so a player has at most one combo of a number)."""
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
        relics=relic_points(state, entry.valued),
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
    """The highest totals: one id, or several for a tie; none while entries are missing."""
    if question(state) is not None:
        return ()
    table = scores(state)
    if not table:
        return ()
    top = max(s.total for s in table.values())
    return tuple(seat for seat, s in table.items() if s.total == top)


def _hidden(step: Step, what: str, who: str, shown: str) -> None:
    """During the race a value is filed unseen; after it, an entry for the count says what it
    counts (``shown``): the scores show it anyway."""
    if step.state.race_over:
        step.log(f"{what} {shown} entered for {name(who)}")
        step.say(f"{what} {shown}: {short(who)}")
        return
    step.log(f"{what} filed for {name(who)} (value hidden until the race is over)")
    step.say(f"{what} filed for {short(who)}")


def cards_held(state: State, who: str) -> tuple[int, int] | None:
    """How many relic and loot cards ``who`` holds, if known: the box counts the AI's own
    (its purchases and knock-outs); a player says at the end (``held``)."""
    if who == AI:
        return state.ai_relics, state.pawn(AI).loot
    return state.entry(who).held


def _room_for(state: State, who: str, kind: str) -> None:
    """Refuse an entry beyond the cards ``who`` holds (rulings, Trap Attack 8)."""
    held = cards_held(state, who)
    if held is None:
        return
    entry = state.entry(who)
    count, filed = (held[0], len(entry.valued)) if kind == "relic" else (held[1], len(entry.loot))
    if filed < count:
        return
    cards = f"{count} {'relic' if kind == 'relic' else 'loot card'}{'' if count == 1 else 's'}"
    if who == AI:
        how = "bought" if kind == "relic" else "earned"
        raise Rejected(f"the AI {how} {cards}, all entered")
    raise Rejected(f"{name(who)} holds {cards}, all entered")


def deck_size(state: State, kind: str) -> int:
    """How many relic (or loot) cards the game has: the most one player can hold."""
    return state.rules.range("relics_held" if kind == "relic" else "loot_held")[1]


def taken(state: State, who: str, kind: str) -> int:
    """The relic (or loot) cards ``who`` is known to have: entered, said held, or (the AI's,
    and loot a pawn earned) counted by the box."""
    entry = state.entry(who)
    held = cards_held(state, who)
    if kind == "relic":
        return max(len(entry.relics), held[0] if held else 0)
    return max(len(entry.loot), held[1] if held else 0, state.pawn(who).loot)


def deck_left(state: State, who: str, kind: str) -> int:
    """The most relic (or loot) cards ``who`` can have: the deck less everyone else's."""
    others = sum(taken(state, seat, kind) for seat in (*state.humans, AI) if seat != who)
    return max(0, deck_size(state, kind) - others)


def _deck_room(state: State, who: str, kind: str, wanted: int) -> None:
    """Refuse more cards for ``who`` than the deck still holds, in whatever order the table
    enters them (an entry before the count, or the count after other players' entries)."""
    left = deck_left(state, who, kind)
    if wanted <= left:
        return
    cards = "relic cards" if kind == "relic" else "loot cards"
    raise Rejected(
        f"the game has {deck_size(state, kind)} {cards}: {name(who)} can have {left} at most"
    )


COPIES_OF_A_COMBO = 2  # 20 relic cards, 10 combo numbers: each number is on two cards


def relic(step: Step, action: Action) -> None:
    """A relic card: during the race a purchase (its value filed unseen, or with no tag none
    at all: ``relic player=P`` alone), after it an entry for the count."""
    state = step.state
    who = pawn_arg(state, action, "player")
    if "value" not in action.args and "combo" not in action.args and not state.race_over:
        _blind_purchase(step, who)
        return
    value = action.int_arg("value", *state.rules.range("relic_value"))
    combo = action.int_arg("combo", *state.rules.range("combo"))
    _room_for(state, who, "relic")
    entry = state.entry(who)
    blank = (None, None) in entry.relics and state.race_over
    if not blank:
        _deck_room(state, who, "relic", len(entry.relics) + 1)
    _combo_room(state, combo)
    state = _bought(state, who)
    entry = state.entry(who)
    if blank:  # the value of a relic bought without a tag, asked now that the race is over
        at = entry.relics.index((None, None))
        relics = (*entry.relics[:at], (value, combo), *entry.relics[at + 1 :])
    else:
        relics = (*entry.relics, (value, combo))
    step.state = state.with_entry(who, replace(entry, relics=relics))
    _hidden(step, "Relic", who, f"{value}, combo {combo}")


def _combo_room(state: State, combo: int) -> None:
    """Refuse a relic whose combo number is already on both of its cards (anyone's)."""
    on = sum(1 for _, entry in state.entries for _, c in entry.valued if c == combo)
    if on >= COPIES_OF_A_COMBO:
        raise Rejected(f"combo {combo} is already on two relics: the game has two of each")


def free_combos(state: State) -> tuple[int, ...]:
    """The combo numbers still on fewer than two entered relics."""
    low, high = state.rules.range("combo")
    used = Counter(c for _, entry in state.entries for _, c in entry.valued)
    return tuple(n for n in range(low, high + 1) if used[n] < COPIES_OF_A_COMBO)


def _blind_purchase(step: Step, who: str) -> None:
    """A relic bought during the race with no tag to tap: the box counts the card (one a turn)
    and asks its value and combo once the race is over."""
    state = step.state
    if who == AI:
        raise Rejected("the AI's relics are counted: values after the race")
    _deck_room(state, who, "relic", len(state.entry(who).relics) + 1)
    state = _bought(state, who)
    entry = state.entry(who)
    step.state = state.with_entry(who, replace(entry, relics=(*entry.relics, (None, None))))
    step.log(f"{name(who)} buys a relic (value asked when the race is over)")
    step.say(f"{short(who)} bought a relic", "value: after the race")


def _bought(state: State, who: str) -> State:
    """During the race a player's relic is a purchase: one a turn (rulebook: Relic Cards),
    tapped or entered alike. The AI's are bounded by what its die bought; after the race a
    relic is an entry for the count, not a purchase."""
    if state.race_over or who == AI:
        return state
    if any(p.by == who and p.group == "relic" for p in state.played):
        raise Rejected(f"{name(who)} has already bought a relic this turn")
    return replace(state, played=(*state.played, Played(who, "relic", None)), round_bought=True)


def loot(step: Step, action: Action) -> None:
    state = step.state
    who = pawn_arg(state, action, "player")
    value = action.int_arg("value", *state.rules.range("loot_value"))
    _room_for(state, who, "loot")
    _deck_room(state, who, "loot", len(state.entry(who).loot) + 1)
    entry = state.entry(who)
    step.state = state.with_entry(who, replace(entry, loot=(*entry.loot, value)))
    _hidden(step, "Loot", who, str(value))


def held(step: Step, action: Action) -> None:
    """How many relic and loot cards a player holds: the box then asks each one's value."""
    state = step.state
    who = _human(state, action, "the box counts the AI's cards itself")
    relics = action.int_arg("relics", *state.rules.range("relics_held"))
    loots = action.int_arg("loot", *state.rules.range("loot_held"))
    entry = state.entry(who)
    if relics < len(entry.relics) or loots < len(entry.loot):
        raise Rejected(
            f"{name(who)} has {len(entry.relics)} relic(s) and {len(entry.loot)} loot"
            " already entered"
        )
    _deck_room(state, who, "relic", relics)
    _deck_room(state, who, "loot", loots)
    step.state = state.with_entry(who, replace(entry, held=(relics, loots)))
    step.log(f"{name(who)} holds {relics} relic(s) and {loots} loot card(s)")
    step.say(f"{short(who)}: {relics} relic, {loots} loot")


def _human(state: State, action: Action, not_ai: str) -> str:
    who = pawn_arg(state, action, "player")
    if who == AI:
        raise Rejected(not_ai)
    return who


def question(state: State) -> tuple[str, str] | None:
    """The next entry the box asks for once the race is over, as (form, player): each
    player's finish space, cards held, each relic, each loot card and coins, then the AI's
    relics and loot; None when everything is in (rulings, Trap Attack 8)."""
    if not state.race_over:
        return None
    for seat in (*state.humans, AI) if state.options.ai else state.humans:
        entry = state.entry(seat)
        human = seat != AI
        if human and entry.finish is None and state.winner != seat:
            return "finish", seat
        held = cards_held(state, seat)
        if held is None:
            return "held", seat
        if len(entry.valued) < held[0]:
            return "relic", seat
        if len(entry.loot) < held[1]:
            return "loot", seat
        if human and entry.coins is None:
            return "coins", seat
    return None


def coins(step: Step, action: Action) -> None:
    state = step.state
    who = _human(state, action, "the AI holds no coins")
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
    where = f"on space {space} with the crystal" if crystal else "without the crystal"
    step.log(f"{name(who)} finished {where}")
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
