"""The systest's pure parts (tools/systest/systest.py, rootfs.py, sysbase.py): the recipe
and its hash (the cache key), the one line and status 77 where the machine cannot run it, and the
parsers its steps rely on. The systest itself boots a container as root and is run by
`make systest`, not here."""

from __future__ import annotations

import contextlib
import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "systest" / "systest.py"

_spec = importlib.util.spec_from_file_location("systest", SCRIPT)
assert _spec is not None and _spec.loader is not None
systest = importlib.util.module_from_spec(_spec)
sys.modules["systest"] = systest  # dataclasses look their module up by name
_spec.loader.exec_module(systest)

import rootfs  # noqa: E402  (tools/systest/rootfs.py, on the path systest.py gave it)


def test_the_recipe_names_the_root_file_system_the_issue_booted() -> None:
    recipe = systest.load_recipe(systest.RECIPE.read_bytes())
    command = recipe.debootstrap(Path("/cache/root"))
    assert command[:2] == ["debootstrap", "--variant=minbase"]
    included = command[2].removeprefix("--include=").split(",")
    for package in ("systemd", "systemd-sysv", "dbus", "python3-venv", "python3-pip", "sudo"):
        assert package in included
    assert command[3:] == ["bookworm", "/cache/root", "http://deb.debian.org/debian"]
    assert recipe.debootstrap(Path("/r"), "http://mirror.example/debian")[-1] == (
        "http://mirror.example/debian"
    )


def test_any_change_to_the_recipe_changes_the_cache_key() -> None:
    text = systest.RECIPE.read_bytes()
    key = systest.load_recipe(text).digest
    assert re.fullmatch(r"[0-9a-f]{16}", key)
    assert systest.load_recipe(text).digest == key
    assert systest.load_recipe(text.replace(b'"udev",', b'"udev", "less",')).digest != key
    assert systest.load_recipe(text + b"# a comment\n").digest != key


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (b'suite = "bookworm"\n', "missing variant, include, mirror"),
        (b'suite = "b"\nvariant = "minbase"\ninclude = "systemd"\nmirror = "m"\n', "include"),
        (b"suite = [\n", "recipe.toml"),
    ],
)
def test_a_broken_recipe_is_named(text: bytes, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        systest.load_recipe(text, "recipe.toml")


def test_without_root_it_says_so_in_one_line_and_exits_77(monkeypatch, capsys) -> None:
    monkeypatch.setattr(systest.os, "geteuid", lambda: 1000)
    assert systest.main([]) == systest.EXIT_SKIP == 77
    out = capsys.readouterr().out.splitlines()
    assert out == ["systest: skipped: needs root (systemd-nspawn, mounts): run `sudo make systest`"]


def test_without_nspawn_it_names_the_package() -> None:
    found = {"nsenter": "/usr/bin/nsenter", "mount": "/usr/bin/mount"}
    problem = systest.host_problem(0, found.get)
    assert problem is not None
    assert problem.startswith("needs systemd-nspawn ")
    assert "systemd-container" in problem
    assert systest.host_problem(0, lambda tool: f"/usr/bin/{tool}") is None


def test_make_systest_runs_the_script_and_ci_runs_it_after_make_test() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(
        r"^systest:\n\t@\$\(PYTHON\) tools/systest/systest\.py "
        r"\$\(if \$\(ARCH\),--arch \$\(ARCH\)\) \$\(if \$\(SUITE\),--suite \$\(SUITE\)\)$",
        makefile,
        re.M,
    )
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line[:1] != "#"]
    native = next(line for line in ci if re.search(r"\bmake systest\b", line))
    # One lane: the suite, then (only if it passed) the systest.
    assert re.search(r"\bmake test\b.*&&.*\bmake systest\b", native)
    emulated = [line for line in ci if re.search(r"\bmake (pitest|bundletest|hwtest) ARCH", line)]
    assert [re.search(r"make (\w+)", line)[1] for line in emulated] == [
        "pitest",
        "bundletest",
        "hwtest",
    ]


def test_the_cache_follows_systest_cache_then_xdg(tmp_path) -> None:
    assert systest.cache_dir({"SYSTEST_CACHE": str(tmp_path)}) == tmp_path
    assert systest.cache_dir({"XDG_CACHE_HOME": "/c"}) == Path("/c/trap-companion/systest")
    assert systest.cache_dir({}) == Path.home() / ".cache" / "trap-companion" / "systest"


def test_the_hosts_pip_configuration_goes_in_as_one_global_section() -> None:
    listing = "\n".join(
        [
            ":env:.cert='/etc/ssl/certs/ca-certificates.crt'",
            ":env:.find-links='/opt/wheels'",
            "global.cert='/etc/ssl/other.crt'",
            "global.constraint='/etc/xdg/pip/constraints.txt'",
            "global.extra-index-url='file:///opt/pypi/simple https://x.example/simple'",
        ]
    )
    settings = systest.pip_settings(listing)
    assert settings["cert"] == "/etc/ssl/certs/ca-certificates.crt"  # a variable wins
    assert settings["extra-index-url"] == "file:///opt/pypi/simple https://x.example/simple"
    conf = systest.pip_conf(settings)
    assert "[global]\n" in conf
    assert "find-links = /opt/wheels\n" in conf
    # A local index's files lie beside its simple/ folder: the index's root goes in.
    assert systest.pip_paths(settings) == [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/xdg/pip/constraints.txt",
        "/opt/pypi",
        "/opt/wheels",
    ]
    assert systest.pip_settings("") == {}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("10s", 10.0), ("1min 30s", 90.0), ("100ms", 0.1), ("2s 500ms", 2.5), ("infinity", 0.0)],
)
def test_systemd_timespans(text: str, seconds: float) -> None:
    assert systest.parse_timespan(text) == pytest.approx(seconds)


def test_systemctl_show_output() -> None:
    show = systest.parse_show("MainPID=42\nStatusText=menu; reader=lost\nType=notify\n")
    assert show == {"MainPID": "42", "StatusText": "menu; reader=lost", "Type": "notify"}


def test_log_lines_must_carry_level_and_logger() -> None:
    lines = [
        "INFO companion.daemon: ready: menu",
        "WARNING companion.hal.display: display not answering",
        "Traceback (most recent call last):",
        "ready",
    ]
    assert systest.bad_log_lines(lines) == lines[2:]


def test_the_resume_line_names_game_and_steps() -> None:
    text = "INFO companion.app: resumed dice after 2 actions\nINFO x: resumed dice after 3 actions"
    assert systest.last_resumed(text) == ("dice", 3)
    assert systest.last_resumed("INFO companion.daemon: ready") is None


def test_the_exposure_in_the_guide_is_what_systemd_analyze_prints() -> None:
    out = "→ Overall exposure level for trap-companion.service: 0.6 SAFE :-}"
    assert systest.analyze_exposure(out) == "0.6"
    stated = systest.docs_exposure((ROOT / "docs" / "raspberry-pi.md").read_text())
    assert stated is not None
    assert float(stated) <= 2.5  # tests/test_systemd_unit.py's limit


def test_the_steps_are_numbered_as_the_guide_lists_them() -> None:
    guide = (ROOT / "docs" / "raspberry-pi.md").read_text()
    listed = re.findall(r"^(\d+)\. \*\*([\w-]+)\*\*", guide, re.M)
    steps = [(str(n), name) for n, (name, _) in enumerate(systest.STEPS, 1)] + [
        (str(len(systest.STEPS) + 1), "time")
    ]
    assert listed[-len(steps) :] == steps
    for _, method in systest.STEPS:
        assert callable(getattr(systest.Systest, method))


def test_the_install_command_is_the_guides() -> None:
    assert shlex.split(systest.INSTALL)[:3] == ["sudo", "make", "install"]
    assert "SKIP_APT=1 SKIP_FIRMWARE=1" in (ROOT / "docs" / "raspberry-pi.md").read_text()


class _Suite:
    """Stands in for Systest: each step passes, fails or breaks as told."""

    def __init__(self, outcome: dict[str, object]) -> None:
        self.outcome = outcome
        self.log = type("Log", (), {"write": lambda self, text: None})()

    def __getattr__(self, method: str):
        def step() -> str:
            result = self.outcome.get(method, "fine")
            if isinstance(result, Exception):
                raise result
            return str(result)

        return step


def test_a_failed_step_is_named_and_the_later_ones_still_run(capsys) -> None:
    suite = _Suite(
        {
            "step_watchdog": systest.StepFailed("the unit has no WatchdogSec"),
            "step_hardening": KeyError("MainPID"),
        }
    )
    failed = systest.run_steps(suite, time.monotonic())
    out = capsys.readouterr().out.splitlines()
    assert failed == ["3", "6"]
    assert out[0] == "PASS 1 install: fine"
    assert out[2] == "FAIL 3 watchdog: the unit has no WatchdogSec"
    assert out[3] == "PASS 4 bad-config: fine"
    assert out[5] == "FAIL 6 hardening: the systest itself failed: KeyError: 'MainPID'"
    assert out[-1].startswith(f"PASS {len(systest.STEPS) + 1} time: the run took ")


def test_without_an_install_the_other_steps_are_not_run(capsys) -> None:
    failed = systest.run_steps(
        _Suite({"step_install": systest.StepFailed("exited 2")}), time.monotonic()
    )
    out = capsys.readouterr().out.splitlines()
    assert failed == [str(n) for n in range(1, len(systest.STEPS) + 1)]
    assert out[0] == "FAIL 1 install: exited 2"
    assert out[len(systest.STEPS) - 1] == (
        f"FAIL {len(systest.STEPS)} update: not run: nothing is installed (step 1 failed)"
    )


def test_another_debian_release_has_its_own_key_and_directory_and_bookworm_keeps_its_own() -> None:
    text = systest.RECIPE.read_bytes()
    bookworm = systest.load_recipe(text)
    assert bookworm.suite == "bookworm"
    # The default keeps the key the cached roots in use were built under.
    assert systest.load_recipe(text, suite="bookworm") == bookworm
    assert systest.load_recipe(text, suite=None) == bookworm
    trixie = systest.load_recipe(text, suite="trixie")
    assert trixie.suite == "trixie" and trixie.include == bookworm.include
    assert trixie.digest != bookworm.digest and re.fullmatch(r"[0-9a-f]{16}", trixie.digest)
    assert trixie.debootstrap(Path("/r"))[3] == "trixie"
    assert systest.describe(trixie) == "Debian 13 (trixie)"
    cache = Path("/c/trap-companion/systest")
    assert systest.cache_for(cache, "bookworm", "bookworm") == cache
    assert systest.cache_for(cache, "trixie", "bookworm") == Path(
        "/c/trap-companion/systest-trixie"
    )
    with pytest.raises(ValueError, match="SUITE=sid"):
        systest.load_recipe(text, suite="sid")


def test_building_a_trixie_root_leaves_the_bookworm_roots_alone(tmp_path, monkeypatch) -> None:
    text = systest.RECIPE.read_bytes()
    bookworm, trixie = systest.load_recipe(text), systest.load_recipe(text, suite="trixie")
    cache = tmp_path / "systest"
    old = cache / f"root-{bookworm.digest}"
    (old / "etc").mkdir(parents=True)
    (old / "etc" / "debian_version").write_text("12.12\n")
    (cache / f"root-{bookworm.digest}.recipe").write_text("debootstrap ... bookworm\n")

    def debootstrap(cmd, **kwargs):
        assert cmd[-3] == "trixie"
        Path(cmd[-2], "etc").mkdir(parents=True)
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/sbin/{name}")
    monkeypatch.setattr(subprocess, "run", debootstrap)
    log = systest.Log(tmp_path / "log")
    built = systest.root_fs(systest.cache_for(cache, "trixie", "bookworm"), trixie, log, False)
    assert built == tmp_path / "systest-trixie" / f"root-{trixie.digest}" and built.is_dir()
    assert (old / "etc" / "debian_version").read_text() == "12.12\n"
    assert (cache / f"root-{bookworm.digest}.recipe").exists()
    assert "trixie" in (built.parent / f"root-{trixie.digest}.recipe").read_text()


def test_the_suite_is_a_choice_on_the_command_line(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        systest.main(["--suite", "sid"])
    assert exit_.value.code == 2
    assert "invalid choice: 'sid'" in capsys.readouterr().err


def test_a_tmpfs_another_run_still_uses_is_left_in_place_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by a cold CI run beside another engineer's pitest (which takes no lock where the
    tmpfs is already there): the systest passed every step, then its teardown's rmdir of the busy
    /run/systemd/nspawn raised EBUSY. Now the tmpfs and its folder stay, with one warning."""
    nspawn = tmp_path / "run" / "systemd" / "nspawn"
    calls: list[list[str]] = []

    def host_run(log: object, cmd: list[str]) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        if cmd[0] == "umount":
            return subprocess.CompletedProcess(cmd, 32, "", f"umount: {nspawn}: target is busy.")
        (nspawn / "machine.slice").mkdir(parents=True, exist_ok=True)  # what the other run has
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(rootfs, "NSPAWN_RUN", nspawn)
    monkeypatch.setattr(rootfs, "fs_type", lambda path: "ext4")
    monkeypatch.setattr(rootfs, "host_run", host_run)
    with contextlib.ExitStack() as stack:
        systest.nspawn_tmpfs(stack, log=None)  # type: ignore[arg-type]
    assert [c[0] for c in calls] == ["mount", "umount"]
    assert nspawn.is_dir()
    said = capsys.readouterr().out
    assert "could not unmount" in said and "Traceback" not in said


def test_a_free_tmpfs_is_taken_away_with_the_folders_it_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nspawn = tmp_path / "run" / "systemd" / "nspawn"

    def host_run(log: object, cmd: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(rootfs, "NSPAWN_RUN", nspawn)
    monkeypatch.setattr(rootfs, "fs_type", lambda path: "ext4")
    monkeypatch.setattr(rootfs, "host_run", host_run)
    with contextlib.ExitStack() as stack:
        systest.nspawn_tmpfs(stack, log=None)  # type: ignore[arg-type]
        assert nspawn.is_dir()
    assert not (tmp_path / "run").exists()
