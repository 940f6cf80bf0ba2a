"""systemd/install.sh and uninstall.sh into a temporary root, as CI runs them.

Every command that would change the machine (apt-get, systemctl, useradd, pip, ...) is replaced
by a stub on PATH that records the call and fails, so a script that reached for the real system
would both fail and leave a trace.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from companion.pi import paths

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ROOT / "systemd" / "install.sh"
UNINSTALL = ROOT / "systemd" / "uninstall.sh"
FORBIDDEN = (
    "apt-get", "apt", "dpkg", "systemctl", "useradd", "groupadd", "usermod", "userdel",
    "chown", "pip", "pip3", "python3", "python", "sudo", "trap-companion", "raspi-config",
)  # fmt: skip


@pytest.fixture
def stubs(tmp_path: Path) -> Path:
    """A directory of commands that must not run; each logs its call to calls.log."""
    directory = tmp_path / "stubs"
    directory.mkdir()
    for name in FORBIDDEN:
        stub = directory / name
        stub.write_text(f'#!/bin/sh\necho "{name} $*" >> "{tmp_path}/calls.log"\nexit 97\n')
        stub.chmod(0o755)
    return directory


def run(script: Path, stubs: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        "PATH": f"{stubs}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(stubs.parent),
        "LANG": "C.UTF-8",
        **env,
    }
    return subprocess.run(
        ["bash", str(script), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        cwd=stubs.parent,
    )


def calls(stubs: Path) -> str:
    log = stubs.parent / "calls.log"
    return log.read_text() if log.exists() else ""


def under(root: Path, path: Path | str) -> Path:
    return root / str(path).lstrip("/")


def test_install_into_a_temporary_root_lays_out_every_file(tmp_path: Path, stubs: Path) -> None:
    root = tmp_path / "root"
    result = run(INSTALL, stubs, "--root", str(root))
    assert result.returncode == 0, result.stderr
    assert calls(stubs) == ""

    unit = under(root, "/etc/systemd/system/trap-companion.service")
    assert unit.read_bytes() == (ROOT / "systemd" / "trap-companion.service").read_bytes()
    config = under(root, paths.CONFIG_FILE).read_text()
    example = (ROOT / "companion" / "data" / "config.example.toml").read_text()
    assert config == example  # pin_factory is already "auto"; a Pi 3/4 port
    assert 'pin_factory = "auto"' in config
    assert under(root, paths.STATE_DIR).is_dir()
    assert list(under(root, paths.STATE_DIR).iterdir()) == []
    share = under(root, paths.VENV_DIR / "share" / "trap-companion" / "firmware")
    assert sorted(p.name for p in share.iterdir()) == sorted(
        p.name for p in (ROOT / "firmware").iterdir() if p.suffix in (".txt", ".toml")
    )
    assert under(root, "/opt/trap-companion/docs/raspberry-pi.md").is_file()
    # A box installed from a bundle has no clone: its uninstaller is kept where it outlives the
    # program (test_the_box_keeps_its_uninstaller_where_it_outlives_the_program).
    assert under(root, "/usr/local/lib/trap-companion/uninstall.sh").is_file()
    assert under(root, "/usr/local/lib/trap-companion/common.sh").is_file()
    link = under(root, "/usr/local/bin/trap-companion")
    assert os.readlink(link) == f"{paths.VENV_DIR}/bin/trap-companion"
    # Nothing outside the temporary root was needed, and nothing was started.
    assert "Nothing was started" in result.stdout


def test_destdir_works_like_root(tmp_path: Path, stubs: Path) -> None:
    root = tmp_path / "dest"
    result = run(INSTALL, stubs, DESTDIR=str(root))
    assert result.returncode == 0, result.stderr
    assert calls(stubs) == ""
    assert under(root, paths.CONFIG_FILE).is_file()


def reader_port(root: Path) -> str:
    config = under(root, paths.CONFIG_FILE).read_text()
    lines = config.split("[reader]")[1].splitlines()
    return next(line for line in lines if line.startswith("port = ")).split('"')[1]


def test_a_pi5_gets_its_reader_port(tmp_path: Path, stubs: Path) -> None:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    root = tmp_path / "root"
    result = run(INSTALL, stubs, "--root", str(root), MODEL_FILE=str(model))
    assert result.returncode == 0, result.stderr
    assert reader_port(root) == "/dev/ttyAMA0"
    assert f"card reader on /dev/ttyAMA0: {model} says Raspberry Pi 5 Model B" in result.stdout


def test_a_board_without_a_device_tree_installs_quietly(tmp_path: Path, stubs: Path) -> None:
    root = tmp_path / "root"
    result = run(INSTALL, stubs, "--root", str(root), MODEL_FILE=str(tmp_path / "absent"))
    assert result.returncode == 0
    assert result.stderr == ""
    assert reader_port(root) == "/dev/serial0"
    assert f"no {tmp_path / 'absent'}" in result.stdout and "--model pi5" in result.stdout


def test_root_reads_the_model_under_the_root_not_the_build_hosts(
    tmp_path: Path, stubs: Path
) -> None:
    root = tmp_path / "root"
    model = under(root, "/proc/device-tree/model")
    model.parent.mkdir(parents=True)
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    result = run(INSTALL, stubs, "--root", str(root))
    assert result.returncode == 0, result.stderr
    assert reader_port(root) == "/dev/ttyAMA0"
    assert f"{root}/proc/device-tree/model says Raspberry Pi 5" in result.stdout


def test_root_without_a_model_says_which_port_it_chose(tmp_path: Path, stubs: Path) -> None:
    root = tmp_path / "root"
    result = run(INSTALL, stubs, "--root", str(root))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert reader_port(root) == "/dev/serial0"
    assert f"no {root}/proc/device-tree/model" in result.stdout


@pytest.mark.parametrize(
    ("model", "port"),
    [("pi5", "/dev/ttyAMA0"), ("pi4", "/dev/serial0"), ("zero2w", "/dev/serial0")],
)
def test_the_model_can_be_given(tmp_path: Path, stubs: Path, model: str, port: str) -> None:
    root = tmp_path / "root"
    other = tmp_path / "model"  # a model file that says otherwise: --model wins
    other.write_bytes(b"Raspberry Pi 4 Model B\0" if model == "pi5" else b"Raspberry Pi 5\0")
    result = run(INSTALL, stubs, "--root", str(root), "--model", model, MODEL_FILE=str(other))
    assert result.returncode == 0, result.stderr
    assert reader_port(root) == port
    assert f"card reader on {port}: --model {model}" in result.stdout


def test_an_unknown_model_is_refused(tmp_path: Path, stubs: Path) -> None:
    result = run(INSTALL, stubs, "--root", str(tmp_path / "root"), "--model", "pi9")
    assert result.returncode == 2
    assert "unknown model 'pi9'" in result.stderr and "pi5" in result.stderr
    assert not (tmp_path / "root" / "etc").exists()


def test_a_second_install_keeps_the_owners_config_cards_and_journal(
    tmp_path: Path, stubs: Path
) -> None:
    root = tmp_path / "root"
    assert run(INSTALL, stubs, "--root", str(root)).returncode == 0
    config = under(root, paths.CONFIG_FILE)
    edited = config.read_text().replace("up = 5", "up = 12")
    config.write_text(edited)
    state = under(root, paths.STATE_DIR)
    (state / "cards.toml").write_text("[cards.skull]\nuid = '008EC793'\n")
    (state / "journal.jsonl").write_text('{"game": "dice"}\n')

    result = run(INSTALL, stubs, "--root", str(root))
    assert result.returncode == 0, result.stderr
    assert "kept the existing /etc/trap-companion/config.toml" in result.stdout
    assert config.read_text() == edited
    assert (state / "cards.toml").read_text() == "[cards.skull]\nuid = '008EC793'\n"
    assert (state / "journal.jsonl").read_text() == '{"game": "dice"}\n'
    assert calls(stubs) == ""


def test_uninstall_removes_the_program_and_keeps_the_data(tmp_path: Path, stubs: Path) -> None:
    root = tmp_path / "root"
    assert run(INSTALL, stubs, "--root", str(root)).returncode == 0
    (under(root, paths.STATE_DIR) / "cards.toml").write_text("x = 1\n")

    result = run(UNINSTALL, stubs, "--root", str(root))
    assert result.returncode == 0, result.stderr
    assert calls(stubs) == ""
    assert not under(root, "/etc/systemd/system/trap-companion.service").exists()
    assert not under(root, paths.INSTALL_DIR).exists()
    assert not under(root, "/usr/local/bin/trap-companion").is_symlink()
    assert under(root, paths.CONFIG_FILE).is_file()
    assert (under(root, paths.STATE_DIR) / "cards.toml").read_text() == "x = 1\n"
    assert "trap-companion-uninstall --purge" in result.stdout


def test_the_box_keeps_its_uninstaller_where_it_outlives_the_program(
    tmp_path: Path, stubs: Path
) -> None:
    """A box from a bundle has no clone and no make: the uninstaller lies outside the program's
    folder, and an uninstall that keeps the data names the command that still works there
    (issue 45 point 3)."""
    root = tmp_path / "root"
    assert run(INSTALL, stubs, "--root", str(root)).returncode == 0
    link = under(root, "/usr/local/sbin/trap-companion-uninstall")
    assert os.readlink(link) == "/usr/local/lib/trap-companion/uninstall.sh"
    kept = under(root, "/usr/local/lib/trap-companion/uninstall.sh")
    assert os.access(kept, os.X_OK) and (kept.parent / "common.sh").is_file()

    result = run(kept, stubs, "--root", str(root))
    assert result.returncode == 0, result.stderr
    assert not under(root, paths.INSTALL_DIR).exists()
    assert "'sudo trap-companion-uninstall --purge' removes them" in result.stdout
    assert "make" not in result.stdout
    assert kept.is_file() and link.is_symlink()  # it outlived the program

    result = run(kept, stubs, "--root", str(root), "--purge")
    assert result.returncode == 0, result.stderr
    assert not under(root, paths.CONFIG_DIR).exists()
    assert not under(root, paths.STATE_DIR).exists()
    assert not kept.parent.exists() and not link.is_symlink()  # the purge took it too
    assert calls(stubs) == ""


def test_uninstall_with_purge_removes_the_data_too(tmp_path: Path, stubs: Path) -> None:
    root = tmp_path / "root"
    assert run(INSTALL, stubs, "--root", str(root)).returncode == 0
    result = run(UNINSTALL, stubs, "--root", str(root), PURGE="1")
    assert result.returncode == 0, result.stderr
    assert calls(stubs) == ""
    assert not under(root, paths.CONFIG_DIR).exists()
    assert not under(root, paths.STATE_DIR).exists()
    assert under(root, "/etc").is_dir()  # only our directories went
    assert "user" not in result.stdout.split("removed /etc/trap-companion")[1].split("\n")[0]
    assert "the user trap-companion is left alone under --root" in result.stdout


def test_a_real_install_refuses_to_run_without_root(tmp_path: Path, stubs: Path) -> None:
    # `id` is the one stub that changes an answer: it claims an ordinary user.
    fake_id = stubs / "id"
    fake_id.write_text('#!/bin/sh\n[ "$1" = "-u" ] && echo 1000\n')
    fake_id.chmod(0o755)
    result = run(INSTALL, stubs)
    assert result.returncode == 1
    assert "run it as root: sudo make install" in result.stderr
    assert calls(stubs) == ""


def test_the_stubs_would_catch_a_call_to_systemctl(tmp_path: Path, stubs: Path) -> None:
    """The guard itself works: a script that calls systemctl is caught."""
    script = tmp_path / "bad.sh"
    script.write_text("systemctl daemon-reload\n")
    result = run(script, stubs)
    assert result.returncode == 97
    assert calls(stubs) == "systemctl daemon-reload\n"


def test_unknown_arguments_are_refused(tmp_path: Path, stubs: Path) -> None:
    result = run(INSTALL, stubs, "--rooot", str(tmp_path))
    assert result.returncode == 2
    assert "unknown argument: --rooot" in result.stderr
