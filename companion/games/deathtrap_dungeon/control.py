"""The control map: buttons and tapped cards to Deathtrap Dungeon actions.

green submits the play tapped so far (a long press: and these were the last cards), or, with
nothing tapped, asks for the play with the buttons; red clears the tapped cards, else passes;
ok opens the seat's menu; up/down show the seats, the scores, the round's results and the
exchanges. A tapped set card or wild joins the play being built (a journaled action, so undo
takes back the last tap and a power cut keeps the half-built play); The Killing Machine and the
Exploding Pig ask which seat played them.
"""

from __future__ import annotations

from collections.abc import Mapping

from companion.games.base import Action, Ask, Field, Form, Input, Pages, Press, Reply, Tap
from companion.games.deathtrap_dungeon import view
from companion.games.deathtrap_dungeon.pack import KILLING_MACHINE, PIG, WILD, Pack
from companion.games.deathtrap_dungeon.rules import GAME, WILD_CARD
from companion.games.deathtrap_dungeon.state import DEAL, OVER, PLAY, DeathtrapState

YES_NO = ("no", "yes")


def control(state: DeathtrapState, event: Input, pack: Pack) -> Reply:
    if isinstance(event, Tap):
        return _tap(state, event, pack)
    if not isinstance(event, Press):
        return None
    button = event.button
    if button in ("up", "down"):
        return Pages(view.pages(state, pack))
    if state.phase == OVER:
        return Pages(view.pages(state, pack)) if button in ("ok", "green") else None
    if state.phase == DEAL:
        return pig_ask(state) if button in ("green", "ok") else None
    building = state.building
    if button == "green" and building is not None:
        return building_play(state, out=event.long)
    if button == "green":
        return Ask(f"Seat {state.turn} plays", (play_form(state, pack),))
    if button == "red":
        return Action("clear") if building is not None else Action("pass")
    if button == "ok":
        return seat_menu(state, pack)
    return None


def building_play(state: DeathtrapState, out: bool) -> Action:
    building = state.building
    assert building is not None
    args: dict[str, str | int] = {"n": building.n, "value": building.value}
    if building.wild:
        args["wild"] = building.wild
    if building.set is not None:
        args["set"] = building.set
    if out:
        args["out"] = "yes"
    return Action("play", args)


def seat_menu(state: DeathtrapState, pack: Pack) -> Ask:
    forms = [play_form(state, pack)]
    if state.building is not None:
        forms.append(Form("Tapped, last cards", "play", args=building_play(state, True).args))
        forms.append(Form("Clear tapped cards", "clear"))
    if state.table is not None:  # the leader puts cards down: no pass to offer
        forms.append(Form("Pass", "pass"))
    forms.append(killing_machine_form(state, "Killing Machine"))
    return Ask(f"Seat {state.turn}", tuple(forms))


def play_form(state: DeathtrapState, pack: Pack) -> Form:
    """A play entered with the buttons: how many (unless the table fixes it), which set, how
    many wilds among them, and whether they were the last cards.

    Only plays the rules take are offered: on a table only the sets worth more than it (and
    never "Wilds only", worth 0), and only sets that can make the play's count with the pack's
    wilds; when none can, the entry is refused with the reason (pass). "Wilds only" makes
    every card a wild (no count to ask), and a named set keeps at least one card of its own
    (0 to cards - 1 wilds, within the pack's wilds, and enough wilds to make up the count);
    the wild question names the play's size. The wilds put down earlier this round (the one
    on the table too) are out of every hand: only the pack's others are offered."""
    table = state.table
    wilds_left = max(0, pack.wilds - state.wilds_down)
    args: dict[str, str | int] = {} if table is None else {"n": table.n}
    count: list[Field] = []
    if table is None:
        most = pack.largest_set + wilds_left
        counts = tuple(str(n) for n in range(1, most + 1))
        count.append(Field("n", "How many cards?", counts))
    ordered = sorted(pack.sets, key=lambda s: s.value)
    last = Field("out", "Last cards?", YES_NO, ("No", "Yes: out"))

    def which(n: int) -> Field:
        """The sets (and "Wilds only") that make a play of ``n`` cards the rules take now; any
        count when ``n`` is 0 (not answered yet)."""
        beats = [s for s in ordered if table is None or s.value > table.value]
        fits = [s for s in beats if not n or s.cards + wilds_left >= n]
        values = tuple(str(s.value) for s in fits)
        names = tuple(f"{s.name} {s.value}" for s in fits)
        if table is None and wilds_left > 0 and n <= wilds_left:
            values, names = ("0", *values), ("Wilds only", *names)
        start = 1 if table is None and len(values) > 1 and values[0] == "0" else 0
        return Field("value", "Which set?", values, names, start=start)

    def questions(answers: Mapping[str, str]) -> tuple[Field, ...]:
        n = int(answers.get("n", args.get("n", 0)))
        chosen = answers.get("value")
        if chosen == "0":
            return (*count, which(n), last)  # all wilds: nothing to ask
        cards = max((s.cards for s in ordered if str(s.value) == chosen), default=n)
        wilds = min(wilds_left, n - 1)
        fewest = max(0, n - cards)
        if n and wilds < 1:
            return (*count, which(n), last)  # no room for a wild: nothing to ask
        label = f"Wilds among {n} cards?" if n else "Wilds among them?"
        choices = tuple(str(w) for w in range(fewest, max(wilds, 0) + 1))
        wild = Field("wild", label, choices)
        return (*count, which(n), wild, last)

    def build(answers: Mapping[str, str]) -> Action:
        n = int(answers.get("n", args.get("n", 0)))
        wild = n if answers["value"] == "0" else int(answers.get("wild", 0))
        return Action("play", {**answers, "wild": wild})

    refused = None
    if table is not None and not which(table.n).choices:
        refused = f"nothing beats {table.n} worth {table.value}: pass"
    return Form(
        "Play cards", "play", questions({}), args, refused=refused, more=questions, build=build
    )


def killing_machine_form(state: DeathtrapState, label: str) -> Form:
    holding = state.holding
    choices = tuple(str(s) for s in holding)
    names = tuple(f"Seat {s}" for s in holding)
    start = holding.index(state.turn) if state.turn in holding else 0
    return Form(
        label,
        "killing_machine",
        (
            Field("player", "Who plays it?", choices, names, start=start),
            Field("out", "Their last card?", YES_NO, ("No", "Yes: out")),
        ),
    )


def pig_ask(state: DeathtrapState) -> Ask:
    seat_list = state.ring.seats
    choices = tuple(str(s) for s in seat_list)
    names = tuple(f"Seat {s}" for s in seat_list)
    fields = [Field("player", "Who had the pig?", choices, names)]
    if state.settings.pig == "choose":
        fields.append(Field("lead", "Who leads?", choices, names))
    return Ask("Exploding Pig", (Form("Pig played", "pig", tuple(fields)),))


def _tap(state: DeathtrapState, event: Tap, pack: Pack) -> Reply:
    card = event.card
    if card is None or card.get("game") != GAME:
        return None
    card_id = str(card.get("card", ""))
    special = pack.special(card_id)
    if special is not None and special.role == PIG:
        return pig_ask(state) if state.phase == DEAL else None
    if state.phase != PLAY:
        return None
    if special is not None and special.role == KILLING_MACHINE:
        return Ask("Killing Machine", (killing_machine_form(state, "Killing Machine"),))
    if special is not None and special.role == WILD:
        return Action("add", {"card": WILD_CARD, "uid": event.uid})
    card_set = pack.set(card_id)
    if card_set is None:
        return None
    value = card.get("value", card_set.value)
    return Action("add", {"card": card_set.id, "value": int(value), "uid": event.uid})
