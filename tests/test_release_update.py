"""The switch, the trial and the way back (companion/release/), on temp dirs with fake releases.

A fake release is releases/<v>/RELEASE.json with "starts": whether its daemon would reach READY
and stay up. The fake service "restarts" whatever ``current`` names and proves it by that flag.
A power cut is an exception raised by the step hook: nothing after it runs, what is on disk
stays; then the boot's guard runs, and the release it leaves must be one that starts.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.release import about, guard, notice, units
from companion.release import trial as trials
from companion.release import update as flow
from companion.release.layout import CURRENT, PREVIOUS, RELEASE_FILE, Layout
from companion.release.systemd import watch, why_down


class PowerCut(BaseException):
    """The power goes: nothing after this point runs (not even finally blocks that catch)."""


class FakeService:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.restarts: list[str | None] = []

    def restart(self) -> None:
        self.restarts.append(self.layout.current)

    def prove(self, stay_seconds: float) -> str | None:
        version = self.layout.current
        if version is None or not self.layout.info(version).get("starts"):
            return "exited with status 1"
        return None


def make_release(layout: Layout, version: str, starts: bool = True) -> Path:
    path = layout.release(version)
    (path / "venv").mkdir(parents=True)
    info = {"format": 1, "version": version, "starts": starts}
    (path / RELEASE_FILE).write_text(json.dumps(info))
    return path


def installed(tmp_path: Path, *versions: str) -> Layout:
    """A box with these releases, the last one current, the one before it previous."""
    layout = Layout(tmp_path / "opt")
    layout.root.mkdir()
    for version in versions:
        make_release(layout, version)
    layout.point(CURRENT, versions[-1])
    if len(versions) > 1:
        layout.point(PREVIOUS, versions[-2])
    return layout


def bundle(tmp_path: Path, version: str, starts: bool = True, tampered: bool = False) -> Path:
    path = tmp_path / f"trap-companion-{version}-arm64-py311.tar"
    path.write_text(json.dumps({"version": version, "starts": starts, "tampered": tampered}))
    return path


class BadBundle(Exception):
    pass


def check_bundle(path: Path) -> SimpleNamespace:
    data = json.loads(path.read_text())
    if data["tampered"]:
        raise BadBundle(f"{path}: wheels/x.whl was changed")
    return SimpleNamespace(version=data["version"])


def install_release(path: Path, root: Path) -> Path:
    data = json.loads(path.read_text())
    layout = Layout(root)
    if layout.finished(data["version"]):
        return layout.release(data["version"])
    return make_release(layout, data["version"], data["starts"])


def passes(release: Path) -> None:
    pass


def run_update(layout, service, path, said=None, step=flow._no_step, check=passes):
    said = [] if said is None else said
    return flow.update(
        layout, service, path, check_bundle, install_release, check, said.append, 60, step
    )


def boot(layout: Layout, said: list[str] | None = None) -> str | None:
    """What the guard unit does at boot, in a boot after the one that was cut."""
    said = [] if said is None else said
    return guard.recover(layout, "interrupted by a restart", "a later boot", said.append)


def on_disk(layout: Layout) -> set[str]:
    return {p.name for p in layout.releases.iterdir()}


# --- an update, a failed one, going back by hand ----------------------------------------------


def test_an_update_switches_keeps_the_old_one_and_removes_older(tmp_path):
    layout = installed(tmp_path, "0.1", "0.2")
    service = FakeService(layout)
    outcome = run_update(layout, service, bundle(tmp_path, "0.3"))
    assert (layout.current, layout.previous) == ("0.3", "0.2")
    assert (outcome.version, outcome.kept, outcome.removed) == ("0.3", "0.2", ("0.1",))
    assert on_disk(layout) == {"0.2", "0.3"}
    assert trials.read(layout) is None
    assert service.restarts == ["0.3"]
    assert (layout.root / CURRENT).resolve() == layout.release("0.3")


def test_a_release_that_does_not_start_goes_back_by_itself(tmp_path):
    layout = installed(tmp_path, "0.1", "0.2")
    service = FakeService(layout)
    said: list[str] = []
    with pytest.raises(flow.TrialFailed) as failed:
        run_update(layout, service, bundle(tmp_path, "0.3", starts=False), said)
    assert failed.value.back_seconds >= 0
    assert failed.value.message == "update to 0.3 failed (exited with status 1): back on 0.2"
    assert failed.value.back_ready is None  # 0.2 is READY again
    assert said == [failed.value.message]
    assert (layout.current, layout.previous) == ("0.2", "0.1")
    assert on_disk(layout) == {"0.1", "0.2"}  # the failed one is gone, nothing else removed
    assert service.restarts == ["0.3", "0.2"]
    assert trials.read(layout) is None


def test_a_release_that_fails_its_check_is_never_switched_to(tmp_path):
    layout = installed(tmp_path, "0.2")
    service = FakeService(layout)

    def refuse(release: Path) -> None:
        raise flow.ReleaseRefused("exit 1: FAIL game dice: ImportError")

    with pytest.raises(flow.ReleaseRefused):
        run_update(layout, service, bundle(tmp_path, "0.3"), check=refuse)
    assert (layout.current, layout.previous) == ("0.2", None)
    assert on_disk(layout) == {"0.2"} and service.restarts == []


def test_a_tampered_bundle_touches_nothing(tmp_path):
    layout = installed(tmp_path, "0.1", "0.2")
    before = sorted(p.name for p in layout.root.rglob("*"))
    with pytest.raises(BadBundle, match=r"wheels/x\.whl"):
        run_update(layout, FakeService(layout), bundle(tmp_path, "0.3", tampered=True))
    assert sorted(p.name for p in layout.root.rglob("*")) == before


def test_an_unfinished_build_is_removed_and_never_pointed_at(tmp_path):
    layout = installed(tmp_path, "0.2")
    (layout.release("0.25") / "venv").mkdir(parents=True)  # a build a power cut stopped
    assert layout.unfinished() == ["0.25"]
    with pytest.raises(FileNotFoundError):
        layout.point(CURRENT, "0.25")
    run_update(layout, FakeService(layout), bundle(tmp_path, "0.3"))
    assert on_disk(layout) == {"0.2", "0.3"}


def test_going_back_by_hand_swaps_the_two_and_can_be_undone(tmp_path):
    layout = installed(tmp_path, "0.2", "0.3")
    service = FakeService(layout)
    outcome = flow.rollback(layout, service, [].append, 60)
    assert (outcome.version, layout.current, layout.previous) == ("0.2", "0.2", "0.3")
    flow.rollback(layout, service, [].append, 60)
    assert (layout.current, layout.previous) == ("0.3", "0.2")
    assert on_disk(layout) == {"0.2", "0.3"}


def test_going_back_to_a_kept_release_that_does_not_start_stays_put(tmp_path):
    layout = installed(tmp_path, "0.2", "0.3")
    (layout.release("0.2") / RELEASE_FILE).write_text(json.dumps({"starts": False}))
    with pytest.raises(flow.TrialFailed, match=r"going back to 0\.2 failed .*: back on 0\.3"):
        flow.rollback(layout, FakeService(layout), [].append, 60)
    assert (layout.current, layout.previous) == ("0.3", "0.2")  # kept: the owner asked for it


def test_going_back_without_a_kept_release_is_refused(tmp_path):
    layout = installed(tmp_path, "0.2")
    with pytest.raises(FileNotFoundError, match="no release is kept"):
        flow.rollback(layout, FakeService(layout), [].append, 60)


# --- a power cut after every step --------------------------------------------------------------

COMMITTED = flow.STEPS.index("committed")


@pytest.mark.parametrize("cut", flow.STEPS)
def test_a_power_cut_after_any_step_of_an_update_boots_a_release_that_starts(tmp_path, cut):
    layout = installed(tmp_path, "0.1", "0.2")

    def step(name: str) -> None:
        if name == cut:
            raise PowerCut(name)

    with pytest.raises(PowerCut):
        run_update(layout, FakeService(layout), bundle(tmp_path, "0.3"), step=step)
    said: list[str] = []
    message = boot(layout, said)
    expected = "0.3" if flow.STEPS.index(cut) >= COMMITTED else "0.2"
    assert layout.current == expected
    assert layout.info(layout.current)["starts"]
    assert trials.read(layout) is None
    assert layout.previous != layout.current
    switched = flow.STEPS.index("marked") <= flow.STEPS.index(cut) < COMMITTED
    assert (message is not None) == switched
    if switched:
        assert said == ["update to 0.3 failed (interrupted by a restart): back on 0.2"]
        assert layout.previous == "0.1"  # as it was before the update
    if flow.STEPS.index("built") <= flow.STEPS.index(cut) < COMMITTED:
        # built, not proven: kept (unlinked) so that the same update again reuses it
        assert on_disk(layout) == {"0.1", "0.2", "0.3"}
        service = FakeService(layout)
        built = (layout.release("0.3") / RELEASE_FILE).stat().st_ino
        run_update(layout, service, bundle(tmp_path, "0.3"))
        assert (layout.release("0.3") / RELEASE_FILE).stat().st_ino == built  # reused
        assert (layout.current, layout.previous, on_disk(layout)) == ("0.3", "0.2", {"0.2", "0.3"})


@pytest.mark.parametrize("cut", flow.UNDO_STEPS)
def test_a_power_cut_while_going_back_finishes_going_back_at_boot(tmp_path, cut):
    layout = installed(tmp_path, "0.1", "0.2")

    def step(name: str) -> None:
        if name == cut:
            raise PowerCut(name)

    with pytest.raises(PowerCut):
        run_update(layout, FakeService(layout), bundle(tmp_path, "0.3", starts=False), step=step)
    boot(layout)
    assert (layout.current, layout.previous) == ("0.2", "0.1")
    assert trials.read(layout) is None
    # a cut before it was removed leaves it to the next update's clean-up
    assert on_disk(layout) - {"0.1", "0.2"} <= {"0.3"}


def test_the_boot_guard_leaves_a_trial_of_this_boot_alone(tmp_path):
    layout = installed(tmp_path, "0.2", "0.3")
    trial = trials.begin(layout, trials.UPDATE, "0.3")
    trials.write(layout, trial)
    assert guard.recover(layout, "x", trial.boot_id, [].append) is None
    assert trials.read(layout) == trial
    # the unit failed (OnFailure=): whatever the boot, it goes back
    assert guard.recover(layout, "its unit failed", None, [].append)
    assert trials.read(layout) is None


OPS = st.lists(
    st.tuples(
        st.sampled_from(["update-good", "update-bad", "rollback"]),
        st.none() | st.sampled_from(flow.STEPS + flow.UNDO_STEPS),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(ops=OPS)
def test_any_sequence_of_updates_rollbacks_and_cuts_leaves_a_box_that_starts(tmp_path_factory, ops):
    tmp_path = tmp_path_factory.mktemp("box")
    layout = installed(tmp_path, "1", "2")
    service = FakeService(layout)
    number = 2
    for op, cut in ops:

        def step(name: str, cut: str | None = cut) -> None:
            if name == cut:
                raise PowerCut(name)

        try:
            if op == "rollback":
                if layout.previous is None:
                    continue
                flow.rollback(layout, service, [].append, 60, step)
            else:
                number += 1
                path = bundle(tmp_path, str(number), starts=op == "update-good")
                run_update(layout, service, path, step=step)
        except (PowerCut, flow.TrialFailed):
            boot(layout)  # after a cut; a no-op after a failed trial
        assert layout.current is not None and layout.finished(layout.current)
        assert layout.info(layout.current)["starts"], "the box boots into a release that starts"
        assert trials.read(layout) is None
        assert layout.previous != layout.current
        assert layout.previous is None or layout.info(layout.previous)["starts"]
        # beyond the two: only what a cut left before the next update's prune
        assert len(on_disk(layout) - {layout.current, layout.previous}) <= 1


# --- the parts ---------------------------------------------------------------------------------


def test_the_notice_is_left_once_and_taken_once(tmp_path):
    notice.leave(tmp_path, "update to 0.3 failed (exited with status 1): back on 0.2")
    assert notice.take(tmp_path) == [("Update to 0.3 failed: back on 0.2",)]
    assert notice.take(tmp_path) == []
    (tmp_path / notice.NOTICE_FILE).write_text("{not json")
    assert notice.take(tmp_path) == [] and not (tmp_path / notice.NOTICE_FILE).exists()


def test_version_names_the_running_and_the_kept_release(tmp_path):
    layout = installed(tmp_path, "0.2", "0.3")
    found = about.about(layout, "0.3")
    assert (found.running, found.kept, found.on_trial) == ("0.3", "0.2", None)
    lines = found.lines(str(layout.root))
    assert lines[0].startswith("running:  0.3") and lines[1].startswith("kept:     0.2")
    trials.write(layout, trials.begin(layout, trials.UPDATE, "0.3"))
    assert about.about(layout, "0.3").on_trial == "0.3"
    empty = Layout(tmp_path / "none")
    assert about.about(empty, "0.1").lines(str(empty.root))[1].startswith("no release installed")


def test_the_guard_units_are_written_once_and_enabled(tmp_path):
    ran: list[list[str]] = []
    assert units.install(ran.append, tmp_path)
    assert ["systemctl", "daemon-reload"] in ran and ["systemctl", "enable", units.GUARD] in ran
    text = (tmp_path / units.GUARD).read_text()
    assert "previous/venv/bin/python -m companion.release.guard boot" in text
    assert "OnFailure=" in (tmp_path / "trap-companion.service.d" / "update.conf").read_text()
    (tmp_path / "multi-user.target.wants").mkdir()
    (tmp_path / "multi-user.target.wants" / units.GUARD).symlink_to(tmp_path / units.GUARD)
    ran.clear()
    assert not units.install(ran.append, tmp_path) and ran == []


def _shows(*states):
    answers = iter(states)
    return lambda: dict(next(answers))


def test_the_watch_passes_a_unit_that_stays_up_and_names_why_one_did_not():
    clock = [0.0]

    def sleep(seconds: float) -> None:
        clock[0] += seconds

    up = {"ActiveState": "active", "SubState": "running", "MainPID": "7", "Result": "success"}
    assert watch(lambda: up, "7", 60, lambda: clock[0], sleep) is None
    assert clock[0] == pytest.approx(60)
    clock[0] = 0.0
    dog = {**up, "MainPID": "9", "Result": "watchdog"}
    said = watch(_shows(up, up, dog), "7", 60, lambda: clock[0], sleep)
    assert said == "restarted 2 s after READY: stopped answering: killed by the watchdog"
    down = {"ActiveState": "failed", "SubState": "failed", "Result": "exit-code",
            "ExecMainStatus": "3"}  # fmt: skip
    assert why_down(down) == "exited with status 3"


def test_systemd_restart_that_fails_is_no_ready_with_the_reason():
    import subprocess

    from companion.release.systemd import Systemd

    ran: list[list[str]] = []
    state = {"ActiveState": "activating", "SubState": "auto-restart", "Result": "exit-code",
             "ExecMainStatus": "1", "TimeoutStartUSec": "1min 30s", "MainPID": "0"}  # fmt: skip

    def run(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
        ran.append(cmd)
        if cmd[1] == "show":
            out = "".join(f"{k}={v}\n" for k, v in state.items())
            return subprocess.CompletedProcess(cmd, 0, out, "")
        failed = cmd[1] == "restart"
        return subprocess.CompletedProcess(cmd, 1 if failed else 0, "", "Job failed")

    unit = Systemd(run=run)
    unit.restart()
    assert [c[1] for c in ran] == ["reset-failed", "show", "restart"]
    assert unit.prove(60) == "no READY: exited with status 1"


def test_the_systest_expects_the_old_release_until_the_commit():
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools" / "systest"))
    import update_cut

    left = {step: update_cut.expected_after(step, broken=False) for step in flow.STEPS}
    assert [s for s, v in left.items() if v == "to"] == ["committed", "pruned"]
    assert {update_cut.expected_after(s, broken=True) for s in flow.UNDO_STEPS} == {"from"}
