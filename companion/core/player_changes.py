"""A player renamed, merged with another or forgotten (issue 48): one change of both files, the
names (players.json) and the plays kept with them (plays.json), each written whole. The same
operations for the shell (`trap-companion records rename|merge|forget`) and for a face (a
paired phone's or the page's records view, done on the box's loop: app/seating.py).

    rename   OLD is called NEW from now on; NEW must be no player yet (else: merge)
    merge    two spellings of one person: OLD's plays become NEW's, OLD goes
    forget   the name goes; every play keeps its seat, score and place, unnamed

``what_it_does`` says a change in words before it is made (a face asks to confirm a merge or a
forget with it). A bad name is ``BadName`` (a ValueError), with nothing written. A file that
cannot be written is OSError: the plays are written first and put back as they were if the
names then cannot be, so the two files never disagree after a refusal."""

from __future__ import annotations

from dataclasses import dataclass

from companion.core.players import GUEST, BadName, Players, clean
from companion.core.plays import Plays

VERBS = ("rename", "merge", "forget")


@dataclass(frozen=True)
class Change:
    verb: str  # one of VERBS
    old: str
    new: str | None  # None for forget


def known(players: Players, plays: Plays, name: str) -> bool:
    """A player the box knows: by name (players.json), or named in a play kept (a name the
    names' file no longer holds: set aside when damaged, or past its count)."""
    return name in players.used or plays_of(plays, name) > 0


def checked(players: Players, plays: Plays, verb: str, old: str, new: str | None = None) -> Change:
    """The change asked for, its names checked against the players known; BadName says why
    it cannot be made."""
    if verb not in VERBS:
        raise BadName(f"no such change {verb!r} ({', '.join(VERBS)})")
    if not known(players, plays, old):
        raise BadName(f"no player is called {old!r}")
    if verb == "forget":
        return Change(verb, old, None)
    if new is None:
        raise BadName(f"{verb}: say the new name")
    new = clean(new)
    if new == GUEST:
        raise BadName(f"{GUEST!r} names a seat without a person: pick another name")
    if new == old:
        raise BadName(f"{old!r} is called that already")
    there = known(players, plays, new)
    if verb == "merge" and not there:
        raise BadName(f"no player is called {new!r} to merge into (rename instead)")
    if verb == "rename" and there:
        raise BadName(f"{new!r} is a player already (merge instead)")
    return Change(verb, old, new)


def plays_of(plays: Plays, name: str) -> int:
    """How many plays name ``name`` at some seat."""
    return sum(any(s["player"] == name for s in p["seats"]) for p in plays.plays)


def what_it_does(plays: Plays, change: Change) -> str:
    """The change in words, before it is made."""
    counted = f"{plays_of(plays, change.old)} play(s)"
    if change.verb == "forget":
        return f"Forget {change.old}? Their {counted} keep the seat, unnamed."
    if change.verb == "merge":
        return f"Merge {change.old} into {change.new}? {change.old}'s {counted} become theirs."
    return f"Rename {change.old} to {change.new}? {counted} change."


def make(players: Players, plays: Plays, change: Change) -> int:
    """Make the change in both files; the plays changed."""
    before = dict(plays.by_key)
    changed = plays.rename(change.old, change.new)
    try:
        if change.old not in players.used:  # named in the plays only
            if change.new is not None:
                players.add(change.new)
        elif change.new is None:
            players.forget(change.old)
        else:
            players.rename(change.old, change.new)
    except OSError:
        if changed:
            plays.put_back(before)
        raise
    return changed


def done(change: Change, changed: int) -> str:
    """What was done, in words."""
    counted = f"{changed} play(s)"
    if change.new is None:
        return f"forgot {change.old}; {counted} keep the seat unnamed"
    return f"{change.old} is {change.new} now; {counted} changed"
