"""make systest ARCH=... SUITE=trixie: the newer QEMU registered on top of the host's for one run
(tools/pitest/newer_qemu.py). The parts that need no root, kernel or network: the entry's text,
the order of registering and removing, the probe's verdicts, a package that cannot be had."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools" / "pitest"))

import newer_qemu  # noqa: E402
import piroot  # noqa: E402
from piroot import systest  # noqa: E402

# Debian's own line (qemu-user's usr/share/qemu/binfmt.d/qemu-aarch64.conf).
DEBIAN_LINE = (
    r":qemu-aarch64:M::\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00"
    r"\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff"
    ":/usr/libexec/qemu-binfmt/aarch64-binfmt-P:OPF\n"
)


class FakeBinfmt:
    """/proc/sys/fs/binfmt_misc as the kernel keeps it: writing a line to register adds an
    entry, writing -1 to an entry removes it. Every write is recorded, in order."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir()
        (folder / "register").write_text("")
        (folder / "qemu-aarch64").write_text("enabled\nflags: POCF\n")  # the host's
        self.writes: list[tuple[str, str]] = []

    def write(self, path: Path, text: str) -> None:
        self.writes.append((path.name, text))
        if path.name == "register":
            (self.folder / text.split(":")[1]).write_text("enabled\n")
        elif text == "-1":
            path.unlink()

    def entries(self) -> list[str]:
        return sorted(p.name for p in self.folder.iterdir() if p.name != "register")


def test_the_entry_is_debians_line_under_our_name_interpreter_and_flags() -> None:
    interpreter = Path("/c/qemu-11/binfmt/aarch64-binfmt-P")
    line = newer_qemu.entry_line(DEBIAN_LINE, "aarch64", interpreter)
    fields = line.split(":")
    ours = DEBIAN_LINE.strip().split(":")
    assert fields[1] == "trap-qemu-aarch64" == newer_qemu.entry_name("aarch64")
    assert fields[2:6] == ours[2:6]  # type, offset, magic, mask: the same ELF as the host's
    assert fields[6] == str(interpreter) and fields[7] == "POCF"
    assert "\n" not in line
    with pytest.raises(ValueError, match="qemu-arm"):
        newer_qemu.entry_line(DEBIAN_LINE, "arm", interpreter)
    with pytest.raises(ValueError):
        newer_qemu.entry_line("not a line", "aarch64", interpreter)


def test_ours_goes_on_top_and_only_ours_is_taken_away(tmp_path) -> None:
    binfmt = FakeBinfmt(tmp_path / "binfmt")
    line = newer_qemu.entry_line(DEBIAN_LINE, "aarch64", Path("/q/aarch64-binfmt-P"))
    with newer_qemu.registered(line, binfmt.folder, binfmt.write) as name:
        assert name == "trap-qemu-aarch64"
        assert binfmt.entries() == ["qemu-aarch64", "trap-qemu-aarch64"]
    assert binfmt.writes == [("register", line), ("trap-qemu-aarch64", "-1")]
    assert binfmt.entries() == ["qemu-aarch64"]  # the host's, never written to


@pytest.mark.parametrize("stop", [RuntimeError("a step broke"), KeyboardInterrupt()])
def test_a_failure_or_ctrl_c_still_takes_ours_away(tmp_path, stop) -> None:
    binfmt = FakeBinfmt(tmp_path / "binfmt")
    line = newer_qemu.entry_line(DEBIAN_LINE, "aarch64", Path("/q/aarch64-binfmt-P"))
    with pytest.raises(type(stop)), newer_qemu.registered(line, binfmt.folder, binfmt.write):
        raise stop
    assert binfmt.entries() == ["qemu-aarch64"]
    assert [w[0] for w in binfmt.writes] == ["register", "trap-qemu-aarch64"]


def test_one_left_by_a_killed_run_is_replaced_and_the_hosts_name_refused(tmp_path) -> None:
    binfmt = FakeBinfmt(tmp_path / "binfmt")
    (binfmt.folder / "trap-qemu-aarch64").write_text("enabled\n")  # a SIGKILLed run's
    line = newer_qemu.entry_line(DEBIAN_LINE, "aarch64", Path("/q/aarch64-binfmt-P"))
    with newer_qemu.registered(line, binfmt.folder, binfmt.write):
        pass
    assert binfmt.writes == [
        ("trap-qemu-aarch64", "-1"),
        ("register", line),
        ("trap-qemu-aarch64", "-1"),
    ]
    refused = pytest.raises(ValueError, match="only our own")
    with refused, newer_qemu.registered(DEBIAN_LINE.strip(), binfmt.folder, binfmt.write):
        pass
    assert len(binfmt.writes) == 3 and binfmt.entries() == ["qemu-aarch64"]


def done(code: int, out: str = "", err: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["chroot"], code, out, err)


def test_the_probe_passes_a_qemu_only_when_systemd_can_use_it() -> None:
    assert newer_qemu.probe_verdict(done(0, "ok\n")) is None
    assert newer_qemu.probe_verdict(done(0, "absent\n")) is None  # Debian 12's glibc
    said = newer_qemu.probe_verdict(done(3, "pidfd_spawn fails: Invalid argument\n"))
    assert said == "pidfd_spawn fails: Invalid argument (exit 3)"
    said = newer_qemu.probe_verdict(done(3, "statx says it gives the mount id, and gives 0\n"))
    assert said is not None and "mount id" in said
    assert newer_qemu.probe_verdict(done(1, "", "Traceback\nOSError: boom\n")) == (
        "OSError: boom (exit 1)"
    )
    # The probe asks both things systemd 257 needs, and is valid Python.
    assert "pidfd_spawn" in newer_qemu.PROBE and "statx" in newer_qemu.PROBE
    compile(newer_qemu.PROBE, "probe", "exec")


def test_the_private_apt_directory_reads_nothing_of_the_hosts(tmp_path) -> None:
    conf, sources = newer_qemu.apt_config(tmp_path, "http://mirror/debian")
    assert sources == (
        f"deb [signed-by={newer_qemu.KEYRING}] http://mirror/debian trixie-backports main\n"
    )
    assert f'Dir::State::status "{tmp_path}/status";' in conf
    assert 'Dir::Etc::SourceParts "/nonexistent";' in conf
    assert f'Dir::Cache "{tmp_path}/cache";' in conf


QEMU_LIST = (
    "Package: qemu-user\nVersion: 1:11.1.3+ds-1~bpo13+1\nArchitecture: amd64\nSHA256: 00ff\n"
)


def apt_answers(download: subprocess.CompletedProcess[str], listed: str = QEMU_LIST):
    """apt-get as the fetch calls it: update leaves LISTED as the suite's Packages list."""
    calls: list[list[str]] = []

    def run(cmd, **kwargs):
        calls.append(cmd)
        if cmd[:3] == ["apt-get", "-q", "download"]:
            return download
        if cmd[:3] == ["apt-get", "-q", "update"]:
            lists = Path(kwargs["env"]["APT_CONFIG"]).parent / "state" / "lists"
            (lists / "mirror_debian_dists_trixie-backports_main_binary-amd64_Packages").write_text(
                listed
            )
        return done(0, "Reading package lists...\n")

    return run, calls


def test_a_package_that_cannot_be_had_is_said_in_one_line(tmp_path, monkeypatch) -> None:
    keyring = tmp_path / "keyring.gpg"
    keyring.write_text("keys")
    monkeypatch.setattr(newer_qemu, "KEYRING", keyring)
    run, calls = apt_answers(done(100, "", "E: Version '1:11.1.3+ds-1~bpo13+1' not found\n"))
    with pytest.raises(newer_qemu.Unavailable) as err:
        newer_qemu.fetch(tmp_path / "cache", "http://mirror/debian", run, arch="amd64")
    said = str(err.value)
    assert "\n" not in said
    assert said == (
        "cannot fetch qemu-user from Debian trixie-backports at http://mirror/debian: "
        "E: Version '1:11.1.3+ds-1~bpo13+1' not found"
    )
    assert [c[2:] for c in calls] == [["update"], ["download", "qemu-user=1:11.1.3+ds-1~bpo13+1"]]
    assert not list((tmp_path / "cache").glob("qemu-*"))  # nothing half-made left


def test_a_suite_whose_list_has_no_qemu_new_enough_is_said_before_any_download(
    tmp_path, monkeypatch
) -> None:
    """The backport dropped for 10.0 (Debian 13's own): named in one line, nothing fetched."""
    keyring = tmp_path / "keyring.gpg"
    keyring.write_text("keys")
    monkeypatch.setattr(newer_qemu, "KEYRING", keyring)
    old = QEMU_LIST.replace("1:11.1.3+ds-1~bpo13+1", "1:10.0.7+ds-0+deb13u1")
    run, calls = apt_answers(done(0), listed=old)
    with pytest.raises(newer_qemu.Unavailable) as err:
        newer_qemu.fetch(tmp_path / "cache", "http://mirror/debian", run, arch="amd64")
    assert str(err.value) == (
        "qemu-user 1:11.1~ or later for amd64 is not in Debian trixie-backports at "
        "http://mirror/debian (newest 1:10.0.7+ds-0+deb13u1)"
    )
    assert [c[2] for c in calls] == ["update"]


def test_without_the_keyring_nothing_is_asked(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(newer_qemu, "KEYRING", tmp_path / "absent.gpg")
    run, calls = apt_answers(done(0))
    with pytest.raises(newer_qemu.Unavailable, match="archive keyring"):
        newer_qemu.fetch(tmp_path / "cache", "http://mirror/debian", run)
    assert calls == []


def a_cached_qemu(base: Path, suite: str = newer_qemu.SOURCE_SUITE) -> Path:
    folder = base / "qemu-11.1.3+ds-1~bpo13+1"
    (folder / "bin").mkdir(parents=True)
    (folder / "binfmt.d").mkdir()
    (folder / "bin" / "qemu-aarch64").write_bytes(b"\x7fELF qemu")
    (folder / "binfmt.d" / "qemu-aarch64.conf").write_text(DEBIAN_LINE)
    files = {
        name: newer_qemu.sha256(folder / name)
        for name in ("bin/qemu-aarch64", "binfmt.d/qemu-aarch64.conf")
    }
    manifest = {"version": "1:11.1.3+ds-1~bpo13+1", "suite": suite, "files": files}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_the_cache_is_taken_only_whole_and_from_the_wanted_suite(tmp_path) -> None:
    folder = a_cached_qemu(tmp_path)
    assert newer_qemu.cached(tmp_path) == folder
    (folder / "bin" / "qemu-aarch64").write_bytes(b"changed")
    assert newer_qemu.cached(tmp_path) is None
    other = tmp_path / "other"
    a_cached_qemu(other, suite="trixie")  # QEMU 10.0: not the one that passes the probe
    assert newer_qemu.cached(other) is None


def test_the_newer_qemu_serves_the_run_then_the_hosts_again(tmp_path) -> None:
    folder = a_cached_qemu(tmp_path)
    binfmt = FakeBinfmt(tmp_path / "binfmt")
    answers = iter([done(3, "pidfd_spawn fails: Invalid argument\n"), done(0, "ok\n")])
    seen: list[list[str]] = []

    def run(cmd, **kwargs):
        seen.append([*binfmt.entries()])
        return next(answers)

    logged: list[str] = []
    with contextlib.ExitStack() as stack:
        said = newer_qemu.for_systemd(
            stack, tmp_path / "root", "aarch64", tmp_path, "http://m", logged.append, run,
            binfmt.folder, binfmt.write,
        )  # fmt: skip
        assert binfmt.entries() == ["qemu-aarch64", "trap-qemu-aarch64"]
    assert binfmt.entries() == ["qemu-aarch64"]
    # The first probe ran under the host's entry alone, the second with ours on top.
    assert seen == [["qemu-aarch64"], ["qemu-aarch64", "trap-qemu-aarch64"]]
    assert said.startswith("the host's QEMU cannot start Debian 13's services (pidfd_spawn")
    assert "qemu-user 1:11.1.3+ds-1~bpo13+1" in said and str(folder) in said
    assert "trap-qemu-aarch64 on top of the host's entry for this run" in said
    assert "\n" not in said


def test_a_newer_qemu_that_fails_too_is_taken_away_and_said(tmp_path) -> None:
    a_cached_qemu(tmp_path)
    binfmt = FakeBinfmt(tmp_path / "binfmt")
    failing = done(3, "statx says it gives the mount id, and gives 0\n")
    said = pytest.raises(newer_qemu.Unavailable, match=r"under qemu-user 1:11\.1\.3.*mount id")
    with said, contextlib.ExitStack() as stack:
        newer_qemu.for_systemd(
            stack, tmp_path / "root", "aarch64", tmp_path, "http://m", print,
            lambda cmd, **kw: failing, binfmt.folder, binfmt.write,
        )  # fmt: skip
    assert binfmt.entries() == ["qemu-aarch64"]


def test_the_hosts_qemu_is_kept_where_it_serves(tmp_path) -> None:
    binfmt = FakeBinfmt(tmp_path / "binfmt")
    for answer, words in (("absent", "no pidfd_spawn"), ("ok", "runs the root's pidfd_spawn")):
        with contextlib.ExitStack() as stack:
            said = newer_qemu.for_systemd(
                stack, tmp_path / "root", "aarch64", tmp_path / "nocache", "http://m", print,
                lambda cmd, answer=answer, **kw: done(0, answer + "\n"), binfmt.folder,
                binfmt.write,
            )  # fmt: skip
        assert words in said
    assert binfmt.writes == [] and not (tmp_path / "nocache").exists()


def test_no_newer_qemu_makes_the_systest_skip_in_one_line(tmp_path, monkeypatch) -> None:
    def unavailable(*args, **kwargs):
        raise newer_qemu.Unavailable("cannot fetch qemu-user from Debian trixie-backports at m: E")

    monkeypatch.setattr(newer_qemu, "for_systemd", unavailable)
    recipe = piroot.load("arm64", "trixie")
    log = systest.Log(tmp_path / "log")
    with pytest.raises(systest.Skip) as err, contextlib.ExitStack() as stack:
        systest.newer_qemu_for(stack, tmp_path, "arm64", recipe, log)
    assert str(err.value) == (
        "the root's systemd needs a newer QEMU than the host's: cannot fetch qemu-user from "
        "Debian trixie-backports at m: E"
    )
    assert systest.EXIT_SKIP == 77  # main: "systest: skipped: ..." and this status


def settings(root: Path, unit: str) -> list[str]:
    dropin = root / "etc/systemd/system" / f"{unit}.d" / systest.EMULATION_DROPIN
    return [ln for ln in dropin.read_text().splitlines() if "=" in ln and ln[0] != "#"]


def a_root(root: Path, journald: str) -> Path:
    (root / "usr/lib/systemd/system").mkdir(parents=True)
    (root / "usr/lib/systemd/system/systemd-journald.service").write_text(journald)
    (root / "etc").mkdir()
    return root


def test_under_qemu_debian_13s_units_lose_only_what_qemu_cannot_set_up(tmp_path) -> None:
    trixie = a_root(tmp_path / "t", "[Service]\nImportCredential=journal.*\n")
    systest.furnish(trixie, "[global]\n", [], emulated=True)
    assert settings(trixie, "systemd-journald.service") == ["ImportCredential="]
    assert settings(trixie, "trap-companion-phones.service") == ["PrivateIPC=no", "PrivateUsers=no"]
    assert settings(trixie, "trap-companion.service") == ["PrivateNetwork=no", "PrivateIPC=no"]
    # Debian 12's journald imports none: no drop-in for it.
    bookworm = a_root(tmp_path / "b", "[Service]\n")
    systest.furnish(bookworm, "[global]\n", [], emulated=True)
    assert not (bookworm / "etc/systemd/system/systemd-journald.service.d").exists()
    assert settings(bookworm, "trap-companion-phones.service") == [
        "PrivateIPC=no",
        "PrivateUsers=no",
    ]
    # Natively: none.
    native = a_root(tmp_path / "n", "[Service]\nImportCredential=journal.*\n")
    systest.furnish(native, "[global]\n", [])
    assert not (native / "etc/systemd/system").exists()
