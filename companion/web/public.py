"""What a phone at the table may see: whose turn, the timer, the scoreboard, a picture, Records.

Built from the replay contract's public state of the game in play (what the box reports after
each refresh), by naming each field a phone may show, never by passing the state through: a
field added to a game's public state later stays off the phones until it is named here. So
what the table must not see stays off: Trap Attack's relic and loot values until the race's
scores are complete, a Hostage Trap! claim's colours until the box itself names the winning
hostages, Deathtrap Dungeon's cards tapped for a play not yet made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.core.records import Records

Public = Mapping[str, Any]


def seat_look(seat: int) -> dict[str, Any]:
    """A seat's name and colour as the LED shows it (the table games' seats.toml)."""
    from companion.games.seats import looks

    table = looks()
    look = table[(seat - 1) % len(table)]
    return {"seat": seat, "label": f"Seat {seat}", "colour": look.name, "rgb": list(look.colour)}


def _seats(p: Public) -> list[int]:
    return list(range(1, int(p.get("players") or 0) + 1))


def _timer(t: Any, paused: bool) -> dict[str, Any] | None:
    """The countdown as the box has it; ``paused`` only when the box paused a turn under way
    (a turn that has not started is not paused)."""
    if not isinstance(t, Mapping):
        return None
    out = {
        "remaining": float(t.get("remaining", 0.0)),
        "running": bool(t.get("running")),
        "paused": paused,
    }
    if "limit" in t:
        out["limit"] = float(t["limit"])
    return out


def _dice(p: Public) -> dict[str, Any]:
    last = list(p.get("last") or [])
    facts = []
    if last:
        total = f" = {sum(last)}" if len(last) > 1 else ""
        facts.append(f"Last roll: {' + '.join(map(str, last))}{total}")
        if p.get("doubles"):
            facts.append("a double")
    counts = p.get("counts") or {}
    return {
        "facts": facts,
        "scoreboard": {
            "columns": ["Face", "Times"],
            "rows": [[face, n] for face, n in counts.items()],
        },
        "picture": {"kind": "dice", "die": p.get("die"), "last": last},
    }


def _trap_attack(p: Public) -> dict[str, Any]:
    from companion.games.trap_attack.board import default_board

    ai = p.get("ai") or {}
    players = p.get("players") or {}
    turn = p.get("turn")
    threat = p.get("threat")
    facts = [f"Turn {p.get('turn_no')}"]
    if isinstance(threat, Mapping) and threat.get("target"):  # the target answers it now
        turn = threat["target"]
        by = "the AI's" if threat.get("by") == "ai" else f"Player {threat.get('by')}'s"
        facts.append(f"{_who(turn)} answers {by} {_card_name(threat.get('card'))}")
    out: dict[str, Any] = {
        "turn": None if p.get("race_over") or turn is None else {"label": _who(turn)},
        "facts": facts,
    }
    rows: list[list[Any]] = [
        [f"Player {who}", v.get("life"), "yes" if v.get("paralyzed") else ""]
        for who, v in players.items()
    ]
    if ai.get("plays"):
        rows.append(["AI", ai.get("life"), "yes" if ai.get("paralyzed") else ""])
    out["scoreboard"] = {"columns": ["Who", "Life", "Paralyzed"], "rows": rows}
    leaders = list(p.get("leaders") or [])
    if p.get("race_over") and leaders:  # every entry made: the values are no secret now
        scores = p.get("scores") or {}
        out["standings"] = {
            "columns": ["Who", "Race", "Relics", "Loot", "Coins", "Total"],
            "rows": [
                ["AI" if who == "ai" else f"Player {who}"]
                + [s.get(k) for k in ("race", "relics", "loot", "coins", "total")]
                for who, s in scores.items()
            ],
            "leaders": ["AI" if who == "ai" else f"Player {who}" for who in leaders],
        }
    elif p.get("race_over"):
        out["facts"].append("The race is over: the box is asking for the scores")
    if ai.get("plays"):
        board = default_board()
        out["picture"] = {
            "kind": "track",
            "start": board.start,
            "position": ai.get("position"),
            "crystal": bool(ai.get("has_crystal")),
            "boat": bool(ai.get("at_boat")),
            "route": ai.get("route"),
            "caption": _track_caption(ai),
        }
    winner = p.get("winner")
    if winner:
        out["winner"] = "AI" if winner == "ai" else f"Player {winner}"
    return out


def _track_caption(ai: Public) -> str:
    """The words under the AI's track: where it is on its way (issue 42, point 13: an AI still
    standing on the crystal's space was said to be back to the boat with it)."""
    if ai.get("at_boat"):
        return "the AI reached the boat"
    if not ai.get("has_crystal"):
        return "on its way to the crystal"
    if ai.get("position") == 0:
        return "on the crystal's space, holding it"
    return "back to the boat with the crystal"


def _card_name(card: Any) -> str:
    """A Trap Attack card by the name the box shows ("Damage 3"), not its id."""
    from companion.games.trap_attack import GAME

    return next((k.name for k in GAME.catalog() if k.id == card), str(card))


def _who(pawn: Any) -> str:
    return "AI" if pawn == "ai" else f"Player {pawn}"


def _trapwords(p: Public) -> dict[str, Any]:
    from companion.games.trapwords.data import TABLES

    teams = p.get("teams") or {}
    rooms = list(p.get("rooms") or [])
    clue = p.get("clue_team")
    over = p.get("phase") == "over"
    colours = {t: list(TABLES.team_colours[t]) for t in teams if t in TABLES.team_colours}
    out: dict[str, Any] = {
        "turn": None if over or not clue else {"label": f"Team {clue}", "rgb": colours.get(clue)},
        "timer": None if over else _timer(p.get("timer"), p.get("phase") == "paused"),
        "facts": [f"Round {p.get('round')}"],
        "scoreboard": {
            "columns": ["Team", "Room"],
            "rows": [[f"Team {t}", v.get("room")] for t, v in teams.items()],
            "seats": [{"rgb": colours.get(t)} for t in teams],  # each team's dot, as the LED
        },
        "picture": {
            "kind": "dungeon",
            "rooms": rooms,
            "teams": {t: v.get("room") for t, v in teams.items()},
            "monster": p.get("monster"),
            "monster_room": p.get("monster_room"),
            "curse_rooms": list(p.get("curse_rooms") or []),
            "curses": [
                {"name": c.get("name"), "where": c.get("where")}
                for c in p.get("curses_revealed") or []
            ],
            "glowing": p.get("glowing"),
            "team_rgb": colours,  # the LED's colours of the teams
        },
    }
    if not over and p.get("guesses_left") is not None:
        out["facts"].append(f"Guesses left: {p.get('guesses_left')}")
    winner = p.get("winner")
    if winner == "both":  # both teams beat the monster (the OLED: "A and B both win!")
        out["winner"] = "Teams A and B"
    elif winner == "monster":
        monster = str(p.get("monster") or "monster")
        out["winner"] = f"The {monster.capitalize()}"
    elif winner:
        out["winner"] = f"Team {winner}"
    return out


def _cover_your_asps(p: Public) -> dict[str, Any]:
    if p.get("players") == 1:
        facts = [f"Rolls: {p.get('rolls')}", f"Planks laid: {p.get('placed')}"]
        if p.get("result"):
            facts.append(f"Result: {p['result']}")
        return {"facts": facts}
    seats = p.get("seats") or {}
    turn = p.get("turn")
    out: dict[str, Any] = {
        "turn": None if turn is None else seat_look(int(turn)),
        "facts": [
            f"Round {p.get('round')}",
            f"Treasure left: {p.get('treasure_left')}",
        ],
        "scoreboard": {
            # Each raider's phase (build outside; collect and escape inside the pyramid)
            "columns": ["Seat", "Points", "Escapes", "Treasures", "Phase"],
            "rows": [
                [f"Seat {n}", s.get("points"), s.get("escapes"), s.get("treasures"), s.get("phase")]
                for n, s in seats.items()
            ],
            "seats": [seat_look(int(n)) for n in seats],
        },
    }
    if any(s.get("planks") is not None for s in seats.values()):  # a tie: the planks decide
        # The count, once the game is over: the planks beside the points they break a tie of,
        # in place of the raiders' phases (over now), so the table fits a phone's width.
        out["scoreboard"]["columns"] = ["Seat", "Points", "Planks left", "Escapes", "Treasures"]
        out["scoreboard"]["rows"] = [
            [f"Seat {n}", s.get("points"), s.get("planks"), s.get("escapes"), s.get("treasures")]
            for n, s in seats.items()
        ]
    winner = p.get("winner")
    if winner:
        out["winner"] = " and ".join(f"Seat {s}" for s in winner)
    return out


def _hostage_trap(p: Public) -> dict[str, Any]:
    held = p.get("held") or {}
    turn = p.get("turn")
    timer = p.get("timer")
    timer = timer if isinstance(timer, Mapping) else None
    out: dict[str, Any] = {
        "turn": None if turn is None else seat_look(int(turn)),
        "timer": _timer(timer, not timer.get("running")) if turn is not None and timer else None,
        "facts": [f"Turn {p.get('turn_no')}", f"{p.get('hostages')} different hostages win"],
        "scoreboard": {
            "columns": ["Seat", "Sits out"],
            "rows": [[f"Seat {s}", held.get(str(s), 0) or ""] for s in _seats(p)],
            "seats": [seat_look(s) for s in _seats(p)],
        },
    }
    claim = p.get("claim")
    if isinstance(claim, Mapping):  # only who and how many: which ones stay secret
        out["facts"].append(f"Seat {claim.get('player')} is showing hostages ({claim.get('seen')})")
    if p.get("winner") is not None:
        out["winner"] = f"Seat {p['winner']}"
        # The box names the winning hostages on its own screen at this moment: so may we.
        out["facts"].append("Showed: " + " ".join(str(h) for h in p.get("winning") or []))
    return out


def _deathtrap_cards(table: Public) -> str:
    """The cards on the table as the box names them, in full: "3 x Dwarf", "2 x Orc + 1 wild",
    "2 wilds" (the set's name from the pack the box plays with)."""
    from companion.games.deathtrap_dungeon import GAME

    n, wild = int(table.get("n") or 0), int(table.get("wild") or 0)
    if wild >= n:
        return f"{n} wild" + ("s" if n != 1 else "")
    name = GAME.pack.name_of(table.get("set"), int(table.get("value") or 0))
    return f"{n - wild} x {name}" + (f" + {wild} wild" + ("s" if wild > 1 else "") if wild else "")


def _deathtrap_dungeon(p: Public) -> dict[str, Any]:
    seats = _seats(p)
    points = p.get("points") or {}
    history = list(p.get("history") or [])
    titles = p.get("titles") or {}
    turn = p.get("turn")
    table = p.get("table")
    facts = [f"Round {p.get('round')} of {p.get('rounds')}"]
    if isinstance(table, Mapping):
        facts.append(f"On the table: {_deathtrap_cards(table)}, by Seat {table.get('by')}")
    finished = list(p.get("finished") or [])
    if finished and p.get("phase") == "play":  # between rounds every seat is "finished"
        facts.append("Out this round: " + ", ".join(f"Seat {s}" for s in finished))
    rounds_cols = [f"R{i}" for i in range(1, len(history) + 1)]
    out: dict[str, Any] = {
        "turn": None if turn is None else seat_look(int(turn)),
        "facts": facts,
        "scoreboard": {
            "columns": ["Seat", *rounds_cols, "Points", "Title"],
            "rows": [
                [
                    f"Seat {s}",
                    *[r.get(str(s)) for r in history],
                    points.get(str(s)),
                    str(titles.get(str(s), "")).replace("-", " "),
                ]
                for s in seats
            ],
            "seats": [seat_look(s) for s in seats],
        },
        "picture": {
            "kind": "rounds",
            "seats": [seat_look(s) for s in seats],
            "rounds": [[r.get(str(s), 0) for s in seats] for r in history],
        },
    }
    if p.get("winner"):
        out["winner"] = " and ".join(f"Seat {s}" for s in p["winner"])
    return out


GAMES: dict[str, Callable[[Public], dict[str, Any]]] = {
    "dice": _dice,
    "trap-attack": _trap_attack,
    "trapwords": _trapwords,
    "cover-your-asps": _cover_your_asps,
    "hostage-trap": _hostage_trap,
    "deathtrap-dungeon": _deathtrap_dungeon,
}


def records_view(records: Records | None, game: str | None) -> list[dict[str, Any]]:
    """The game's boards of records: games played and won, and the best few with their dates."""
    if records is None or game is None:
        return []
    out = []
    for board in records.boards(game):
        played, won = records.tally(game, board)
        best = [
            {"score": r.score, "unit": r.unit, "date": r.date} for r in records.best(game, board)
        ]
        out.append({"board": board, "played": played, "won": won, "best": best})
    return out


def phone_view(
    game: str | None, state: Public | None, records: Records | None = None
) -> dict[str, Any]:
    """The phone's picture of the box now: a fixed shape, every part optional."""
    view: dict[str, Any] = {
        "game": game,
        "title": "",
        "turn": None,
        "timer": None,
        "facts": [],
        "scoreboard": None,
        "standings": None,
        "picture": None,
        "winner": None,
        "records": records_view(records, game),
    }
    if game is None or state is None:
        return view
    from companion.games import registry as games

    view["title"] = games.get(game).title
    build = GAMES.get(game)
    if build is not None:
        view.update(build(state))
    return view
