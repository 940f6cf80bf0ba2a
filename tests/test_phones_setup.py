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


def with_dropin(tmp_path: Path) -> Path:
    unit = runnable_copy(tmp_path)
    d = unit.parent / "trap-companion.service.d"
    d.mkdir()
    (d / "phones.conf").write_text(phones.dropin_text())
    return unit


def exposure(unit: Path) -> float:
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
        r"Overall exposure level for trap-companion\.service: (\d+\.\d)", result.stdout
    )
    assert found, result.stdout + result.stderr
    return float(found.group(1))


def test_systemd_accepts_the_unit_with_the_drop_in(tmp_path: Path) -> None:
    result = verify(with_dropin(tmp_path))
    assert result.stderr == "" and result.returncode == 0


def test_the_drop_in_opens_only_what_phones_need(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base = exposure(runnable_copy(tmp_path / "a"))
    opened = exposure(with_dropin(tmp_path / "b"))
    assert base <= 0.6 < opened <= 1.5  # docs/raspberry-pi.md gives both figures
    text = phones.dropin_text()
    assert "IPAddressDeny=any" in text and "PrivateNetwork=no" in text
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
