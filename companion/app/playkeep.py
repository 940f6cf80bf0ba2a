"""The step's side of keeping plays (issue 48): after every move, the game's play as it stands
(None while the game is not finished), for the App to keep (app/seating.py, core/plays.py).
A move in a game not finished costs a look at ``ended``, nothing more."""

from __future__ import annotations

from companion.app.draft import Draft
from companion.app.effects import KeepPlay
from companion.games import played


def keep_play(d: Draft) -> None:
    session = d.session
    if session is None or session.name == "dice":  # the dice tool is never a play
        return
    seats = len(played.named_seats(session.name, session.options))
    report = None
    if session.rules.ended(session.state):
        public = session.rules.public(session.state)
        report = played.report(session.name, session.options, public)
    seconds = d.world.game_time - session.started_at
    d.out.append(
        KeepPlay(
            session.record_key,
            session.name,
            dict(session.options),
            report,
            seats,
            d.world.today,
            seconds,
        )
    )
