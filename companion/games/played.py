"""What a finished game amounts to as a play (issue 48): its seats, each seat's score and place,
the winners and the game's own detail, read from the game's public state (the replay contract's
keys, so no game's rules change for it). The app keeps it (core/plays.py) with the seats' names.

Seats are the table's seats 1..players (integers), Trapwords' teams "A" and "B", and Trap
Attack's AI pawn "ai" when it plays (a seat nobody names). The dice tool has none: it is never a
play."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TEAMS = ("A", "B")


def named_seats(game: str, options: Mapping[str, Any]) -> list[Any]:
    """The seats a person sits in, in seat order: the ones the ``names`` directive names."""
    if game == "trapwords":
        return list(TEAMS)
    players = options.get("players")
    if game == "dice" or not isinstance(players, int) or isinstance(players, bool):
        return []
    return list(range(1, players + 1))


def _places(seats: list[dict[str, Any]], winners: list[Any]) -> None:
    """Winners take place 1; the others follow by score, equal scores sharing a place; a seat
    with no score has a place only behind a known winner."""
    for seat in seats:
        if seat["seat"] in winners:
            seat["place"] = 1
            continue
        score = seat["score"]
        if score is None:
            seat["place"] = 1 + len(winners) if winners else None
            continue
        higher = sum(
            1
            for other in seats
            if other["seat"] not in winners
            and other["score"] is not None
            and other["score"] > score
        )
        seat["place"] = 1 + len(winners) + higher


def _by_score(seats: list[dict[str, Any]]) -> list[Any]:
    scored = [s for s in seats if s["score"] is not None]
    if not scored:
        return []
    best = max(s["score"] for s in scored)
    return [s["seat"] for s in scored if s["score"] == best]


def report(game: str, options: Mapping[str, Any], public: Mapping[str, Any]) -> dict[str, Any]:
    """The play of a finished game: ``seats`` (each {seat, score, place, named}), ``winners``
    (seats) and ``detail``."""
    seats: list[dict[str, Any]] = [
        {"seat": s, "score": None, "place": None, "named": True} for s in named_seats(game, options)
    ]
    winners: list[Any] = []
    detail: dict[str, Any] = {}
    if game == "trap-attack":
        scores = public.get("scores") or {}
        if options.get("ai") == "on" or "ai" in scores:
            seats.append({"seat": "ai", "score": None, "place": None, "named": False})
        for seat in seats:
            entry = scores.get(str(seat["seat"]))
            seat["score"] = entry.get("total") if isinstance(entry, dict) else None
        winners = _by_score(seats)
        if not winners and public.get("winner") is not None:
            race = public["winner"]
            winners = [race if race == "ai" else int(race)]
        detail = {"scores": scores, "race_winner": public.get("winner")}
    elif game == "trapwords":
        teams = public.get("teams") or {}
        for seat in seats:
            seat["score"] = (teams.get(seat["seat"]) or {}).get("room")
        won = public.get("winner")
        winners = list(TEAMS) if won == "both" else [won] if won in TEAMS else []
        detail = {
            "rounds": public.get("round"),
            "rooms": public.get("rooms"),
            "monster": public.get("monster"),
            "monster_room": public.get("monster_room"),
            "winner": won,
            "curses_revealed": public.get("curses_revealed", []),
        }
    elif game == "cover-your-asps" and public.get("players") == 1:
        result = public.get("result")
        seats[0]["score"] = public.get("rolls")
        winners = [1] if result == "won" else []
        detail = {"result": result, "rolls": public.get("rolls"), "placed": public.get("placed")}
    elif game == "cover-your-asps":
        table = public.get("seats") or {}
        for seat in seats:
            seat["score"] = (table.get(str(seat["seat"])) or {}).get("points")
        winners = list(public.get("winner") or [])
        detail = {
            "rounds": public.get("round"),
            "seats": {
                k: {f: v.get(f) for f in ("treasures", "escapes", "points", "planks")}
                for k, v in table.items()
            },
        }
    elif game == "deathtrap-dungeon":
        points = public.get("points") or {}
        for seat in seats:
            seat["score"] = points.get(str(seat["seat"]))
        winners = list(public.get("winner") or [])
        detail = {"rounds": public.get("history", [])}
    elif game == "hostage-trap":
        won = public.get("winner")
        winners = [won] if won is not None else []
        detail = {"turns": public.get("turn_no")}
    _places(seats, winners)
    return {"seats": seats, "winners": winners, "detail": detail}
