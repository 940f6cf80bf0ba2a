"""Whatever the state dir holds, the box starts: every state file (journal, cards, records, the
Deathtrap pack and its last good copy) is read one way (companion/core/statefile.py). A file
that is not a regular file the box can read whole (a FIFO, a device, a directory, a link, a
dangling or looping link, too big, not UTF-8, a number too long, nesting too deep) is set aside
under a name never reused with one ERROR line naming it and why; `trap-companion run` reaches
READY=1 and exits 0 on SIGTERM; the OLED says so once. The config read the same way exits 78
naming the file. Each case is one the box once failed on (a crash loop, a start that never
ended, or a file dropped without a word)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_damaged_state import box_config, run_until_ready

from companion.core import statefile
from companion.core.registry import Card, Registry
from companion.games.deathtrap_dungeon import pack as packs
from companion.replay import run_script

DIGITS = "9" * 5000
DEEP_TOML = "x = " + "[" * 100_000 + "\n"
DEEP_JSON = '{"version": 1, "results": ' + "[" * 100_000 + "\n"
PACK_TEXT = packs.SHIPPED.read_text(encoding="utf-8")


def _link(target: str) -> Callable[[Path], None]:
    return lambda path: path.symlink_to(target)


def _link_to_a_file(path: Path) -> None:
    (path.parent / "mine.toml").write_text(
        '[cards."0102"]\ngame = "dice"\ncard = "x"\nname = "y"\n'
    )
    path.symlink_to("mine.toml")


def _loop(path: Path) -> None:
    path.symlink_to(path.name)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dir(path: Path) -> None:
    path.mkdir()
    (path / "inside").write_text("kept\n")


def _text(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text, encoding="utf-8")


def _bytes(data: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(data)


def _sparse(size: int) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        with path.open("wb") as f:
            f.truncate(size)

    return make


JOURNAL, CARDS, RECORDS = "journal.jsonl", "cards.toml", "records.json"
PACK, LAST_GOOD = packs.OWNER_NAME, packs.LAST_GOOD_NAME

# (file, how it is made, what the ERROR line says about it)
CASES = {
    # 1. exit 70 on every start
    "journal-loop": (JOURNAL, _loop, "a symbolic link that loops"),
    "journal-dangling": (JOURNAL, _link("nowhere"), "a dangling symbolic link (to nowhere"),
    "cards-loop": (CARDS, _loop, "a symbolic link that loops"),
    "records-digits": (RECORDS, _text('{"version": 1, "x": ' + DIGITS + "}"), "4300 digits"),
    "records-nested": (RECORDS, _text(DEEP_JSON), "nested too deep"),
    "pack-digits": (PACK, _text("x = " + DIGITS + "\n"), "more than 4300 digits (line 1)"),
    "pack-nested": (PACK, _text(DEEP_TOML), "nested too deep"),
    "journal-dev-zero": (JOURNAL, _link("/dev/zero"), "a symbolic link (to /dev/zero)"),
    "cards-dev-zero": (CARDS, _link("/dev/zero"), "a symbolic link (to /dev/zero)"),
    "records-dev-zero": (RECORDS, _link("/dev/zero"), "a symbolic link (to /dev/zero)"),
    "pack-dev-zero": (PACK, _link("/dev/zero"), "a symbolic link (to /dev/zero)"),
    # 2. never ready
    "journal-fifo": (JOURNAL, _fifo, "a FIFO (named pipe), not a regular file"),
    "cards-fifo": (CARDS, _fifo, "a FIFO (named pipe), not a regular file"),
    "records-fifo": (RECORDS, _fifo, "a FIFO (named pipe), not a regular file"),
    "pack-fifo": (PACK, _fifo, "a FIFO (named pipe), not a regular file"),
    "pack-60mb": (PACK, _sparse(60 * 2**20), "is too big (62914560 bytes; at most 1048576)"),
    "journal-too-big": (JOURNAL, _sparse(statefile.JOURNAL_CAP + 1), "is too big"),
    # 3. silent
    "cards-dangling": (CARDS, _link("nowhere"), "a dangling symbolic link"),
    "records-dangling": (RECORDS, _link("nowhere"), "a dangling symbolic link"),
    "records-loop": (RECORDS, _loop, "a symbolic link that loops"),
    "pack-dangling": (PACK, _link("nowhere"), "a dangling symbolic link"),
    "pack-loop": (PACK, _loop, "a symbolic link that loops"),
    "cards-empty": (CARDS, _text(""), "is empty"),
    # and the rest of the principle
    "journal-dir": (JOURNAL, _dir, "a directory, not a regular file"),
    "cards-dir": (CARDS, _dir, "a directory, not a regular file"),
    "records-dir": (RECORDS, _dir, "a directory, not a regular file"),
    "cards-not-utf8": (CARDS, _bytes(b"# \xff\xfe\n"), "is not UTF-8 text (line 1, byte 2)"),
    "records-not-utf8": (RECORDS, _bytes(b'{"version": 1}\xff'), "is not UTF-8 text"),
    "journal-dev-null": (JOURNAL, _link("/dev/null"), "a symbolic link (to /dev/null)"),
    "cards-link-to-a-file": (CARDS, _link_to_a_file, "a symbolic link (to mine.toml)"),
}
# The last good copy of the pack: used when the owner's pack is bad, compared when it is good.
LAST_GOOD_CASES = {
    "bad-pack-nested-last-good": ("[[set]\n", _text(DEEP_TOML), "nested too deep"),
    "good-pack-fifo-last-good": (PACK_TEXT, _fifo, "a FIFO (named pipe)"),
    "good-pack-dev-zero-last-good": (PACK_TEXT, _link("/dev/zero"), "(to /dev/zero)"),
    "bad-pack-dev-zero-last-good": ("[[set]\n", _link("/dev/zero"), "(to /dev/zero)"),
    "bad-pack-fifo-last-good": ("[[set]\n", _fifo, "a FIFO (named pipe)"),
}


def _config(tmp_path: Path) -> Path:
    return box_config(tmp_path, display="dummy")  # the OLED's notice is read off its picture


def _errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("ERROR")]


def _same_kind(path: Path, made: Callable[[Path], None], tmp_path: Path) -> bool:
    """What was set aside is what was there (a link is still a link, a FIFO a FIFO)."""
    twin = tmp_path / "twin"
    made(twin)
    return (os.lstat(path).st_mode & 0o170000) == (os.lstat(twin).st_mode & 0o170000)


@pytest.mark.parametrize("case", CASES)
def test_the_box_starts_sets_the_file_aside_and_says_so_in_one_line(tmp_path, case):
    name, make, why = CASES[case]
    config = _config(tmp_path)
    state = tmp_path / "state"
    make(state / name)
    ready, log = run_until_ready(tmp_path, config)
    assert "READY=1" in ready and "Traceback" not in log
    (error,) = _errors(log)
    assert error.startswith("ERROR") and str(state / name) in error and why in error, error
    (aside,) = state.glob(f"{name}.unreadable-*")
    assert f"moved to {aside}" in error
    assert _same_kind(aside, make, tmp_path)
    _, again = run_until_ready(tmp_path, config)
    assert _errors(again) == []  # said once: the next start finds nothing wrong


@pytest.mark.parametrize("case", LAST_GOOD_CASES)
def test_a_last_good_pack_copy_that_cannot_be_read_is_set_aside(tmp_path, case):
    owner_text, make, why = LAST_GOOD_CASES[case]
    config = _config(tmp_path)
    state = tmp_path / "state"
    (state / PACK).write_text(owner_text, encoding="utf-8")
    make(state / LAST_GOOD)
    ready, log = run_until_ready(tmp_path, config)
    assert "READY=1" in ready and "Traceback" not in log
    errors = _errors(log)
    (about,) = [e for e in errors if str(state / LAST_GOOD) in e]
    assert why in about
    if owner_text == PACK_TEXT:  # the good pack is used and becomes the last good copy
        assert errors == [about]
        assert (state / LAST_GOOD).read_text(encoding="utf-8") == PACK_TEXT
    else:  # the owner's bad pack stays for them to mend, named with its line
        assert len(errors) == 2
        assert (state / PACK).read_text(encoding="utf-8") == owner_text
        assert any("line 1" in e and str(state / PACK) in e for e in errors)
    assert len(list(state.glob(f"{LAST_GOOD}.unreadable-*"))) == 1


SCREENS = {
    JOURNAL: "Saved game damaged",
    CARDS: "Card list unreadable",
    RECORDS: "Records unreadable",
    PACK: "Pack file unreadable",
}


@pytest.mark.parametrize("name", SCREENS)
@pytest.mark.parametrize("make", [_fifo, _loop, _link("/dev/zero")], ids=["fifo", "loop", "zero"])
def test_the_oled_says_so_once(tmp_path, name, make):
    state = tmp_path / "state"
    state.mkdir()
    make(state / name)
    first = run_script("wait 0\n", state_dir=state)
    assert SCREENS[name] in first[0]["screen"]
    again = run_script("wait 0\n", state_dir=state)
    assert SCREENS[name] not in again[0]["screen"]


# --- shell commands ----------------------------------------------------------------------------


def _command(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize(
    "make",
    [_fifo, _loop, _link("/dev/zero"), _link("nowhere"), _dir],
    ids=["fifo", "loop", "zero", "dangling", "dir"],  # not str: an address differs each run
)
def test_cards_list_names_a_registry_it_cannot_read_and_exits_65(tmp_path, make):
    config = _config(tmp_path)
    make(tmp_path / "state" / CARDS)
    proc = _command(config, "cards", "list")
    assert proc.returncode == 65, proc.stderr
    assert f"{tmp_path / 'state' / CARDS}: card registry unreadable: is a" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert os.path.lexists(tmp_path / "state" / CARDS)  # a shell command only names it


# --- temporary files in the way ----------------------------------------------------------------


def test_cards_enrol_sets_a_leftover_temporary_folder_aside(tmp_path):
    config = _config(tmp_path)
    tmp = tmp_path / "state" / "cards.toml.tmp"
    tmp.mkdir()
    (tmp / "x").write_text("kept\n")
    proc = _command(config, "cards", "enrol", "04A1B2C3", "trap-attack", "damage-1")
    assert proc.returncode == 0, proc.stderr
    (aside,) = (tmp_path / "state").glob("cards.toml.tmp.unreadable-*")
    assert (aside / "x").read_text() == "kept\n"
    assert f"{tmp}: is a directory in the way of a write; moved to {aside}" in proc.stderr
    assert "damage-1" in _command(config, "cards", "list").stdout


@pytest.mark.parametrize("make", [_dir, _fifo], ids=["dir", "fifo"])
def test_enrolment_on_the_box_writes_past_a_leftover(tmp_path, make, caplog):
    make(tmp_path / "cards.toml.tmp")
    registry = Registry(tmp_path / "cards.toml")
    registry.enrol(Card("04A1B2C3", "dice", "x", "y"))
    assert Registry(tmp_path / "cards.toml").cards["04A1B2C3"].name == "y"
    assert [r.levelname for r in caplog.records] == ["ERROR"]
    assert "cards.toml.tmp: is a" in caplog.records[0].getMessage()


def test_records_are_written_past_a_leftover_folder(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "records.json.tmp").mkdir()
    run_script(
        "game cover-your-asps players=1\ndice 3 5\npress green\npress ok\npress red\npress ok\n",
        state_dir=state,
    )
    assert len(json.loads((state / RECORDS).read_text())["results"]) == 1
    assert len(list(state.glob("records.json.tmp.unreadable-*"))) == 1


# --- the config --------------------------------------------------------------------------------

CONFIGS = {
    "fifo": (_fifo, "is a FIFO (named pipe), not a regular file"),
    "dev-zero": (_link("/dev/zero"), "is a symbolic link (to /dev/zero), not a regular file"),
    "loop": (_loop, "is a symbolic link that loops"),
    "dir": (_dir, "is a directory, not a regular file"),
    "too-big": (_sparse(statefile.CONFIG_CAP + 1), "is too big"),
    "not-utf8": (_bytes(b"[buttons]\nup = 5 # \xff\n"), "is not UTF-8 text (line 2"),
}


@pytest.mark.parametrize("command", [["config", "check"], ["run", "--config"]], ids=str)
@pytest.mark.parametrize("case", CONFIGS)
def test_a_config_that_is_no_regular_file_exits_78_naming_it(tmp_path, case, command):
    make, why = CONFIGS[case]
    path = tmp_path / "config.toml"
    make(path)
    proc = subprocess.run(
        [sys.executable, "-m", "companion", *command, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 78, proc.stderr
    assert proc.stderr.startswith(f"trap-companion: {path}")  # and, with a line, its key
    assert f": cannot read the config: it {why}" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_a_journal_past_its_cap_keeps_the_game_in_play(tmp_path):
    """Finished games piled up (history/ could not be written): the file is set aside unread
    but for its end, where the game in play lies whole, and that game resumes."""
    from companion.bench.start import _journal_of

    config = _config(tmp_path)
    journal = tmp_path / "state" / JOURNAL
    _journal_of(journal, statefile.JOURNAL_CAP + 300_000)
    last_game = journal.read_bytes().rsplit(b'"kind":"game"', 1)[1].count(b"\n")
    ready, log = run_until_ready(tmp_path, config)
    assert "STATUS=Dice;" in ready  # the game in play came back
    (error,) = _errors(log)
    assert f"{journal}: is too big" in error and "the game in play is kept" in error
    assert f"kept the {last_game} lines of the game in play" in error
    (aside,) = journal.parent.glob(f"{JOURNAL}.unreadable-*")
    assert aside.stat().st_size > statefile.JOURNAL_CAP
    assert journal.read_text().count("\n") == last_game
