"""A state directory that cannot be one (a file, inside a file, /proc, read-only) stops every
command with one line naming the path and its problem: exit 78 when the config names it, 73
when --state-dir or a default does. `config check` says so too, and makes nothing."""

import os

import pytest

from companion.cli import main
from companion.core import statedir


@pytest.fixture
def bad_dirs(tmp_path):
    (tmp_path / "file").write_text("not a dir")
    return {
        "a regular file": (str(tmp_path / "file"), "is a file, not a directory"),
        "inside a file": (str(tmp_path / "file" / "state"), "lies inside"),
        "/proc": ("/proc/trap-companion-nope", "cannot be created"),
        "unwritable": ("/proc", "is not writable"),  # nothing can be made there, even by root
    }


def _run(argv, capsys):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.err.strip().splitlines(), captured.out


def _config(tmp_path, state_dir):
    path = tmp_path / "config.toml"
    path.write_text(f'[hardware]\npin_factory = "mock"\n[state]\ndir = "{state_dir}"\n')
    return str(path)


COMMANDS = [
    ["config", "check", "{config}"],
    ["run", "--config", "{config}"],
    ["replay", "--config", "{config}", "-"],
    ["cards", "list", "--config", "{config}"],
    ["cards", "enrol", "04A1B2C3", "trapwords", "curse-echo", "--config", "{config}"],
    ["cards", "forget", "04A1B2C3", "--config", "{config}"],
    ["check", "--non-interactive", "--config", "{config}"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("kind", ["a regular file", "inside a file", "/proc", "unwritable"])
def test_a_bad_state_dir_in_the_config_is_named_with_exit_78(
    tmp_path, capsys, bad_dirs, command, kind
):
    path, problem = bad_dirs[kind]
    config = _config(tmp_path, path)
    argv = [word.format(config=config) for word in command]
    if kind == "unwritable" and command[:2] in (["cards", "list"], ["check", "--non-interactive"]):
        pytest.skip("listing and checking only read the cards")
    status, err, _ = _run(argv, capsys)
    assert status == 78
    assert len(err) == 1, err
    assert err[0].startswith(f"trap-companion: {config}:4: state.dir = '{path}': ")
    assert problem in err[0]


@pytest.mark.parametrize(
    "command",
    [["cards", "list"], ["cards", "enrol", "04A1B2C3", "trap-attack", "damage-2"]],
    ids=["list", "enrol"],
)
@pytest.mark.parametrize("kind", ["a regular file", "inside a file", "/proc"])
def test_a_bad_state_dir_argument_is_named_with_exit_73(capsys, bad_dirs, command, kind):
    path, problem = bad_dirs[kind]
    status, err, _ = _run([*command, "--state-dir", path], capsys)
    assert status == 73
    assert len(err) == 1, err
    assert err[0].startswith(f"trap-companion: --state-dir {path}: the state directory ")
    assert problem in err[0]


def test_config_check_makes_nothing(tmp_path, capsys):
    state = tmp_path / "not" / "yet"
    config = _config(tmp_path, state)
    status, _, out = _run(["config", "check", config], capsys)
    assert status == 0
    assert not (tmp_path / "not").exists()
    assert f"state directory: {state}" in out


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_dir_is_not_writable(tmp_path):
    tmp_path.chmod(0o500)
    try:
        assert "is not writable" in statedir.problem(tmp_path)
        assert "cannot be created" in statedir.problem(tmp_path / "sub")
    finally:
        tmp_path.chmod(0o700)


def test_a_good_dir_is_made_and_left_clean(tmp_path):
    target = tmp_path / "a" / "b"
    assert statedir.problem(target) is None
    assert target.is_dir() and list(target.iterdir()) == []
