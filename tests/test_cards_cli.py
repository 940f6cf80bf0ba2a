"""`trap-companion cards`: enrol, list, forget from a shell, with clear errors."""

import subprocess
import sys

import pytest

from companion.games import registry as games


def _cards(tmp_path, *args):
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{tmp_path}/state"\n')
    return subprocess.run(
        [sys.executable, "-m", "companion", "cards", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard: 0.15 s here, 2.3-4 s a command under QEMU at load 11
    )


@pytest.fixture
def some_card():
    for name in games.available():
        for kind in games.get(name).catalog():
            return name, kind
    pytest.fail("no game has a card catalog")


def test_enrol_list_forget(tmp_path, some_card):
    game, kind = some_card
    values = [f"--value={f}=2" for f in kind.fields]
    added = _cards(tmp_path, "enrol", "8e:c7:93", game, kind.id, "--name", "My card", *values)
    assert added.returncode == 0, added.stderr
    assert "00008EC793" in added.stdout
    listed = _cards(tmp_path, "list")
    assert "00008EC793" in listed.stdout and "My card" in listed.stdout
    gone = _cards(tmp_path, "forget", "008EC793")
    assert gone.returncode == 0
    assert "no cards enrolled" in _cards(tmp_path, "list").stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["enrol", "XYZ", "dice", "x"], "not hexadecimal"),
        (["enrol", "0102", "chess", "x"], "unknown game 'chess'"),
        (["enrol", "0102", "dice", "x"], "dice has no card 'x'"),
        (["forget", "0102"], "is not enrolled"),
    ],
)
def test_bad_input_exits_2_with_a_message(tmp_path, args, message):
    proc = _cards(tmp_path, *args)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_a_broken_registry_file_is_a_data_error(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "cards.toml").write_text("[cards.nothex]\ngame = 1\n")
    proc = _cards(tmp_path, "list")
    assert proc.returncode == 65
    assert "cards.toml" in proc.stderr and "UID" in proc.stderr


def test_cards_take_the_simulators_state_dir_choice(tmp_path, monkeypatch, capsys):
    """What `sim` enrols, `cards --sim` (or `--state-dir` the same dir) lists, and back."""
    from companion.cli import main
    from companion.core.config import Config
    from companion.core.registry import Card, Registry

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr("companion.core.config.DEFAULT_PATH", tmp_path / "no-config.toml")
    sim_dir = Config.sim_state_dir()
    assert sim_dir == tmp_path / "xdg" / "trap-companion" / "sim"
    Registry(sim_dir / "cards.toml").enrol(Card("04A1B2C3", "trap-attack", "damage-2", "Zap"))
    capsys.readouterr()
    assert main(["cards", "list", "--sim"]) == 0
    assert "04A1B2C3" in capsys.readouterr().out
    assert main(["cards", "list", "--state-dir", str(sim_dir)]) == 0
    assert "04A1B2C3" in capsys.readouterr().out
    other = tmp_path / "other"
    assert (
        main(["cards", "enrol", "8EC793", "trap-attack", "damage-1", "--state-dir", str(other)])
        == 0
    )
    assert (other / "cards.toml").exists()
    assert main(["cards", "list"]) == 0  # the daemon's cards: none here, and where to look
    out = capsys.readouterr().out
    assert "no cards enrolled yet" in out and "cards list --sim" in out


@pytest.mark.parametrize("value", ["0", "500", "-1"])
def test_a_value_out_of_the_kinds_range_is_refused_and_nothing_is_written(tmp_path, value):
    proc = _cards(
        tmp_path, "enrol", "04A1B2C3", "deathtrap-dungeon", "goblin", f"--value=value={value}"
    )
    assert proc.returncode == 2
    assert f"--value 'value={value}': Goblin's value is 1..99; nothing written" in proc.stderr
    assert "no cards enrolled" in _cards(tmp_path, "list").stdout


def test_the_catalog_shows_each_values_range(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "cards", "catalog", "deathtrap-dungeon"],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard: 0.15 s here, 2.3-4 s a command under QEMU at load 11
    )
    assert "Goblin (asks value 1..99)" in proc.stdout


def test_an_enrolled_tag_changes_only_with_force_and_says_what_it_was(tmp_path):
    first = _cards(tmp_path, "enrol", "04A1B2C3", "trap-attack", "damage-1")
    assert first.returncode == 0, first.stderr
    again = _cards(tmp_path, "enrol", "04A1B2C3", "trap-attack", "damage-1")
    assert again.returncode == 0, "the same card again is no change"
    other = _cards(tmp_path, "enrol", "04A1B2C3", "trap-attack", "damage-2")
    assert other.returncode == 2
    assert "04A1B2C3 is already enrolled as Damage 1 (trap-attack damage-1)" in other.stderr
    assert "--force" in other.stderr
    assert "damage-1" in _cards(tmp_path, "list").stdout
    forced = _cards(tmp_path, "enrol", "04A1B2C3", "trap-attack", "damage-2", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "(was Damage 1 (trap-attack damage-1))" in forced.stdout
    listed = _cards(tmp_path, "list").stdout
    assert "damage-2" in listed and "damage-1" not in listed


@pytest.mark.parametrize("verb", ["enrol", "forget"])
def test_the_help_describes_game_and_uid(tmp_path, verb):
    proc = _cards(tmp_path, verb, "--help")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    for arg in ("uid", "game") if verb == "enrol" else ("uid",):
        described = [line for line in lines if line.strip().startswith(arg + " ")]
        assert described and len(described[0].split()) > 1, f"{arg} is not described"


@pytest.mark.parametrize("command", [["sim"], ["cards", "list"], ["cards", "enrol"]])
def test_help_names_the_state_dir_this_environment_has(command, tmp_path, monkeypatch, capsys):
    """Issue 42, point 17: the help named ~/.local/state where XDG_STATE_HOME says otherwise."""
    from companion.cli import main

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    shown = " ".join(capsys.readouterr().out.split()).replace("- ", "-")
    assert str(tmp_path / "xdg" / "trap-companion") in shown
    assert ".local/state" not in shown


def test_the_readme_says_when_finished_games_move_to_history() -> None:
    """Issue 42, point 17: README said finished games move to history/; they stay in the
    journal until it has grown past its rotation size and a new game starts."""
    from pathlib import Path

    from companion.core.journal import ROTATE_BYTES

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `journal.jsonl`"))
    assert f"{ROTATE_BYTES // 1024} KiB" in row and "history/" in row
