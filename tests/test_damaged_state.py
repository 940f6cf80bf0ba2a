"""Start-up on damaged state, as an owner's bad day leaves it: whatever the journal or the card
registry holds, the box starts (READY=1 for systemd), sets the damaged file aside with a notice
on screen and keeps every part that can still be used. A shell command on the same file names it
and exits 65, never 70."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.core.registry import Card, Registry
from companion.replay import run_script

BAD_REGISTRIES = [
    ("cards = 5\n", "cards = 5: must be [cards"),
    ("cards = [1,2]\n", "cards = [1, 2]: must be [cards"),
    ('[cards."0102"]\ngame = 5\ncard = "x"\nname = "y"\n', "game = 5: must be text"),
    ('[cards."0102"]\ngame = "dice"\ncard = "x"\n', "missing name"),
    ('cards = { "0102" = 3 }\n', "[cards.0102] = 3: must be a table"),
    (
        '[cards."0102"]\ngame = "dice"\ncard = "x"\nname = "y"\nvalue = [1]\n',
        "value = [1]: must be a number or text",
    ),
    (
        "x = " + "9" * 5000 + "\n",
        "card registry unreadable: holds a number of more than 4300 digits (line 1)",
    ),
    ("x = " + "[" * 200_000 + "\n", "card registry unreadable: is nested too deep"),
]


def box_config(tmp_path: Path, display: str = "none") -> Path:
    """A box on mock pins with no reader, its state in tmp_path/state."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'[hardware]\npin_factory = "mock"\n[display]\ndriver = "{display}"\n'
        f'[reader]\ntype = "none"\n[state]\ndir = "{tmp_path / "state"}"\n'
    )
    (tmp_path / "state").mkdir(exist_ok=True)
    return config


def _command(config: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args, "--config", str(config)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def run_until_ready(
    tmp_path: Path,
    config: Path,
    stop: Callable[[subprocess.Popen], None] | None = None,
    prefix: tuple[str, ...] = (),
) -> tuple[str, str]:
    """`trap-companion run` as systemd starts it (after ``prefix``, a command that runs it,
    if given), then ``stop`` (SIGTERM to the process by default): its READY=1 status and its
    log. It must exit 0."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.settimeout(120)  # a hang guard: READY=1 took up to 12 s at a Pi Zero 2 W's pace
    env = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock")}
    proc = subprocess.Popen(
        [*prefix, sys.executable, "-m", "companion", "run", "--config", str(config)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready = ""
        while "READY=1" not in ready:
            try:
                ready = sock.recv(4096).decode()
            except TimeoutError:
                proc.kill()
                pytest.fail(f"no READY=1: {proc.communicate()[1]}")
        if stop is None:
            proc.send_signal(signal.SIGTERM)
        else:
            stop(proc)
        assert proc.wait(timeout=30) == 0  # it stops in ms; 30 s only catches a hang
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()
        (tmp_path / "notify.sock").unlink()  # free for the next start
    return ready, proc.stderr.read()


# --- the card registry -------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "message"), BAD_REGISTRIES)
def test_cards_list_on_a_damaged_registry_names_it_and_exits_65(tmp_path, text, message):
    config = box_config(tmp_path)
    (tmp_path / "state" / "cards.toml").write_text(text)
    proc = _command(config, "cards", "list")
    assert proc.returncode == 65, proc.stderr
    assert message in proc.stderr
    assert "cards.toml" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "state" / "cards.toml").read_text() == text  # a shell command keeps it


@pytest.mark.parametrize(("text", "message"), BAD_REGISTRIES[:2])
def test_the_daemon_sets_a_damaged_registry_aside_and_starts(tmp_path, text, message):
    config = box_config(tmp_path)
    (tmp_path / "state" / "cards.toml").write_text(text)
    ready, log = run_until_ready(tmp_path, config)
    assert "READY=1" in ready
    assert message in log and "starting with no enrolled cards" in log
    assert "Traceback" not in log
    aside = list((tmp_path / "state").glob("cards.toml.unreadable-*"))
    assert [p.read_text() for p in aside] == [text]


def test_replay_on_a_damaged_registry_says_so_on_screen(tmp_path):
    config = box_config(tmp_path)
    (tmp_path / "state" / "cards.toml").write_text("cards = 5\n")
    proc = _command(config, "replay", "-", stdin="wait 0\n")
    assert proc.returncode == 0, proc.stderr
    assert "Card list unreadable" in json.loads(proc.stdout)["screen"]


def test_two_damaged_registries_in_the_same_second_are_both_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(time, "strftime", lambda fmt, *args: "20261122T221500")
    path = tmp_path / "cards.toml"
    for text in ("cards = 5\n", "cards = [1,2]\n", "[not toml\n"):
        path.write_text(text)
        registry, problem = Registry.open_or_set_aside(path)
        assert registry.cards == {} and "moved to" in problem
    aside = sorted(tmp_path.glob("cards.toml.unreadable-*"))
    assert sorted(p.read_text() for p in aside) == ["[not toml\n", "cards = 5\n", "cards = [1,2]\n"]


def test_the_registry_is_written_with_the_journals_mode(tmp_path):
    run_script("game dice\npress green\n", state_dir=tmp_path / "state")
    Registry(tmp_path / "state" / "cards.toml").enrol(Card("0102", "dice", "x", "y"))
    modes = {
        name: stat.S_IMODE((tmp_path / "state" / name).stat().st_mode)
        for name in ("journal.jsonl", "cards.toml")
    }
    assert modes["cards.toml"] == modes["journal.jsonl"] == 0o640 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --- the journal -------------------------------------------------------------------------------

PLAYED = "game dice die=d4\ndice 3\npress green\ndice 1\npress green\n"
DAMAGED_LINES = [
    '{"v":1,"seq":99,"kind":"game","game":"dice","options":5}',
    '{"v":1,"seq":99,"kind":"game","game":"dice","at":"soon"}',
    "[" * 200_000,
]


def _played_journal(tmp_path: Path) -> Path:
    """A journal of a dice game with two rolls, written by the box itself."""
    config = box_config(tmp_path)
    proc = _command(config, "replay", "-", stdin=PLAYED)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "state" / "journal.jsonl"


@pytest.mark.parametrize("bad", DAMAGED_LINES, ids=["options-5", "at-soon", "nested"])
def test_the_daemon_starts_on_a_damaged_journal_and_keeps_the_game(tmp_path, bad):
    journal = _played_journal(tmp_path)
    good = journal.read_text()
    journal.write_text(good + bad + "\n" + '{"v":1,"seq":9,"kind":"undo"}\n')
    ready, log = run_until_ready(tmp_path, tmp_path / "config.toml")
    assert ready.startswith("READY=1") or "READY=1" in ready
    assert "STATUS=Dice;" in ready  # the game in play came back, not the game menu
    assert "kept 3 of its 5 lines" in log and "Traceback" not in log
    assert journal.read_text().startswith(good)
    (aside,) = (tmp_path / "state").glob("journal.jsonl.unreadable-*")
    assert aside.read_text() == good + bad + "\n" + '{"v":1,"seq":9,"kind":"undo"}\n'


def test_replay_on_a_journal_damaged_in_the_middle_says_how_much_was_kept(tmp_path):
    journal = _played_journal(tmp_path)
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join([*lines[:2], "{garbage\n", *lines[2:]]))
    proc = _command(tmp_path / "config.toml", "replay", "-", stdin="wait 0\npress green\n")
    assert proc.returncode == 0, proc.stderr
    first, second = (json.loads(line) for line in proc.stdout.splitlines())
    assert first["game"] == "dice"
    assert first["state"]["history"] == [[3]]  # the roll before the damage; not the one after
    assert first["screen"][1:3] == ["Saved game damaged", "kept 2/4 lines"]
    assert len(second["state"]["history"]) == 2  # and play goes on


def test_a_step_the_rules_refuse_keeps_the_game_up_to_it(tmp_path):
    journal = _played_journal(tmp_path)
    lines = journal.read_text().splitlines(keepends=True)
    assert '"rolls":[3]' in lines[1]
    lines[1] = lines[1].replace('"rolls":[3]', '"rolls":[9]')  # no face 9 on a d4
    journal.write_text("".join(lines))
    proc = _command(tmp_path / "config.toml", "replay", "-", stdin="wait 0\n")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["game"] == "dice" and out["state"]["die"] == "d4"
    assert out["state"]["history"] == []  # up to the refused roll: the game's start
    assert out["screen"][1:3] == ["Saved game damaged", "kept 1/3 lines"]


def test_a_game_that_cannot_be_set_up_goes_aside_and_the_box_offers_the_games(tmp_path):
    journal = _played_journal(tmp_path)
    journal.write_text(journal.read_text().replace('"game":"dice"', '"game":"chess"'))
    ready, log = run_until_ready(tmp_path, tmp_path / "config.toml")
    assert "STATUS=menu;" in ready
    assert "unknown game 'chess'" in log and "Traceback" not in log
    assert journal.read_text() == ""
