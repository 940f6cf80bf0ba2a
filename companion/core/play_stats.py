"""Records of the plays kept (issue 48), for the faces: per player (plays, wins and win rate,
best and average score, last played, the current and the longest run of wins), per game (plays,
most wins, high scores, the spread of scores), head to head for two players, and the series the
plots draw (scores over time, a game's scores counted by value). One pass over the plays;
numbers only, the faces draw them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from statistics import median
from typing import Any

SERIES_POINTS = 50  # a player's scores over time: the last ones
TOP = 8  # players in the plots


def _named(play: Mapping[str, Any]) -> dict[str, tuple[bool, Any]]:
    """Each named player of a play once: (won, score)."""
    out: dict[str, tuple[bool, Any]] = {}
    for seat in play["seats"]:
        name = seat["player"]
        if name and name not in out:
            out[name] = (seat["seat"] in play["winners"], seat["score"])
    return out


def records(plays: Iterable[Mapping[str, Any]], game: str | None = None) -> dict[str, Any]:
    """The records of ``game``'s plays (all games: None), oldest play first as kept."""
    players: dict[str, dict[str, Any]] = {}
    games: dict[str, dict[str, Any]] = {}
    series: dict[str, list[list[Any]]] = {}
    scores: list[int] = []
    for index, play in enumerate(plays):
        if game is not None and play["game"] != game:
            continue
        g = games.setdefault(play["game"], {"plays": 0, "wins": {}, "high": None})
        g["plays"] += 1
        for seat in play["seats"]:
            score = seat["score"]
            if isinstance(score, int) and not isinstance(score, bool):
                if game is not None:
                    scores.append(score)
                if g["high"] is None or score > g["high"]["score"]:
                    g["high"] = {"score": score, "player": seat["player"], "date": play["date"]}
        for name, (won, score) in _named(play).items():
            p = players.setdefault(
                name,
                {"plays": 0, "wins": 0, "scores": [], "last": "", "run": 0, "best_run": 0},
            )
            p["plays"] += 1
            p["wins"] += won
            p["run"] = p["run"] + 1 if won else 0
            p["best_run"] = max(p["best_run"], p["run"])
            p["last"] = max(p["last"], play["date"])
            if won:
                g["wins"][name] = g["wins"].get(name, 0) + 1
            if isinstance(score, int) and not isinstance(score, bool):
                p["scores"].append(score)
                series.setdefault(name, []).append([index + 1, play["date"], score])
    rows = []
    for name, p in players.items():
        s = p["scores"]
        rows.append(
            {
                "player": name,
                "plays": p["plays"],
                "wins": p["wins"],
                "rate": round(p["wins"] / p["plays"], 3),
                "best": max(s) if s else None,
                "average": round(sum(s) / len(s), 1) if s else None,
                "last": p["last"] or "undated",
                "streak": p["run"],
                "best_streak": p["best_run"],
            }
        )
    rows.sort(key=lambda r: (-r["wins"], r["plays"], r["player"].casefold()))
    top = [r["player"] for r in rows[:TOP]]
    per_game = []
    for name, g in sorted(games.items()):
        most = max(g["wins"].items(), key=lambda kv: (kv[1], kv[0]), default=None)
        per_game.append(
            {
                "game": name,
                "plays": g["plays"],
                "most_wins": {"player": most[0], "wins": most[1]} if most else None,
                "high": g["high"],
            }
        )
    spread = None
    if scores:
        spread = {"low": min(scores), "median": median(scores), "high": max(scores)}
    counts: dict[int, int] = {}
    for score in scores:
        counts[score] = counts.get(score, 0) + 1
    return {
        "game": game,
        "players": rows,
        "games": per_game,
        "spread": spread,
        "distribution": [[k, counts[k]] for k in sorted(counts)],
        "series": {n: series.get(n, [])[-SERIES_POINTS:] for n in top},
    }


def head_to_head(plays: Iterable[Mapping[str, Any]], a: str, b: str) -> dict[str, Any]:
    """The plays ``a`` and ``b`` both sat in: how many, and the wins of each."""
    together = wins_a = wins_b = 0
    for play in plays:
        named = _named(play)
        if a in named and b in named:
            together += 1
            wins_a += named[a][0]
            wins_b += named[b][0]
    return {"a": a, "b": b, "plays": together, "wins_a": wins_a, "wins_b": wins_b}
