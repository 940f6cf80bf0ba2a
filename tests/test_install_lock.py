"""One change to /opt/trap-companion at a time (issue 45 point 2): the installer and the
uninstaller take the lock `update`, `update --rollback` and the boot guard take, and a second one
is refused with update's status (4) naming the holder, nothing touched. The real thing, an
install during an update under systemd, is `make systest`'s; here the shell's lock itself."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.commands.update import UPDATE_RUNNING
from companion.release import lock

ROOT = Path(__file__).resolve().parents[1]
COMMON = ROOT / "systemd" / "common.sh"


def _shell_lock(lock_file: Path, then: str = "echo took") -> subprocess.Popen[str]:
    script = f'. "{COMMON}"; SCRIPT=install.sh; LOCK="{lock_file}"; take_lock install.sh; {then}'
    return subprocess.Popen(
        ["bash", "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_shell_and_python_lock_the_same_file():
    text = COMMON.read_text()
    name = re.search(r"^NAME=(\S+)$", text, re.M).group(1)
    path = re.search(r"^LOCK=(\S+)$", text, re.M).group(1).replace("$NAME", name)
    assert Path(path) == lock.LOCK_FILE
    status = re.search(r"^BUSY_STATUS=(\d+)$", text, re.M).group(1)
    assert int(status) == UPDATE_RUNNING == 4


def test_an_install_during_an_update_is_refused_naming_it(tmp_path):
    lock_file = tmp_path / "update.lock"
    with lock.held(lock_file, what="update"):
        proc = _shell_lock(lock_file)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 4, err
    assert out == ""  # nothing after the lock ran
    assert err.strip() == (
        f"install.sh: another install or update is running (process {_pid_of(lock_file)} "
        f"(update) holds {lock_file}): wait for it to end"
    )


def _pid_of(lock_file: Path) -> str:
    return lock_file.read_text().split()[0]


def test_an_update_during_an_install_is_refused_naming_it(tmp_path):
    lock_file = tmp_path / "update.lock"
    installing = _shell_lock(lock_file, then="echo took; read -r _")
    try:
        assert installing.stdout.readline() == "took\n"
        with pytest.raises(lock.Busy) as busy, lock.held(lock_file):
            pass
        assert str(busy.value) == (
            f"another install or update is running (process {installing.pid} (install.sh) "
            f"holds {lock_file})"
        )
        second = _shell_lock(lock_file)  # and a second install
        assert second.wait(timeout=60) == 4
    finally:
        installing.communicate("\n", timeout=60)
    with lock.held(lock_file):  # free once the install ended
        pass


@pytest.mark.parametrize("script", ["install.sh", "uninstall.sh"])
def test_the_installer_and_uninstaller_lock_before_they_touch_anything(script):
    """On the real system each takes the lock at once after its arguments are read."""
    lines = (ROOT / "systemd" / script).read_text().splitlines()
    parsed = next(i for i, line in enumerate(lines) if line.startswith("parse_root"))
    takes = [i for i, line in enumerate(lines) if "take_lock" in line]
    assert takes and takes[0] - parsed <= 4, (script, takes)
    before = "\n".join(lines[:parsed])
    for change in ("rm ", "install -", "systemctl ", "mkdir ", "apt-get install", "useradd"):
        assert not re.search(rf"^\s*{re.escape(change)}", before, re.M), change


def test_the_python_holder_is_named_with_what_it_is(tmp_path):
    lock_file = tmp_path / "update.lock"
    code = (
        "import sys; from pathlib import Path; from companion.release import lock\n"
        "with lock.held(Path(sys.argv[1]), what='the boot guard'):\n"
        "    print('held', flush=True); sys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(lock_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        said = rf"process {holder.pid} \(the boot guard\) holds"
        with pytest.raises(lock.Busy, match=said), lock.held(lock_file):
            pass
    finally:
        holder.communicate("", timeout=30)
