"""Issue 36 point 6: what a cut or a damaged card leaves of the file of games set aside.

An empty ``waiting.jsonl.next`` is what a power cut leaves while move 1 (shelf.py) writes it:
no plan was made, nothing is damaged. A ``waiting.jsonl`` cut short (it is written whole and
renamed into place, so a cut never tears it: something else did) keeps a copy of itself as it
was, says so, and the games whole in it wait on."""

from __future__ import annotations

import logging
from pathlib import Path

from companion.core import shelf
from companion.core.journal_lines import GameRecord
from companion.core.shelf import Shelf, identity

DICE = GameRecord("dice", {}, [], 0.0, [], "d1")
WORDS = GameRecord("trapwords", {"teams": "2"}, [], 0.0, [], "w1")


def written(tmp_path: Path, games: dict[str, GameRecord]) -> bytes:
    shelf._write_whole(tmp_path / shelf.WAITING, games)
    return (tmp_path / shelf.WAITING).read_bytes()


def test_an_empty_next_file_left_by_a_cut_is_no_damage(tmp_path: Path, caplog) -> None:
    written(tmp_path, {"dice": DICE})
    (tmp_path / f"{shelf.WAITING}.next").write_bytes(b"")
    caplog.set_level(logging.INFO)
    games = Shelf(tmp_path).open(WORDS)
    assert set(games) == {"dice"}
    assert not list(tmp_path.glob("*.next")) and not list(tmp_path.glob("*unreadable*"))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_next_file_torn_while_it_was_written_is_no_plan(tmp_path: Path, caplog) -> None:
    written(tmp_path, {"dice": DICE})
    plan = tmp_path / "plan"
    shelf._write(plan, shelf.Waiting({"dice": DICE, "trapwords": WORDS}, identity(None)))
    data = plan.read_bytes()
    (tmp_path / f"{shelf.WAITING}.next").write_bytes(data[: len(data) - 7])
    plan.unlink()
    caplog.set_level(logging.INFO, "companion.core.shelf")
    games = Shelf(tmp_path).open(None)
    assert set(games) == {"dice"}  # the old arrangement
    assert not list(tmp_path.glob("*.next")) and not list(tmp_path.glob("*unreadable*"))
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_waiting_file_cut_short_keeps_a_copy_and_says_so(tmp_path: Path, caplog) -> None:
    data = written(tmp_path, {"dice": DICE, "trapwords": WORDS})
    cut = data[: len(data) - 5]  # the last line loses its end
    (tmp_path / shelf.WAITING).write_bytes(cut)
    caplog.set_level(logging.ERROR, "companion.core.shelf")
    games = Shelf(tmp_path).open(None)
    copies = list(tmp_path.glob(f"{shelf.WAITING}.unreadable-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == cut  # kept as it was
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "cut short" in said and str(copies[0]) in said
    assert "dice" in games  # the games whole in it wait on
