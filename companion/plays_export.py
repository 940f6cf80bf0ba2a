"""The plays kept (core/plays.py) as files other tools read (issue 48): CSV, a row per seat of
each play, and the JSON of BG Stats' backup export (games, players, one location: the box, and
plays with each player's score, winner, rank and seat order). BG Stats' ids are uuids: made
from each play's key, each name and each game, so exporting again and importing again finds
the same plays, players and games rather than new ones.

BG Stats needs a date on every play: plays kept while the box's clock was not known (undated)
are left out of that export and counted (``Export.left_out``); the CSV keeps them, undated."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.games import registry as games

FORMATS = ("csv", "bgstats")
LOCATION = "Trap Companion"
NAMESPACE = uuid.UUID("6f1d2f0e-7f38-4a4e-9d0a-48e1b5c0a048")  # this product's uuids
ANONYMOUS = "Anonymous"
CSV_FIELDS = (
    "date", "game", "title", "options", "minutes", "seat", "player", "score", "place", "winner",
    "play",
)  # fmt: skip


@dataclass
class Export:
    text: str
    plays: int  # plays in the export
    left_out: int = 0  # undated plays a format cannot take


def _uuid(kind: str, name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{kind}:{name}"))


def _title(game: str) -> str:
    return games.title(game)  # a game this release does not know: its own name


def _options(options: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in options.items())


def to_csv(plays: Iterable[Mapping[str, Any]]) -> Export:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    count = 0
    for play in plays:
        count += 1
        for seat in play["seats"]:
            writer.writerow(
                (
                    play["date"],
                    play["game"],
                    _title(play["game"]),
                    _options(play["options"]),
                    round(play["seconds"] / 60, 1),
                    seat["seat"],
                    seat["player"] or "",
                    "" if seat["score"] is None else seat["score"],
                    "" if seat["place"] is None else seat["place"],
                    "yes" if seat["seat"] in play["winners"] else "no",
                    play["key"],
                )
            )
    return Export(out.getvalue(), count)


def to_bgstats(plays: Iterable[Mapping[str, Any]]) -> Export:
    game_ids: dict[str, int] = {}
    player_ids: dict[str, int] = {}
    games_out: list[dict[str, Any]] = []
    players_out: list[dict[str, Any]] = []
    plays_out: list[dict[str, Any]] = []
    left_out = 0

    def player(name: str, anonymous: bool = False) -> int:
        if name not in player_ids:
            player_ids[name] = len(player_ids) + 1
            players_out.append(
                {
                    "id": player_ids[name],
                    "uuid": _uuid("player", name),
                    "name": name,
                    "isAnonymous": anonymous,
                }
            )
        return player_ids[name]

    for play in plays:
        if not play["date"]:
            left_out += 1
            continue
        game = play["game"]
        if game not in game_ids:
            game_ids[game] = len(game_ids) + 1
            games_out.append(
                {
                    "id": game_ids[game],
                    "uuid": _uuid("game", game),
                    "name": _title(game),
                    "highestWins": True,
                    "cooperative": False,
                    "noPoints": all(s["score"] is None for s in play["seats"]),
                    "usesTeams": game == "trapwords",
                }
            )
        scores = []
        for order, seat in enumerate(play["seats"], start=1):
            if seat["seat"] == "ai":
                ref = player("AI")
            elif seat["player"]:
                ref = player(seat["player"])
            else:
                ref = player(ANONYMOUS, anonymous=True)
            scores.append(
                {
                    "playerRefId": ref,
                    "score": "" if seat["score"] is None else str(seat["score"]),
                    "winner": seat["seat"] in play["winners"],
                    "rank": seat["place"] or 0,
                    "seatOrder": order,
                    "startPlayer": order == 1,
                    "newPlayer": False,
                    "role": f"Team {seat['seat']}" if isinstance(seat["seat"], str) else "",
                }
            )
        plays_out.append(
            {
                "uuid": _uuid("play", play["key"]),
                "gameRefId": game_ids[game],
                "locationRefId": 1,
                "playDate": f"{play['date']} 00:00:00",
                "durationMin": round(play["seconds"] / 60),
                "ignored": False,
                "manualWinner": False,
                "rounds": 0,
                "board": _options(play["options"]),
                "playerScores": scores,
            }
        )
    data = {
        "games": games_out,
        "players": players_out,
        "locations": [{"id": 1, "uuid": _uuid("location", LOCATION), "name": LOCATION}],
        "plays": plays_out,
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    return Export(text, len(plays_out), left_out)


def export(plays: Iterable[Mapping[str, Any]], form: str) -> Export:
    if form == "csv":
        return to_csv(plays)
    if form == "bgstats":
        return to_bgstats(plays)
    raise ValueError(f"unknown export format {form!r} (use {', '.join(FORMATS)})")
