"""The kept files' format versions (issue 34 point 5): a release rolled back to meets what a
newer one wrote. Each file of a newer format is refused with a message naming it and both
versions (exit 75 from a shell command, a notice on the box), and left exactly as it is: not
read, moved, rewritten or set aside, and nothing written over it. A file written before
versions is read as version 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_damaged_state import box_config, run_until_ready

from companion.core import formats, storage
from companion.core.config import Config, StateConfig
from companion.core.journal import Journal
from companion.core.journal_lines import read_entries, read_journal
from companion.core.records import Records
from companion.core.registry import Card, Registry
from companion.core.shelf import Shelf
from companion.errors import DataError
from companion.replay import run_script
from companion.web.pairing import NotSaved, Pairing

GAME = {"kind": "game", "game": "dice", "options": {}, "rolls": [], "at": 0.0, "id": "ab12"}


def action(face: int, at: float) -> dict:
    return {"kind": "action", "action": {"name": "roll", "args": {}, "rolls": [face], "at": at}}


def jsonl(entries: list[dict]) -> bytes:
    return b"".join((json.dumps(e, separators=(",", ":")) + "\n").encode() for e in entries)


def numbered(entries: list[dict], v: int | None = 1) -> list[dict]:
    """Entries as a journal's lines: numbered, each with its version (None: none, as before)."""
    return [
        {**({"v": v} if v is not None else {}), "seq": n, **e}
        for n, e in enumerate(entries, start=1)
    ]


def untouched(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in ``folder`` with its bytes and its modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def cli(config: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args, "--config", str(config)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_newer_version_is_refused_naming_the_file_and_both_versions() -> None:
    err = formats.newer(3, 2, "/var/lib/trap-companion/phones.json")
    assert isinstance(err, DataError) and err.exit_status == 75
    assert str(err) == (
        "/var/lib/trap-companion/phones.json: written by a newer release (format 3; this release "
        "reads up to 2): left as it is; update the box to use it"
    )
    # Its own version, an older one, none, or one that is no version at all: the reader's own.
    for value in (2, 1, None, "3", True, 2.5, [3]):
        assert formats.newer(value, 2, "x") is None
    assert storage.condition_of(formats.Refused(err)) == storage.NEWER


# --- the journal -----------------------------------------------------------------------------


def test_a_journal_of_a_newer_version_is_left_as_it_is_and_play_goes_on_unsaved(tmp_path):
    path = tmp_path / "journal.jsonl"
    lines = numbered([GAME, action(3, 1.0)])
    lines[1]["v"] = 2  # a newer release appended this line
    path.write_bytes(jsonl(lines) + b'{"v":2,"torn')  # a torn tail is not cut either
    before = untouched(tmp_path)
    journal = Journal(path)
    assert journal.open() is None  # nothing folded: a newer line is never misread
    assert journal.condition == storage.NEWER
    assert "format 2; this release reads up to 1" in str(journal.newer)
    assert str(path) in str(journal.newer)
    journal.new_game("dice", {}, (), 5.0)
    assert not journal.action(action(4, 6.0)["action"])  # kept in memory, not written
    assert not journal.compact(journal_record(journal))
    journal.close()
    assert untouched(tmp_path) == before
    with pytest.raises(formats.NewerFormat, match="format 2"):
        read_entries(path)


def journal_record(journal: Journal):
    from companion.core.journal_lines import GameRecord

    return GameRecord("dice", {}, (), 5.0, [], "cd34")


def test_once_the_newer_journal_is_taken_away_the_moves_kept_in_memory_are_written(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(jsonl(numbered([GAME], v=2)))
    journal = Journal(path)
    journal.open()
    journal.new_game("dice", {}, (), 5.0)
    journal.action(action(6, 6.0)["action"])
    assert not journal.flush() and journal.condition == storage.NEWER
    path.rename(tmp_path / "kept-by-the-owner.jsonl")
    assert journal.flush() and journal.condition == storage.OK
    entries, _ = read_entries(path)
    assert [e["kind"] for e in entries] == ["game", "action"]
    assert all(e["v"] == 1 for e in entries)


def test_an_unversioned_journal_folds_as_version_1(tmp_path):
    entries = [GAME, action(3, 1.0), action(5, 2.0), {"kind": "undo"}]
    for name, v in (("with.jsonl", 1), ("without.jsonl", None)):
        (tmp_path / name).write_bytes(jsonl(numbered(entries, v)))
    folded = []
    for name in ("with.jsonl", "without.jsonl"):
        journal = Journal(tmp_path / name)
        folded.append(journal.open())
        assert journal.condition == storage.OK and journal.newer is None
        journal.close()
    assert folded[0] == folded[1] and folded[0] is not None
    assert folded[0].actions == [action(3, 1.0)["action"]]


@given(
    faces=st.lists(st.integers(1, 6), min_size=0, max_size=12),
    newer_at=st.integers(0, 12),
    version=st.integers(2, 10**6),
    unversioned=st.sets(st.integers(0, 12)),
)
def test_any_newer_line_anywhere_refuses_the_journal_whole(faces, newer_at, version, unversioned):
    """A sequence of lines, some without a version, one of them newer: the reading refuses
    the whole file wherever that line is (and reads it all when none is newer)."""
    lines = numbered([GAME, *(action(f, float(i)) for i, f in enumerate(faces))])
    for i in unversioned:
        if i < len(lines):
            del lines[i]["v"]
    data = jsonl(lines)
    assert read_journal(data, "j").entries == lines  # none newer: every line read
    lines[min(newer_at, len(lines) - 1)]["v"] = version
    with pytest.raises(formats.NewerFormat, match=f"format {version};"):
        read_journal(jsonl(lines), "j")


def test_replay_on_a_newer_journal_exits_75_and_leaves_it(tmp_path):
    config = box_config(tmp_path)
    path = tmp_path / "state" / "journal.jsonl"
    path.write_bytes(jsonl(numbered([GAME], v=2)))
    before = untouched(tmp_path / "state")
    proc = cli(config, "replay", "-", stdin="game dice\npress green\n")
    assert proc.returncode == 75, proc.stderr
    said = [line for line in proc.stderr.splitlines() if not line.startswith("ERROR ")]
    assert said == [  # the box's own log lines aside, one line; `update`'s busy lock is 4
        f"trap-companion: {path}: written by a newer release (format 2; this release reads up "
        "to 1): left as it is; update the box to use it"
    ]
    assert "Traceback" not in proc.stderr
    assert untouched(tmp_path / "state") == before


def test_the_box_starts_on_a_newer_journal_and_says_so(tmp_path):
    config = box_config(tmp_path)
    path = tmp_path / "state" / "journal.jsonl"
    path.write_bytes(jsonl(numbered([GAME, action(2, 1.0)], v=3)))
    before = path.read_bytes()
    ready, log = run_until_ready(tmp_path, config)
    assert "READY=1" in ready and "newer release's file: not saved" in ready
    assert "format 3; this release reads up to 1" in log and "Traceback" not in log
    assert path.read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["journal.jsonl"]


# --- the games set aside -----------------------------------------------------------------------


def waiting_file(v: int | None, line_v: int | None = None) -> bytes:
    header = {"kind": "waiting", "was": None, "no_ended": True}
    if v is not None:
        header = {"v": v, **header}
    body = numbered([GAME, action(4, 1.0)], line_v if line_v is not None else v)
    return (json.dumps(header) + "\n").encode() + jsonl(body)


@pytest.mark.parametrize(("header", "line"), [(2, 2), (1, 2), (None, 5)])
def test_a_waiting_file_of_a_newer_version_is_left_and_nothing_waits(tmp_path, header, line):
    shelf_path = tmp_path / "waiting.jsonl"
    shelf_path.write_bytes(waiting_file(header, line))
    (tmp_path / "waiting.jsonl.next").write_bytes(waiting_file(header, line))  # a cut change
    before = untouched(tmp_path)
    shelf = Shelf(tmp_path)
    assert shelf.open(None) == {}
    assert shelf.newer is not None and "waiting.jsonl" in str(shelf.newer)
    with pytest.raises(formats.Refused):
        shelf.plan({}, None)
    shelf.drop_plan()
    with pytest.raises(formats.Refused):
        shelf.settle(None)
    with pytest.raises(formats.Refused):
        shelf.retire([])
    assert untouched(tmp_path) == before


@given(
    games=st.lists(st.sampled_from(["dice", "trapwords", "hostage-trap"]), min_size=1, max_size=3),
    newer_at=st.integers(0, 20),
    version=st.integers(2, 99),
)
def test_a_newer_line_anywhere_in_the_waiting_file_refuses_it_whole(
    tmp_path_factory, games, newer_at, version
):
    folder = tmp_path_factory.mktemp("shelf")
    entries = []
    for n, game in enumerate(dict.fromkeys(games)):
        entries += [{**GAME, "game": game, "id": f"{n:04x}"}, action(n + 1, float(n))]
    lines = numbered(entries)
    lines[newer_at % len(lines)]["v"] = version
    header = {"v": 1, "kind": "waiting", "was": None, "no_ended": True}
    (folder / "waiting.jsonl").write_bytes((json.dumps(header) + "\n").encode() + jsonl(lines))
    before = untouched(folder)
    shelf = Shelf(folder)
    assert shelf.open(None) == {} and f"format {version};" in str(shelf.newer)
    assert untouched(folder) == before


def test_a_newer_journal_leaves_the_waiting_files_alone_too(tmp_path):
    (tmp_path / "waiting.jsonl").write_bytes(waiting_file(1))
    (tmp_path / "waiting.jsonl.next").write_bytes(waiting_file(1))  # would be settled
    before = untouched(tmp_path)
    shelf = Shelf(tmp_path)
    newer = formats.NewerFormat(tmp_path / "journal.jsonl", 2, 1)
    assert shelf.open(None, newer) == {}
    assert untouched(tmp_path) == before


def test_an_unversioned_waiting_file_is_read(tmp_path):
    (tmp_path / "waiting.jsonl").write_bytes(waiting_file(None))
    games = Shelf(tmp_path).open(None)
    assert list(games) == ["dice"] and games["dice"].actions == [action(4, 1.0)["action"]]


# --- the cards -------------------------------------------------------------------------------

CARD = '[cards."0A1B2C3D"]\ngame = "dice"\ncard = "x"\nname = "X"\n'


def test_a_card_list_of_a_newer_format_is_refused_and_left(tmp_path):
    path = tmp_path / "cards.toml"
    path.write_text("format = 2\n" + CARD)
    before = untouched(tmp_path)
    with pytest.raises(formats.NewerFormat, match=r"cards.toml: .*format 2; .* up to 1\)"):
        Registry(path)
    registry, problem = Registry.open_or_set_aside(path)
    assert registry.cards == {} and registry.newer is not None and "format 2" in problem
    with pytest.raises(formats.Refused):
        registry.enrol(Card("0102", "dice", "y", "Y"))
    assert registry.cards == {}
    with pytest.raises(OSError) as refused:
        registry.enrol(Card("0102", "dice", "y", "Y"))
    assert storage.condition_of(refused.value) == storage.NEWER
    assert untouched(tmp_path) == before


def test_cards_list_on_a_newer_card_list_exits_75(tmp_path):
    config = box_config(tmp_path)
    path = tmp_path / "state" / "cards.toml"
    path.write_text("format = 7\n" + CARD)
    before = untouched(tmp_path / "state")
    proc = cli(config, "cards", "list")
    assert proc.returncode == 75, proc.stderr
    assert f"{path}: written by a newer release (format 7; this release reads up to 1)" in (
        proc.stderr
    )
    assert untouched(tmp_path / "state") == before


def test_an_unversioned_card_list_is_read_and_saved_with_its_format(tmp_path):
    path = tmp_path / "cards.toml"
    path.write_text(CARD)
    registry = Registry(path)
    assert list(registry.cards) == ["0A1B2C3D"]
    registry.enrol(Card("0102", "dice", "y", "Y"))
    assert "\nformat = 1\n" in path.read_text()
    assert sorted(Registry(path).cards) == ["0102", "0A1B2C3D"]


# --- the records -----------------------------------------------------------------------------

RESULT = {
    "key": "k1", "game": "cover-your-asps", "board": "solo", "won": True, "score": 12,
    "better": "lower", "unit": "rolls", "date": "2026-11-27", "details": {},
}  # fmt: skip


def test_records_of_a_newer_version_are_refused_and_left(tmp_path):
    path = tmp_path / "records.json"
    path.write_text(json.dumps({"version": 2, "results": [RESULT], "more": 1}))
    before = untouched(tmp_path)
    with pytest.raises(formats.NewerFormat, match=r"records.json: .*format 2;"):
        Records(path)
    records, problem = Records.open_or_set_aside(path)
    assert records.results == [] and "format 2" in problem
    report = {"board": "solo", "unit": "rolls", "better": "lower", "score": 9, "won": True}
    with pytest.raises(formats.Refused):
        records.sync("k2", "cover-your-asps", report, "2026-11-27")
    assert untouched(tmp_path) == before


def test_unversioned_records_are_read(tmp_path):
    path = tmp_path / "records.json"
    path.write_text(json.dumps({"results": [RESULT]}))
    assert [r.score for r in Records(path).results] == [12]


def test_the_box_says_which_files_are_a_newer_releases_and_plays_on(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "cards.toml").write_text("format = 2\n" + CARD)
    (state / "records.json").write_text(json.dumps({"version": 9, "results": []}))
    before = untouched(state)
    out = run_script("wait 0\nwait 5\ngame dice\npress green\n", config=config_for(state))
    shown = " ".join(out[0]["screen"])
    assert "Card list:" in shown and "newer release's file" in shown
    assert out[3]["state"]["history"]  # play goes on
    after = untouched(state)
    assert {name: after[name] for name in before} == before
    assert not list(state.glob("*.unreadable-*"))


def config_for(state: Path) -> Config:
    return Config(state=StateConfig(dir=str(state)))


# --- the phones ------------------------------------------------------------------------------


def test_a_phones_file_of_a_newer_version_is_left_and_no_phone_is_paired(tmp_path):
    path = tmp_path / "phones.json"
    path.write_text(json.dumps({"version": 3, "phones": [{"sha256": "a" * 64, "left": 9.0}]}))
    before = untouched(tmp_path)
    pairing = Pairing(tmp_path, clock=lambda: 100.0, wall=lambda: 1e9)
    assert pairing.phones == {} and pairing.newer is not None
    assert "phones.json" in pairing.problem and "format 3; this release reads up to 2" in (
        pairing.problem
    )
    code = pairing.new_code()
    attempt = pairing.attempt(code, "192.0.2.1")
    assert attempt.outcome != "paired"
    with pytest.raises(NotSaved) as refused:
        pairing.forget_all()
    assert refused.value.condition == storage.NEWER
    pairing.keep_time()
    assert untouched(tmp_path) == before


@pytest.mark.parametrize("version", [1, 2])
def test_phones_files_of_versions_1_and_2_are_read(tmp_path, version):
    key = "until" if version == 1 else "left"
    item = {"sha256": "b" * 64, key: 1e9 + 60 if version == 1 else 60.0}
    (tmp_path / "phones.json").write_text(json.dumps({"version": version, "phones": [item]}))
    pairing = Pairing(tmp_path, clock=lambda: 100.0, wall=lambda: 1e9)
    assert pairing.newer is None and list(pairing.phones) == ["b" * 64]
    assert os.path.exists(tmp_path / "phones.json")
