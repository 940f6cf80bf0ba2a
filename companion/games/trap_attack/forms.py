"""The players' menu and its questions, in the shared menu kit (companion/ui/forms.py).

Every entry ends in a plain game action (the same one ``do`` gives in replay), so buttons and
scripts reach the same rules; the app walks the questions, one field at a time, and only the
finished action reaches the rules and the journal. Later questions follow from earlier answers
(``Form.more``) and the answers make the action in code (``Form.build``). Dice are never
fields: the app rolls what ``dice_for`` asks, or asks the table for the faces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from companion.games.base import Action, Ask, BadAction, Field, Form, Walk
from companion.games.trap_attack import board, scoring, turns
from companion.games.trap_attack.state import AI, State, name, short
from companion.games.trap_attack.tables import catalog

Values = dict[str, str]


@dataclass(frozen=True)
class FormSpec:
    title: str
    fields: Callable[[State, Values], list[Field]]
    build: Callable[[State, Values], Action]
    refused: Callable[[State], str | None] = lambda state: None


# --- field builders ---------------------------------------------------------------------------


def _numbers(lo: int, hi: int) -> tuple[str, ...]:
    return tuple(str(n) for n in range(lo, hi + 1))


def _pick_start(choices: tuple[str, ...], wanted: str | None) -> int:
    return choices.index(wanted) if wanted in choices else 0


def player_field(state: State, key: str = "player", *, ai_too: bool = True, label: str = "Who?"):
    seats = tuple(s for s in state.seats if ai_too or s != AI)
    wanted = state.card_to[1] if state.card_to else state.turn
    return Field(key, label, seats, tuple(map(name, seats)), _pick_start(seats, wanted))


def number_field(key: str, label: str, lo: int, hi: int, start: int | None = None) -> Field:
    choices = _numbers(lo, hi)
    return Field(key, label, choices, start=_pick_start(choices, str(start)))


def attack_choices() -> tuple[tuple[str, ...], tuple[str, ...]]:
    effects = [e for e in catalog().effects if e.group == "attack"]
    return tuple(e.id for e in effects), tuple(e.name for e in effects)


def spot_choices(state: State) -> tuple[tuple[str, ...], tuple[str, ...]]:
    spots = board.journey(state.board, state.options.ai_route)[:-1]
    ids = tuple(f"{s.position}{'c' if s.has_crystal else ''}" for s in spots)
    names = tuple(
        "Crystal (0)"
        if s.position == 0
        else f"{s.position}{' with crystal' if s.has_crystal else ''}"
        for s in spots
    )
    return ids, names


def _by_default(state: State, target: str | None) -> str:
    if state.turn != target:
        return state.turn
    return AI if state.options.ai and target != AI else "none"


# --- the forms --------------------------------------------------------------------------------


def _needs_ai(state: State) -> str | None:
    return None if state.options.ai else "this game has no AI pawn"


def _needs_calm(state: State) -> str | None:
    if state.race_over:
        return "the race is over"
    return turns.waiting(state)


def _calm_ai(state: State) -> str | None:
    return _needs_ai(state) or _needs_calm(state)


def _attack_fields(state: State, v: Values) -> list[Field]:
    ids, names = attack_choices()
    return [Field("effect", "Which attack?", ids, names)]  # the title says "Attack the AI"


def _attack_build(state: State, v: Values) -> Action:
    effect = catalog().effect(v["effect"])
    assert effect is not None
    args: dict[str, str | int] = {"kind": effect.kind, "by": turns.default_user(state)}
    if effect.kind != "paralysis":
        args["amount"] = effect.amount
    return Action("attack", args)


def _target_fields(state: State, v: Values) -> list[Field]:
    by = v.get("by", turns.default_user(state))
    rivals = turns.opponents(state, by)
    return [Field("target", "At whom?", rivals, tuple(map(name, rivals)))]


def _target_build(state: State, v: Values) -> Action:
    by = v.get("by", turns.default_user(state))
    if v["target"] == AI:
        return Action("attack", {"card": v["card"], "by": by})
    return Action("play", {"card": v["card"], "by": by, "target": v["target"]})


def _user_fields(state: State, v: Values) -> list[Field]:
    """Items may be used in another player's turn, so the box asks whose item it is."""
    humans = state.humans
    start = _pick_start(humans, turns.default_user(state))
    return [Field("by", "Who plays it?", humans, tuple(map(name, humans)), start)]


def _not_over(state: State) -> str | None:
    return "the race is over" if state.race_over else None


def _face_down(state: State) -> str | None:
    """Relic and loot cards stay face down during the race: their values are asked after."""
    return None if state.race_over else "values are asked when the race is over"


def _held_fields(state: State, v: Values) -> list[Field]:
    who = v.get("player", state.turn)
    entry = state.entry(who)
    earned = state.pawn(who).loot
    relics = (state.rules.range("relics_held")[0], scoring.deck_left(state, who, "relic"))
    loot = (state.rules.range("loot_held")[0], scoring.deck_left(state, who, "loot"))
    return [
        player_field(state, ai_too=False),
        number_field("relics", "Relic cards held", *relics, start=len(entry.relics)),
        number_field("loot", "Loot cards held", *loot, start=max(earned, len(entry.loot))),
    ]


def _card_fields(state: State, v: Values) -> list[Field]:
    effects = catalog().effects
    ids, names = tuple(e.id for e in effects), tuple(e.short for e in effects)
    return [Field("id", "Card it drew", ids, names)]  # the title already says "AI's card"


def _damage_fields(state: State, v: Values) -> list[Field]:
    who = player_field(state)
    target = v.get("player", who.choices[who.start])
    # a player's hit on the AI is "Attack the AI" (it rolls to block): here only a correction
    others = ("none",) if target == AI else (*[s for s in state.seats if s != target], "none")
    by = Field("by", "Hit by?", others, tuple("Nobody" if o == "none" else name(o) for o in others))
    by = replace(by, start=_pick_start(others, _by_default(state, target)))
    return [who, number_field("amount", "Damage", *state.rules.range("amount")), by]


def _spot_fields(state: State, v: Values) -> list[Field]:
    ids, names = spot_choices(state)
    spot = state.ai_spot
    current = f"{spot.position}{'c' if spot.has_crystal else ''}"
    return [Field("spot", "AI is on", ids, names, _pick_start(ids, current))]


def _spot_build(state: State, v: Values) -> Action:
    spot = v["spot"]
    crystal = spot.endswith("c") or spot == "0"
    return Action(
        "set_ai", {"position": int(spot.rstrip("c")), "crystal": "yes" if crystal else "no"}
    )


def _relic_fields(state: State, v: Values) -> list[Field]:
    combos = tuple(map(str, scoring.free_combos(state)))  # a number on two relics is taken
    return [
        player_field(state),
        number_field("value", "Relic value", *state.rules.range("relic_value"), start=1),
        Field("combo", "Combo number", combos),
    ]


def _buyer_fields(state: State, v: Values) -> list[Field]:
    return [player_field(state, ai_too=False, label="Who bought it?")]


def _in_race(state: State) -> str | None:
    return _not_over(state) or turns.waiting(state)


def _finish_fields(state: State, v: Values) -> list[Field]:
    fields = [
        player_field(state),
        Field("crystal", "Holds the crystal?", ("yes", "no"), ("Yes", "No")),
    ]
    if v.get("crystal", "yes") == "yes":
        fields.append(number_field("space", "Last space", 0, state.board.start, state.board.start))
    return fields


def _plain(name_: str, keys: tuple[str, ...]) -> Callable[[State, Values], Action]:
    def build(state: State, v: Values) -> Action:
        return Action(name_, {k: v[k] for k in keys if k in v})

    return build


FORMS: dict[str, FormSpec] = {
    "attack": FormSpec("Attack the AI", _attack_fields, _attack_build, _calm_ai),
    "target": FormSpec("Play a card", _target_fields, _target_build, _needs_calm),
    "user": FormSpec("Play an item", _user_fields, _plain("play", ("card", "by")), _not_over),
    "card": FormSpec(
        "AI's card",
        _card_fields,
        _plain("card", ("id",)),
        lambda s: None if s.pending == "card" else "the AI is not casting a card",
    ),
    "damage": FormSpec(
        "Damage", _damage_fields, _plain("damage", ("player", "amount", "by")), _needs_calm
    ),
    "heal": FormSpec(
        "Heal",
        lambda s, v: [player_field(s), number_field("amount", "Heal", *s.rules.range("amount"))],
        _plain("heal", ("player", "amount")),
        _needs_calm,
    ),
    "paralyze": FormSpec(
        "Paralyze", lambda s, v: [player_field(s)], _plain("paralyze", ("player",)), _needs_calm
    ),
    "set_ai": FormSpec("AI position", _spot_fields, _spot_build, _needs_ai),
    "relic": FormSpec(
        "Relic", _relic_fields, _plain("relic", ("player", "value", "combo")), _face_down
    ),
    "bought": FormSpec("Relic bought", _buyer_fields, _plain("relic", ("player",)), _in_race),
    "loot": FormSpec(
        "Loot",
        lambda s, v: [
            player_field(s),
            number_field("value", "Loot value", *s.rules.range("loot_value")),
        ],
        _plain("loot", ("player", "value")),
        _face_down,
    ),
    "held": FormSpec("Cards", _held_fields, _plain("held", ("player", "relics", "loot"))),
    "coins": FormSpec(
        "Coins",
        lambda s, v: [
            player_field(s, ai_too=False),
            number_field("n", "Unused coins", *s.rules.range("coins")),
        ],
        _plain("coins", ("player", "n")),
    ),
    "finish": FormSpec("Finish", _finish_fields, _plain("finish", ("player", "crystal", "space"))),
    "winner": FormSpec(
        "Race winner",
        lambda s, v: [player_field(s, label="Won the race")],
        _plain("winner", ("player",)),
        lambda s: None if s.winner is None else "the race already has a winner",
    ),
}


# --- a question, as the kit asks it ------------------------------------------------------------

LONG_LIST = 10  # lists longer than this move by five on a long press (the AI's position, values)

# The players' menu and its questions are a part of play, as if on the game screen: up raises a
# number, a long press moves fast through long lists and round the end, back to the previous
# question shows its answer, the back button opens the box's menu over them, a card tapped is
# played at once, and a refused answer leaves the question as it was.
WALK = Walk(up_raises=True, long_after=LONG_LIST, long_wraps=True, back_keeps=True, in_play=True)


def question(state: State, kind: str, preset: Values) -> Ask:
    """One of FORMS, with ``preset`` answers already given, as the kit's Ask.

    An unknown form or a bad preset raise BadAction; a form the rules refuse now carries the
    reason (``Form.refused``), which the app shows instead of asking."""
    spec = FORMS.get(kind)
    if spec is None:
        raise BadAction(f"no form {kind!r} (known: {', '.join(FORMS)})")
    title = question_title(state, kind, preset)
    reason = spec.refused(state)
    if reason:
        return Ask(title, (Form(spec.title, kind, refused=reason),), WALK)
    if kind in ("target", "user"):
        group = "attack" if kind == "target" else "item"
        effect = catalog().effect(preset.get("card", ""))
        if effect is None or effect.group != group:
            raise BadAction(f"form={kind} needs card=ID of an {group} card")

    def more(answers: Mapping[str, str]) -> tuple[Field, ...]:
        known = {**preset, **answers}
        return tuple(f for f in spec.fields(state, known) if f.key not in preset)

    fields = more({})
    if not fields or not all(f.choices for f in fields):
        reason = f"nothing to choose for {spec.title}"
    form = Form(
        spec.title,
        kind,
        fields,
        args=dict(preset),
        refused=reason,
        more=more,
        build=lambda answers: spec.build(state, {k: str(v) for k, v in answers.items()}),
    )
    return Ask(title, (form,), WALK)


def question_title(state: State, kind: str, preset: Values) -> str:
    """The form's name, and for whom when that is settled: "Relic AI 1/2" counts the cards."""
    head = FORMS[kind].title
    who = preset.get("player")
    if who is None:
        return head
    head = f"{head} {short(who)}"
    held = scoring.cards_held(state, who)
    if held is not None and kind in ("relic", "loot"):
        entry = state.entry(who)
        count, filed = (held[0], entry.valued) if kind == "relic" else (held[1], entry.loot)
        if len(filed) < count:
            head = f"{head} {len(filed) + 1}/{count}"
    return head


# --- the menu ---------------------------------------------------------------------------------
#
# The players' menu is the kit's Ask: an entry either is a game action or opens one of FORMS
# above (as replay's ``do ask form=KIND`` does).

MENU_TITLE = "Menu"


def ask(kind: str, **preset: str) -> Action:
    """The action that opens a question in replay: ``do ask form=KIND [KEY=VALUE ...]``."""
    return Action("ask", {"form": kind, **preset})


def _entry(state: State, label: str, action: Action) -> Form:
    if action.name == "ask":
        kind = str(action.args["form"])
        return Form(label, "ask", args=dict(action.args), build=lambda a: question(state, kind, {}))
    refused = turns.AI_PLAYS if action.name == "turn" and state.turn == AI else None
    return Form(
        label, action.name, args=dict(action.args), refused=refused, build=lambda answers: action
    )


def players_menu(state: State) -> Ask:
    entries = tuple(_entry(state, label, action) for label, action in _entries(state))
    return Ask(MENU_TITLE, entries, WALK)


def menu_entries(state: State) -> tuple[Form, ...]:
    return players_menu(state).forms


def _entries(state: State) -> list[tuple[str, Action]]:
    out: list[tuple[str, Action]] = []
    if state.awaits_first_roll:  # nothing else is played before it
        return [("First player roll", Action("first_player"))]
    if not state.race_over:
        if state.pending is None:
            if state.options.ai:
                out.append(("AI turn", Action("ai_turn")))
            out.append(("Next turn", Action("turn")))
            if state.options.ai:
                out.append(("Attack the AI", ask("attack")))
            if not state.first_turn_passed:  # who starts may be rolled again before the race
                out.append(("First player roll", Action("first_player")))
        if state.pending == "card":
            out.append(("Pick the AI's card", ask("card")))
        if state.pending is None:
            # a relic bought with no tag to tap: counted now, its value asked after the race
            bought = ask("bought") if len(state.humans) > 1 else Action("relic", {"player": "1"})
            out += [
                ("Relic bought", bought),
                ("Damage a pawn", ask("damage")),
                ("Heal a pawn", ask("heal")),
                ("Paralyze a pawn", ask("paralyze")),
            ]
    if state.options.ai:
        out.append(("AI position", ask("set_ai")))
    if state.race_over:  # the end's entries, to correct one; the box asks them in turn
        out += [
            ("Finish space", ask("finish")),
            ("Cards held", ask("held")),
            ("Relic", ask("relic")),
            ("Battle loot", ask("loot")),
            ("Coins", ask("coins")),
        ]
    if state.winner is None:
        out.append(("Race winner", ask("winner")))
    if not state.race_over:
        out.append(("Score now", Action("scoring")))
    return out


def opens(state: State, action: Action) -> Ask | None:
    """Replay's ``do ask form=KIND [KEY=VALUE ...]`` and ``do menu``: the question or the menu
    the buttons would open (None: a game action)."""
    if action.name == "menu":
        return players_menu(state)
    if action.name != "ask":
        return None
    kind = str(action.arg("form"))
    preset = {k: str(v) for k, v in action.args.items() if k != "form"}
    return question(state, kind, preset)


def next_question(state: State) -> Ask | None:
    """Once the race is over the box walks the table through the entries it still needs,
    one question after another, before it shows final scores (rulings, Trap Attack 8)."""
    asked = scoring.question(state)
    if asked is None:
        return None
    kind, player = asked
    ask_ = question(state, kind, {"player": player})
    return None if ask_.forms[0].refused else ask_
