"""`trap-companion phones enable|disable|status`, the installer's drop-in and what systemd makes
of the unit with it: a network only for phones, only to loopback and the private ranges."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from companion.cli import main as cli
from companion.core.config import load
from companion.errors import ConfigError
from companion.pi import paths, phones
from tests.test_install import INSTALL, UNINSTALL, run, under
from tests.test_install import stubs as stubs
from tests.test_systemd_unit import UNIT, runnable_copy, systemd_analyze, verify

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = (ROOT / "companion" / "data" / "config.example.toml").read_text()


def installed_tree(tmp_path: Path, config: str = EXAMPLE) -> Path:
    root = tmp_path / "root"
    unit = under(root, "/etc/systemd/system/trap-companion.service")
    unit.parent.mkdir(parents=True)
    unit.write_text(UNIT.read_text())
    cfg = under(root, paths.CONFIG_FILE)
    cfg.parent.mkdir(parents=True)
    cfg.write_text(config)
    cfg.chmod(0o640)
    return root


# --- the config edit --------------------------------------------------------------------


def test_enabling_changes_one_line_and_keeps_the_comments() -> None:
    on = phones.with_enabled(EXAMPLE, True)
    assert on == EXAMPLE.replace("enabled = false", "enabled = true")
    assert phones.with_enabled(on, False) == EXAMPLE


def test_a_config_without_the_section_gets_it() -> None:
    text = '[dice]\nsource = "table"'
    on = phones.with_enabled(text, True)
    assert on == '[dice]\nsource = "table"\n\n[phones]\nenabled = true\n'
    assert phones.with_enabled("[phones]\nport = 9000\n", True) == (
        "[phones]\nenabled = true\nport = 9000\n"
    )
    assert phones.with_enabled("", True) == "\n[phones]\nenabled = true\n"


def test_an_enabled_key_in_another_section_is_not_touched() -> None:
    text = "[phones]\nport = 9000\n[led]\nbrightness = 1.0\n"
    assert phones.with_enabled(text, True).startswith("[phones]\nenabled = true\nport = 9000")


def test_a_broken_config_is_named_and_left_alone(tmp_path: Path) -> None:
    root = installed_tree(tmp_path, "[phones]\nport = 80\n")
    with pytest.raises(ConfigError, match=r"phones\.port = 80"):
        phones.set_config(under(root, paths.CONFIG_FILE), True)
    assert under(root, paths.CONFIG_FILE).read_text() == "[phones]\nport = 80\n"


# --- the command --------------------------------------------------------------------------


def test_enable_then_disable_under_a_root(tmp_path: Path, capsys) -> None:
    root = installed_tree(tmp_path)
    cfg = under(root, paths.CONFIG_FILE)
    dropin = phones.dropin_path(root)
    assert cli(["phones", "enable", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "plain HTTP" in out and ":8080/" in out
    assert load(cfg).phones.enabled
    assert cfg.stat().st_mode & 0o777 == 0o640  # the owner's mode kept
    assert dropin.read_text() == (ROOT / "companion" / "data" / "systemd-phones.conf").read_text()
    assert cli(["phones", "status", "--root", str(root)]) == 0
    assert "present" in capsys.readouterr().out
    assert cli(["phones", "enable", "--root", str(root)]) == 0  # again: nothing changes
    assert "(already)" in capsys.readouterr().out
    assert cli(["phones", "disable", "--root", str(root)]) == 0
    assert not load(cfg).phones.enabled and not dropin.exists()
    assert cfg.read_text() == EXAMPLE


def test_status_says_when_config_and_drop_in_disagree(tmp_path: Path, capsys) -> None:
    root = installed_tree(tmp_path, "[phones]\nenabled = true\n")
    assert cli(["phones", "status", "--root", str(root)]) == 1
    assert "phones enable" in capsys.readouterr().out


def test_a_tree_without_the_box_is_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert cli(["phones", "enable", "--root", str(tmp_path / "empty")]) == 69
    assert "not installed" in capsys.readouterr().err
    assert not list((tmp_path / "empty").rglob("*"))


def test_the_real_system_needs_root(monkeypatch, capsys) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    assert cli(["phones", "enable"]) == 77
    assert "sudo trap-companion phones enable" in capsys.readouterr().err


# --- the installer --------------------------------------------------------------------------


def test_the_installer_writes_the_drop_in_only_when_phones_are_on(
    tmp_path: Path,
    stubs: Path,
) -> None:
    root = tmp_path / "root"
    assert run(INSTALL, stubs, "--root", str(root)).returncode == 0
    dropin = phones.dropin_path(root)
    assert not dropin.exists()
    cfg = under(root, paths.CONFIG_FILE)
    cfg.write_text(cfg.read_text().replace("enabled = false", "enabled = true  # phones"))
    result = run(INSTALL, stubs, "--root", str(root))
    assert result.returncode == 0, result.stderr
    assert "phones.conf" in result.stdout and dropin.read_text() == phones.dropin_text()
    cfg.write_text(cfg.read_text().replace("enabled = true", "enabled = false"))
    result = run(INSTALL, stubs, "--root", str(root))
    assert not dropin.exists() and "removed" in result.stdout
    cfg.write_text(cfg.read_text().replace("enabled = false", "enabled = true"))
    assert run(INSTALL, stubs, "--root", str(root)).returncode == 0
    assert run(UNINSTALL, stubs, "--root", str(root)).returncode == 0
    assert not dropin.exists() and not dropin.parent.exists()


# --- systemd's view ----------------------------------------------------------------------


PHONES_UNIT = ROOT / "systemd" / "trap-companion-phones.service"


def with_dropin(tmp_path: Path) -> Path:
    """The game's unit with the phones' drop-in, beside the phones' own unit (runnable here)."""
    unit = runnable_copy(tmp_path)
    d = unit.parent / "trap-companion.service.d"
    d.mkdir()
    (d / "phones.conf").write_text(phones.dropin_text())
    python = f"{paths.VENV_DIR}/bin/python"
    text = PHONES_UNIT.read_text()
    assert python in text
    (unit.parent / PHONES_UNIT.name).write_text(
        text.replace(python, str(tmp_path / "trap-companion"))
    )
    return unit


def exposure(unit: Path, name: str = "trap-companion") -> float:
    result = subprocess.run(
        [systemd_analyze(), "security", "--offline=yes", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "SYSTEMD_LOG_COLOR": "0",
            "SYSTEMD_PAGER": "",
            "SYSTEMD_COLORS": "0",
            "PATH": "/usr/bin:/bin",
        },
    )
    found = re.search(
        rf"Overall exposure level for {re.escape(name)}\.service: (\d+\.\d)", result.stdout
    )
    assert found, result.stdout + result.stderr
    return float(found.group(1))


def test_systemd_accepts_the_unit_with_the_drop_in(tmp_path: Path) -> None:
    result = verify(with_dropin(tmp_path))
    assert result.stderr == "" and result.returncode == 0


def test_the_drop_in_keeps_the_game_s_unit_without_a_network(tmp_path: Path) -> None:
    """Issue 33 point 1: with phones on, the game's unit keeps PrivateNetwork=yes and AF_UNIX
    only (its exposure is the phones-off figure); the drop-in only wants the phones' unit and
    names the UNIX socket between them."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base = exposure(runnable_copy(tmp_path / "a"))
    with_phones = exposure(with_dropin(tmp_path / "b"))
    assert base == with_phones <= 0.6
    text = phones.dropin_text()
    assert "PrivateNetwork" not in text and "RestrictAddressFamilies" not in text
    assert "IPAddress" not in text
    assert "Wants=trap-companion-phones.service" in text
    assert "TRAP_COMPANION_PHONES_LINK=/run/trap-companion/phones.sock" in text
    assert "RuntimeDirectory=trap-companion\n" in UNIT.read_text()


def test_the_phones_unit_opens_only_what_phones_need(tmp_path: Path) -> None:
    unit = with_dropin(tmp_path)
    phones_unit = unit.parent / PHONES_UNIT.name
    result = verify(phones_unit)
    assert result.stderr == "" and result.returncode == 0
    assert exposure(phones_unit, "trap-companion-phones") <= 2.0  # docs/raspberry-pi.md
    text = PHONES_UNIT.read_text()
    assert "IPAddressDeny=any" in text and "PrivateNetwork" not in text
    assert "BindsTo=trap-companion.service" in text and "CPUWeight=20" in text
    assert "--link /run/trap-companion/phones.sock" in text
    allow = re.search(r"^IPAddressAllow=(.*)$", text, re.M).group(1).split()
    assert "any" not in allow and "0.0.0.0/0" not in allow
    assert set(allow) == {
        "localhost",
        "link-local",
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "fc00::/7",
    }


def test_the_unit_alone_has_no_network() -> None:
    text = UNIT.read_text()
    assert "PrivateNetwork=yes" in text and "RestrictAddressFamilies=AF_UNIX\n" in text
