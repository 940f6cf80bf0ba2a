"""Every command answers --help, and the top level lists them all."""

import subprocess
import sys

import pytest

from companion.cli import build_parser

COMMANDS = ["run", "sim", "replay", "cards", "config", "bench", "check", "firmware"]


def test_every_command_is_registered():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(COMMANDS) <= set(sub.choices)


@pytest.mark.parametrize(
    "args",
    [[c] for c in COMMANDS]
    + [["cards", "list"], ["cards", "enrol"], ["config", "check"], ["firmware", "apply"]],
)
def test_help_works_for(args, capsys):
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([*args, "--help"])
    assert done.value.code == 0
    assert "usage: trap-companion" in capsys.readouterr().out


def test_no_command_prints_help_and_exits_2():
    proc = subprocess.run(
        [sys.executable, "-m", "companion"], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2
    assert "replay" in proc.stdout


def test_config_example_prints_the_commented_example():
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "config", "example"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0
    assert "[reader]" in proc.stdout and "# " in proc.stdout


def test_a_command_named_builds_its_own_parser_alone():
    """`trap-companion run` (the daemon's start) does not import the other commands' modules
    (the simulator's displays, the firmware's tables); an unknown word still gets the list."""
    code = """
import sys
from companion import cli
sub = next(a for a in cli.build_parser(["-v", "run", "--config", "x"])._actions
           if a.dest == "command")
print(sorted(sub.choices))
print(sorted(m for m in sys.modules if m.startswith(("companion.commands.", "companion.sim"))))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["['run']", "['companion.commands._common', 'companion.commands.run']"]
    sub = next(a for a in build_parser(["runx"])._actions if a.dest == "command")
    assert set(COMMANDS) <= set(sub.choices)
