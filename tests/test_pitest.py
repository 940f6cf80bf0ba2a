"""make pitest / pibench / systest ARCH=...: the parts that need no emulated CPU (the runs
themselves are make targets: docs/raspberry-pi.md, "On the Pi's CPU")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools" / "pitest"))

import piroot  # noqa: E402
import pitest  # noqa: E402
from piroot import systest  # noqa: E402

BASE = (REPO / "tools" / "systest" / "recipe.toml").read_bytes()
PI = (REPO / "tools" / "pitest" / "recipe.toml").read_bytes()

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_a" name="test_ok" time="0.5"/>
<testcase classname="tests.test_a" name="test_bad[x]" time="1.0">
  <failure message="AssertionError: frame differs&#10;more">trace</failure></testcase>
<testcase classname="tests.test_b" name="test_browser" time="0.0">
  <skipped type="pytest.skip" message="no Chromium at /usr/bin/chromium">skip</skipped></testcase>
<testcase classname="tests.test_b" name="test_err" time="0.1"><error message="boom">e</error>
</testcase></testsuite></testsuites>"""


def test_each_architecture_has_its_own_root_with_systests_packages() -> None:
    arm64 = piroot.pi_recipe(BASE, PI, "arm64")
    armhf = piroot.pi_recipe(BASE, PI, "armhf")
    base = systest.load_recipe(BASE)
    assert len({arm64.digest, armhf.digest, base.digest}) == 3
    assert set(base.include) <= set(arm64.include) and set(base.include) <= set(armhf.include)
    assert "libfreetype-dev" in armhf.include  # Pillow is built there, with its fonts
    assert "--arch=armhf" in armhf.debootstrap(Path("/r"))
    assert not any(a.startswith("--arch") for a in base.debootstrap(Path("/r")))
    # Any change to either file's text is a new root.
    assert piroot.pi_recipe(BASE, PI + b"\n", "arm64").digest != arm64.digest


def test_a_bad_architecture_or_recipe_is_named() -> None:
    with pytest.raises(ValueError, match="ARCH=mips"):
        piroot.pi_recipe(BASE, PI, "mips")
    with pytest.raises(ValueError, match=r"pi\.toml: \[arm64\] include"):
        piroot.pi_recipe(BASE, b'[arm64]\ninclude = "gcc"\n', "arm64", "pi.toml")
    with pytest.raises(ValueError, match=r"pi\.toml"):
        piroot.pi_recipe(BASE, b"[arm64\n", "arm64", "pi.toml")


def test_qemus_registration_gets_the_credentials_flag() -> None:
    line = ":qemu-aarch64:M::\\x7fELF:\\xff:/usr/libexec/qemu-binfmt/aarch64-binfmt-P:PF\n"
    assert piroot.with_flags(line).endswith(":/usr/libexec/qemu-binfmt/aarch64-binfmt-P:OCPF")
    with pytest.raises(ValueError):
        piroot.with_flags("not a registration")
    assert piroot.handler_flags("enabled\ninterpreter /x\nflags: POCF\n") == "POCF"
    assert piroot.handler_flags("disabled\nflags: PF\n") is None


def test_no_binfmt_misc_is_said_in_one_line(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(piroot, "BINFMT", tmp_path / "absent")
    with pytest.raises(piroot.NoEmulation, match="no binfmt_misc") as err:
        piroot.ensure_emulation("arm64")
    assert "\n" not in str(err.value)


def test_junit_results_become_outcomes() -> None:
    found = pitest.junit_outcomes(JUNIT)
    assert found["tests.test_a::test_ok"] == pitest.Outcome("passed", "", 0.5)
    assert found["tests.test_a::test_bad[x]"].status == "failed"
    assert found["tests.test_a::test_bad[x]"].message == "AssertionError: frame differs"
    assert found["tests.test_b::test_browser"].status == "skipped"
    assert found["tests.test_b::test_err"].status == "failed"
    assert pitest.counts(found) == {"passed": 1, "failed": 2, "skipped": 1}


def test_differences_name_the_reason_and_which_are_the_boxs_own() -> None:
    native = pitest.junit_outcomes(JUNIT)
    emulated = dict(native)
    emulated["tests.test_a::test_ok"] = pitest.Outcome("failed", "timed out")
    emulated["tests.test_b::test_browser"] = pitest.Outcome("passed")
    known = {"tests.test_c::*": "QEMU cannot"}
    emulated["tests.test_c::test_ns"] = pitest.Outcome("failed", "EINVAL")
    diffs = {d.test_id: d for d in pitest.differences(native, emulated, known)}
    assert set(diffs) == {
        "tests.test_a::test_ok",
        "tests.test_b::test_browser",
        "tests.test_c::test_ns",
    }
    assert diffs["tests.test_a::test_ok"].box and diffs["tests.test_a::test_ok"].why == "timed out"
    assert not diffs["tests.test_c::test_ns"].box
    assert diffs["tests.test_c::test_ns"].why == "QEMU cannot"
    assert diffs["tests.test_b::test_browser"].why.startswith("skipped here: no Chromium")
    page = pitest.report("arm64", native, emulated, list(diffs.values()), {"tests": 10})
    assert "**the box's own** `tests.test_a::test_ok`" in page


def test_the_known_emulation_failures_file_reads_and_explains_each() -> None:
    known = pitest.load_known(pitest.KNOWN.read_text())
    assert all(reason.strip() for reason in known.values())
    with pytest.raises(ValueError, match=r"emulation\.toml"):
        pitest.load_known("[known]\nx = 1\n")


def test_cis_part_covers_the_hardware_daemon_journal_and_every_replay() -> None:
    files = pitest.selection(ci=True)
    assert all((REPO / f).is_file() for f in files)
    replays = {str(p.relative_to(REPO)) for p in REPO.glob("tests/test_*replay*.py")}
    assert replays <= set(files)
    for needed in ("tests/test_daemon.py", "tests/test_journal.py", "tests/test_buttons.py"):
        assert needed in files
    assert pitest.selection(ci=False) == ["tests"]


def test_the_bench_table_puts_both_runs_side_by_side() -> None:
    native = {"python_loop_seconds": 0.5, "ready_seconds": 1.0}
    emulated = {"python_loop_seconds": 4.5, "ready_seconds": 9.0, "button_p99_ms": 50}
    emulated["own_press_press_ratio_p99"] = 1.3
    lines = pitest.bench_table("arm64", native, emulated)
    assert "| plain Python loop, s | 0.5 | 4.5 | 9.0x |" in lines
    assert "| own press, press flood / quiet, p99 | None | 1.3 | - |" in lines  # issue 33
    verdict = pitest.budget_verdict(emulated, "TimeoutStartSec=90\nWatchdogSec=10\n")
    assert verdict[0].startswith("start: READY=1 after 9.0 s emulated; TimeoutStartSec=90 s")
    assert "WatchdogSec=10 s is 200 times that" in verdict[1]


def test_the_native_bench_keeps_bytecode_as_an_installed_box() -> None:
    """PYTHONDONTWRITEBYTECODE would compile the box's own code at every start it measures."""
    env = pitest.installed_env({"PATH": "/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    assert env == {"PATH": "/bin"}
    lines = pitest.bench_table("arm64", {"ready_per_bare_import": 1.2}, {})
    assert "| READY=1 / bare import | 1.2 | None | - |" in lines


def test_the_emulated_systest_takes_away_only_what_qemu_cannot_set_up(tmp_path) -> None:
    systest.furnish(tmp_path, "[global]\n", [], emulated=True)
    dropin = tmp_path / "etc/systemd/system/trap-companion.service.d" / systest.EMULATION_DROPIN
    settings = [ln for ln in dropin.read_text().splitlines() if "=" in ln and ln[0] != "#"]
    assert settings == ["PrivateNetwork=no", "PrivateIPC=no"]
    native = tmp_path / "native"
    (native / "etc").mkdir(parents=True)
    systest.furnish(native, "[global]\n", [])
    assert not (native / "etc/systemd/system").exists()


def test_trixie_is_a_root_of_its_own_beside_bookworms(tmp_path) -> None:
    bookworm = piroot.pi_recipe(BASE, PI, "arm64")
    trixie = piroot.pi_recipe(BASE, PI, "arm64", suite="trixie")
    assert piroot.pi_recipe(BASE, PI, "arm64", suite="bookworm") == bookworm
    assert trixie.suite == "trixie" and trixie.include == bookworm.include
    assert trixie.digest != bookworm.digest
    assert trixie.digest != piroot.pi_recipe(BASE, PI, "armhf", suite="trixie").digest
    assert trixie.debootstrap(Path("/r"))[:2] == ["debootstrap", "--arch=arm64"]
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    assert piroot.cache_dir(env, "arm64") == tmp_path / "trap-companion" / "pi-arm64"
    assert piroot.cache_dir(env, "arm64", "bookworm") == piroot.cache_dir(env, "arm64")
    assert (
        piroot.cache_dir(env, "arm64", "trixie") == tmp_path / "trap-companion" / "pi-arm64-trixie"
    )
    assert piroot.cache_dir({"PITEST_CACHE": "/p"}, "armhf", "trixie") == Path("/p/armhf-trixie")


def test_pitest_takes_the_suite(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        pitest.main(["--arch", "arm64", "--suite", "buster"])
    assert exit_.value.code == 2
    assert "invalid choice: 'buster'" in capsys.readouterr().err


def test_the_parts_of_the_suite_hold_every_file_once_and_about_equal_in_time() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    @given(
        st.dictionaries(
            st.from_regex(r"tests/test_[a-z]{1,6}\.py", fullmatch=True),
            st.floats(0, 500),
            min_size=1,
            max_size=40,
        ),
        st.integers(1, 5),
    )
    def check(seconds: dict[str, float], n: int) -> None:
        files = sorted(seconds)
        parts = [pitest.shard(files, k, n, seconds) for k in range(1, n + 1)]
        assert sorted(f for part in parts for f in part) == files
        totals = [sum(seconds[f] for f in part) for part in parts]
        # Greedy longest-first: no part exceeds another by more than its longest file.
        assert max(totals) - min(totals) <= max(seconds.values()) + 1e-6
        assert parts == [pitest.shard(files, k, n, seconds) for k in range(1, n + 1)]

    check()


def test_a_junit_report_gives_seconds_per_file() -> None:
    text = (
        '<testsuites><testsuite><testcase classname="tests.test_a" name="x" time="1.5"/>'
        '<testcase classname="tests.test_a" name="y" time="2"/>'
        '<testcase classname="tests.test_b" name="z" time="0.25"/></testsuite></testsuites>'
    )
    assert pitest.file_seconds(text) == {"tests/test_a.py": 3.5, "tests/test_b.py": 0.25}


def test_a_bad_shard_is_refused_in_one_line(capsys) -> None:
    for bad in ("3/2", "0/2", "x", "1/"):
        with pytest.raises(SystemExit) as stop:
            pitest.main(["--arch", "arm64", "--shard", bad])
        assert stop.value.code == 2
        assert f"--shard {bad}" in capsys.readouterr().err
