"""systemd/trap-companion.service: what the box needs, accepted by systemd, and locked down.

`systemd-analyze verify` exits 0 on an unknown key or a bad value and only warns, so any output on
standard error fails the test. It does not check that User= or the groups exist (systemd 252), so
no temporary root is needed. Where systemd-analyze is missing the systemd tests are skipped,
unless CI or TRAP_COMPANION_REQUIRE_SYSTEMD is set: then they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.pi import paths

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "trap-companion.service"
MAX_EXPOSURE = 2.5


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    """Sections -> (key, value) in order; repeated keys (DeviceAllow=) are all kept."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
            continue
        assert current is not None, f"setting outside a section: {line}"
        key, _, value = line.partition("=")
        current.append((key, value))
    return sections


UNIT_SECTIONS = parse_unit(UNIT.read_text(encoding="utf-8"))


def values(section: str, key: str) -> list[str]:
    return [v for k, v in UNIT_SECTIONS[section] if k == key]


def one(section: str, key: str) -> str:
    found = values(section, key)
    assert len(found) == 1, f"[{section}] {key}= appears {len(found)} times"
    return found[0]


def systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found:
        return found
    required = os.environ.get("TRAP_COMPANION_REQUIRE_SYSTEMD") or os.environ.get("CI")
    if required and required.lower() not in ("0", "false", "no"):
        pytest.fail("systemd-analyze is not installed, and CI requires the unit to be checked")
    pytest.skip("systemd-analyze is not installed here: the unit file was not checked by systemd")


def runnable_copy(tmp_path: Path, text: str | None = None) -> Path:
    """The unit with ExecStart pointing at a program that exists here."""
    program = tmp_path / "trap-companion"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    text = UNIT.read_text(encoding="utf-8") if text is None else text
    executable = f"{paths.VENV_DIR}/bin/trap-companion"
    assert executable in text
    unit = tmp_path / "unit" / "trap-companion.service"
    unit.parent.mkdir()
    unit.write_text(text.replace(executable, str(program)))
    return unit


def verify(unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [systemd_analyze(), "verify", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SYSTEMD_LOG_COLOR": "0", "SYSTEMD_PAGER": ""},
    )


def test_systemd_accepts_the_unit_without_a_single_warning(tmp_path: Path) -> None:
    result = verify(runnable_copy(tmp_path))
    assert result.stderr == ""
    assert result.returncode == 0


def test_the_verify_check_catches_a_misspelt_key(tmp_path: Path) -> None:
    text = UNIT.read_text(encoding="utf-8").replace("WatchdogSec=10", "WatchdogSecs=10")
    result = verify(runnable_copy(tmp_path, text))
    assert result.returncode == 0  # the reason the test looks at stderr, not the status
    assert "Unknown key 'WatchdogSecs'" in result.stderr


def test_exposure_is_at_most_2_5(tmp_path: Path) -> None:
    result = subprocess.run(
        [systemd_analyze(), "security", "--offline=yes", str(runnable_copy(tmp_path))],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SYSTEMD_LOG_COLOR": "0", "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0"},
    )
    match = re.search(
        r"Overall exposure level for trap-companion\.service: (\d+\.\d)", result.stdout
    )
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= MAX_EXPOSURE, result.stdout


def test_notify_watchdog_and_restart_policy() -> None:
    assert one("Service", "Type") == "notify"
    assert one("Service", "NotifyAccess") == "main"
    assert one("Service", "WatchdogSec") == "10"
    assert one("Service", "Restart") == "on-failure"
    assert one("Service", "RestartSec") == "2"
    # ConfigError's, StateDirError's and HardwareError's statuses
    assert one("Service", "RestartPreventExitStatus") == "78 73 69"
    # systemd 252 reads the start limit only from [Unit].
    assert int(one("Unit", "StartLimitIntervalSec")) > 0
    assert int(one("Unit", "StartLimitBurst")) > 1
    assert not values("Service", "StartLimitIntervalSec")


def test_config_error_status_matches_the_code() -> None:
    from companion.errors import ConfigError, HardwareError, StateDirError

    statuses = one("Service", "RestartPreventExitStatus").split()
    codes = (ConfigError, StateDirError, HardwareError)
    assert statuses == [str(error.exit_status) for error in codes]


def test_user_directories_and_command_match_the_installer_paths() -> None:
    assert one("Service", "User") == paths.SERVICE_USER
    assert one("Service", "SupplementaryGroups").split() == list(paths.DEVICE_GROUPS)
    assert one("Service", "StateDirectory") == paths.STATE_DIR.name
    assert one("Service", "WorkingDirectory") == str(paths.STATE_DIR)
    assert f"LG_WD={paths.STATE_DIR}" in values("Service", "Environment")
    assert one("Service", "ExecStart") == (
        f"{paths.VENV_DIR}/bin/trap-companion run --config {paths.CONFIG_FILE}"
    )
    assert one("Install", "WantedBy") == "multi-user.target"


def test_the_state_directory_is_the_only_writable_one() -> None:
    # ProtectSystem=strict exempts every *Directory= systemd manages: a ConfigurationDirectory=
    # made /etc/trap-companion writable inside the daemon's namespace (found by `make systest`).
    assert one("Service", "ProtectSystem") == "strict"
    for key in ("ConfigurationDirectory", "CacheDirectory", "LogsDirectory"):
        assert not values("Service", key), f"{key}= would be writable under ProtectSystem=strict"
    # One folder in /run (empty at each start): the phones' link socket (issue 33), nothing kept.
    assert values("Service", "RuntimeDirectory") == ["trap-companion"]
    assert one("Service", "RuntimeDirectoryMode") == "0750"
    # The owner's socket lies in it: root and the service's group only (issue 45).
    from companion.owner import protocol

    assert protocol.SOCKET.parent == Path("/run") / one("Service", "RuntimeDirectory")
    # The state dir as the docs say: the service writes, its group reads, no one else.
    assert one("Service", "StateDirectoryMode") == "0750"
    for key in ("ReadWritePaths", "BindPaths"):
        assert not values("Service", key)


def test_logs_go_to_the_journal_only() -> None:
    assert one("Service", "StandardOutput") == "journal"
    assert values("Service", "StandardError") in ([], ["journal"], ["inherit"])


def test_devices_are_limited_but_not_hidden() -> None:
    assert one("Service", "DevicePolicy") == "closed"
    allowed = {v.split()[0] for v in values("Service", "DeviceAllow")}
    assert {"char-gpiochip", "char-i2c", "char-ttyAMA", "char-ttyS", "char-ttyUSB"} <= allowed
    assert values("Service", "PrivateDevices") in ([], ["no"])
    # gpiozero reads the board revision from /proc: no ProcSubset=pid.
    assert values("Service", "ProcSubset") in ([], ["all"])
