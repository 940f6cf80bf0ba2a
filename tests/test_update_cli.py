"""`trap-companion update` and `version` with bad input: one line, a distinct exit status, and
nothing touched. The real switch under systemd is the systest's (tools/systest, update-cut)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import companion.release
import companion.release.bundle as bundle_module
from companion.cli import COMMANDS, main
from companion.commands.update import UPDATE_RUNNING, UpdateRunning
from companion.core.formats import NewerFormat
from companion.errors import CompanionError
from companion.release import lock
from companion.release.layout import CURRENT, PREVIOUS, RELEASE_FILE, Layout

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def own_lock(tmp_path, monkeypatch):
    monkeypatch.setattr(lock, "LOCK_FILE", tmp_path / "update.lock")
    monkeypatch.setattr("os.geteuid", lambda: 0)


class BundleError(Exception):
    status = 65


@pytest.fixture
def fake_bundles(monkeypatch):
    """companion/release/bundle.py as its contract says: a file that is not a bundle is
    refused with its name before anything is touched."""

    def check_bundle(path: Path):
        raise BundleError(f"{path}: not a release bundle (no manifest.json)")

    module = types.SimpleNamespace(
        BundleError=BundleError, InstallError=OSError, check_bundle=check_bundle
    )
    monkeypatch.setitem(sys.modules, "companion.release.bundle", module)
    monkeypatch.setattr(companion.release, "bundle", module, raising=False)


def box(tmp_path: Path, *versions: str) -> Path:
    layout = Layout(tmp_path / "opt")
    for version in versions:
        (layout.release(version)).mkdir(parents=True)
        (layout.release(version) / RELEASE_FILE).write_text(json.dumps({"version": version}))
    if versions:
        layout.point(CURRENT, versions[-1])
    if len(versions) > 1:
        layout.point(PREVIOUS, versions[-2])
    return layout.root


def run(capsys, *args: str) -> tuple[int, str]:
    status = main(list(args))
    out = capsys.readouterr()
    return status, (out.out + out.err).strip()


def test_not_root(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    status, said = run(capsys, "update", str(tmp_path / "x.tar"))
    assert status == 77
    assert said == f"trap-companion: run it as root: sudo trap-companion update {tmp_path}/x.tar"


def test_no_such_file(capsys, tmp_path):
    status, said = run(capsys, "update", str(tmp_path / "nope.tar"))
    assert (status, said) == (66, f"trap-companion: {tmp_path}/nope.tar: no such file")


def test_not_installed_as_releases(capsys, tmp_path):
    (tmp_path / "x.tar").write_text("x")
    status, said = run(capsys, "update", str(tmp_path / "x.tar"), "--opt-dir", str(tmp_path))
    assert status == 69 and "no release is installed under" in said
    assert len(said.splitlines()) == 1


def test_not_a_bundle(capsys, tmp_path, fake_bundles):
    root = box(tmp_path, "0.2")
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    before = sorted(p.name for p in root.rglob("*"))
    status, said = run(capsys, "update", str(notes), "--opt-dir", str(root))
    assert status == 65
    assert said == f"trap-companion: {notes}: not a release bundle (no manifest.json)"
    assert sorted(p.name for p in root.rglob("*")) == before


def test_rollback_with_nothing_kept(capsys, tmp_path):
    root = box(tmp_path, "0.2")
    status, said = run(capsys, "update", "--rollback", "--opt-dir", str(root))
    assert (status, said) == (
        69,
        "trap-companion: no release is kept for going back (running 0.2)",
    )


def test_update_while_an_update_runs(capsys, tmp_path):
    root = box(tmp_path, "0.1", "0.2")
    with lock.held():
        status, said = run(capsys, "update", "--rollback", "--opt-dir", str(root))
    assert status == UPDATE_RUNNING == 4
    assert said.startswith("trap-companion: another install or update is running")
    assert "\n" not in said
    assert Layout(root).current == "0.2"


def test_another_update_in_another_process_is_named_by_its_pid(capsys, tmp_path):
    """A second process holds the lock, as a first `update` does: the refusal names it."""
    root = box(tmp_path, "0.1", "0.2")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(lock.LOCK_FILE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        status, said = run(capsys, "update", "--rollback", "--opt-dir", str(root))
    finally:
        holder.communicate("", timeout=30)
    assert (status, said) == (
        4,
        f"trap-companion: another install or update is running (process {holder.pid} (update) "
        f"holds {lock.LOCK_FILE}): wait for it to end",
    )
    assert Layout(root).current == "0.2"
    with lock.held():  # free again once the other ended: Busy otherwise
        pass


HOLD_THE_LOCK = """
import sys
from pathlib import Path
from companion.release import lock
with lock.held(Path(sys.argv[1]), what="update"):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_another_update_and_a_newer_format_have_statuses_of_their_own():
    """75 is every command's "a kept file written by a newer release" (core/formats.py);
    another update running is update's own status, which no other error of the CLI uses."""
    for name in COMMANDS:
        importlib.import_module(name)
    errors, todo = [], [CompanionError]
    while todo:
        cls = todo.pop()
        errors.append(cls)
        todo.extend(cls.__subclasses__())
    assert NewerFormat.exit_status == 75 != UPDATE_RUNNING
    assert [e for e in errors if e.exit_status == UPDATE_RUNNING] == [UpdateRunning]
    assert UPDATE_RUNNING not in {
        value for key, value in vars(bundle_module).items() if key.startswith("EXIT_")
    }


@pytest.mark.parametrize("doc", ["README.md", "docs/raspberry-pi.md"])
def test_the_docs_give_each_its_own_status(doc):
    text = " ".join((ROOT / doc).read_text().split())
    assert f"{UPDATE_RUNNING} another install or update is running" in text
    assert "75 another update is running" not in text
    assert "for `update`: another update is running" not in text


def test_neither_file_nor_rollback(capsys):
    with pytest.raises(SystemExit) as ended:
        main(["update"])
    assert ended.value.code == 2


def test_version_says_what_runs_and_what_is_kept(capsys, tmp_path):
    root = box(tmp_path, "0.1", "0.2")
    status, said = run(capsys, "version", "--json", "--opt-dir", str(root))
    data = json.loads(said)
    assert status == 0 and (data["running"], data["kept"]) == ("0.2", "0.1")


def test_a_failed_update_is_said_on_the_screen_at_the_next_start(tmp_path):
    from companion.core.config import Config, StateConfig
    from companion.release import notice
    from companion.replay import run_script

    state = tmp_path / "state"
    state.mkdir()
    notice.leave(state, "update to 0.3 failed (exited with status 1): back on 0.2")
    config = Config(state=StateConfig(dir=str(state)))
    out = run_script("wait 0\n", config=config)
    shown = " ".join(out[0]["screen"])
    assert "Update to 0.3 failed: back on 0.2" in shown
    assert not (state / notice.NOTICE_FILE).exists()  # said once


def test_an_update_killed_mid_trial_is_undone_before_the_next_one(capsys, tmp_path, monkeypatch):
    from companion.release import trial as trials
    from companion.release.layout import Layout

    root = box(tmp_path, "0.1", "0.2", "0.3")
    layout = Layout(root)
    layout.point(CURRENT, "0.2")
    layout.point(PREVIOUS, "0.1")
    trial = trials.begin(layout, trials.UPDATE, "0.3")
    trials.write(layout, trial)
    layout.point(CURRENT, "0.3")  # switched, then the updater was killed in this same boot
    monkeypatch.setattr("companion.release.notice.to_journal", lambda message, error=True: None)
    monkeypatch.setattr("companion.pi.paths.STATE_DIR", tmp_path)
    monkeypatch.setattr("companion.release.units.install", lambda run: False)

    class Down:
        def restart(self) -> None: ...

        def prove(self, stay: float) -> str | None:
            return "exited with status 1"

    monkeypatch.setattr("companion.release.systemd.Systemd", Down)
    status, said = run(capsys, "update", "--rollback", "--opt-dir", str(root))
    assert "an earlier update did not finish: update to 0.3 failed" in said
    assert layout.current == "0.2" and trials.read(layout) is None
    assert status == 1  # then going back to 0.1 by hand: 0.1 did not start, so still on 0.2


def test_a_bundle_for_another_cpu_is_refused_before_anything_is_touched(
    capsys, tmp_path, monkeypatch
):
    """Issue 45 point 4: the fit is checked first; before, it said "building it beside" and
    pruned the releases beyond the two, then refused with 66."""

    class WrongBox(BundleError):
        status = 66

    def check_fits(manifest, python):
        raise WrongBox(
            "this bundle is for arm64 with Python 3.11; this box is amd64 with Python 3.11: "
            "take trap-companion-0.4-amd64-py311.tar"
        )

    module = types.SimpleNamespace(
        BundleError=BundleError,
        InstallError=OSError,
        WrongBox=WrongBox,
        check_bundle=lambda path: types.SimpleNamespace(version="0.4"),
        check_fits=check_fits,
    )
    monkeypatch.setitem(sys.modules, "companion.release.bundle", module)
    monkeypatch.setattr(companion.release, "bundle", module, raising=False)
    root = box(tmp_path, "0.1", "0.2", "0.3")  # 0.1: a leftover an update would prune
    bundle = tmp_path / "trap-companion-0.4-arm64-py311.tar"
    bundle.write_text("x")
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    status, said = run(capsys, "update", str(bundle), "--opt-dir", str(root))
    assert status == 66
    assert said == (
        "trap-companion: this bundle is for arm64 with Python 3.11; this box is amd64 with "
        "Python 3.11: take trap-companion-0.4-amd64-py311.tar"
    )
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before
