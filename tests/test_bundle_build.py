"""tools/bundle/build.py's pure parts: the version a bundle gets, what pip is asked for, the
owner's bootstrap script, and a bundle's bytes (no network: pip is not run here)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "bundle"))

import build  # noqa: E402

from companion.release import bundle  # noqa: E402


def git_repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:  # pitest's emulated roots: the project copied, not cloned
        pytest.skip("needs git to make a checkout, and this machine has none")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0.3.1"\n')
    (repo / "a.py").write_text("A = 1\n")
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], [*env, "commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    return repo


def test_a_clean_checkout_is_its_commit_and_a_changed_one_its_own_release(
    tmp_path: Path,
) -> None:
    repo = git_repo(tmp_path)
    head = subprocess.run(
        ["git", "rev-parse", "--short=8", "HEAD"], cwd=repo, capture_output=True, text=True
    ).stdout.strip()
    clean = build.version(repo, build.source_files(repo))
    assert clean == f"0.3.1+g{head}"
    (repo / "a.py").write_text("A = 2\n")
    dirty = build.version(repo, build.source_files(repo))
    assert dirty.startswith(f"0.3.1+g{head}.d") and dirty != clean
    assert build.version(repo, build.source_files(repo)) == dirty  # the same edit, the same
    (repo / "a.py").write_text("A = 3\n")
    assert build.version(repo, build.source_files(repo)) != dirty
    assert bundle.VERSION.match(dirty)


def test_without_git_the_version_is_the_files_hash(tmp_path: Path) -> None:
    repo = tmp_path / "plain"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nversion = "0.3.1"\n')
    files = build.source_files(repo)
    assert files == ["pyproject.toml"]
    assert build.version(repo, files).startswith("0.3.1+s")


def test_the_source_copy_says_the_release_version(tmp_path: Path) -> None:
    repo = git_repo(tmp_path)
    copy = build.stamped_source(repo, ["pyproject.toml", "a.py"], tmp_path / "src", "0.3.1+gabc")
    assert 'version = "0.3.1+gabc"' in (copy / "pyproject.toml").read_text()
    assert 'version = "0.3.1"\n' in (repo / "pyproject.toml").read_text()


def test_the_pi_extra_is_asked_for_whatever_machine_builds_it() -> None:
    wanted = build.requirements(ROOT, ["web", "pi"])
    assert "lgpio>=0.2" in wanted  # its marker holds on the Pi, not on the build machine
    assert any(r.startswith("aiohttp") for r in wanted)
    assert not any("trap-companion" in r for r in wanted)


@pytest.mark.parametrize(("arch", "machine"), [("arm64", "aarch64"), ("armhf", "armv7l")])
def test_pip_is_asked_for_the_targets_wheels_only(arch: str, machine: str) -> None:
    args = build.target_args(arch, "3.13")
    assert "--only-binary=:all:" in args
    assert args[args.index("--python-version") + 1] == "3.13"
    assert "cp313" in args
    platforms = [args[i + 1] for i, a in enumerate(args) if a == "--platform"]
    assert f"manylinux_2_28_{machine}" in platforms and f"linux_{machine}" in platforms
    assert all(p.endswith(machine) for p in platforms)


def test_the_bootstrap_is_valid_sh_and_says_how_to_run_it(tmp_path: Path) -> None:
    script = tmp_path / "install.sh"
    script.write_text(build.BOOTSTRAP)
    assert subprocess.run(["sh", "-n", str(script)]).returncode == 0
    proc = subprocess.run(["sh", str(script)], capture_output=True, text=True)
    assert proc.returncode == 2 and "tar -xOf BUNDLE.tar install.sh | sudo sh -s" in proc.stderr
    proc = subprocess.run(["sh", str(script), str(tmp_path / "no.tar")], capture_output=True)
    assert proc.returncode == 66


def test_the_bootstrap_takes_the_newest_of_several_bundles_and_says_so(tmp_path: Path) -> None:
    """The guide's glob in a folder with two bundles (issue 45 point 4): the newest version is
    installed, named; before, the second file went to install.sh as an unknown argument."""
    script = tmp_path / "install.sh"
    script.write_text(build.BOOTSTRAP)
    old = tmp_path / "trap-companion-0.9.0+gaaaa-arm64-py311.tar"
    new = tmp_path / "trap-companion-0.10.0+gbbbb-arm64-py311.tar"
    for path in (old, new):
        path.write_bytes(b"not really a bundle")
    proc = subprocess.run(
        ["sh", str(script), str(new), str(old)], capture_output=True, text=True, cwd=tmp_path
    )
    said = proc.stderr
    assert f"2 bundles given ({new} {old}): installing the newest, {new}" in said
    if proc.returncode != 1:  # as root: the newest is the one opened (and refused: no bundle)
        assert proc.returncode == 65 and f"install.sh: {new}: damaged" in said


def test_a_bundle_file_is_the_same_bytes_for_the_same_contents(tmp_path: Path) -> None:
    wheel = tmp_path / "trap_companion-0.3.1+gabc-py3-none-any.whl"
    wheel.write_bytes(b"wheel")
    members: dict[str, Path | bytes] = {f"wheels/{wheel.name}": wheel, "install.sh": b"#!/bin/sh\n"}
    digests = {
        n: hashlib.sha256(b if isinstance(b, bytes) else b.read_bytes()).hexdigest()
        for n, b in members.items()
    }
    manifest = bundle.Manifest("0.3.1+gabc", "arm64", "3.11", digests, ("web",))
    first, second = tmp_path / "one.tar", tmp_path / "two.tar"
    build.write_tar(first, members, manifest)
    build.write_tar(second, members, manifest)
    assert first.read_bytes() == second.read_bytes()
    assert bundle.check_bundle(first).version == "0.3.1+gabc"
    with tarfile.open(first) as tar:
        assert tar.getnames()[0] == "manifest.json"
        assert tar.getmember("install.sh").mode == 0o755


@pytest.mark.parametrize(
    ("wheel", "swig", "extras", "apt"),
    [
        (True, False, ["web", "pi"], []),  # Debian 12's 3.11: PyPI's wheel
        (False, True, ["web", "pi"], []),  # no wheel, but pip can build it
        (False, False, ["web"], ["python3-lgpio"]),  # Debian 13's 3.13, no swig: apt's
    ],
)
def test_a_pis_own_bundle_takes_lgpio_from_where_it_can_be_had(
    monkeypatch, wheel, swig, extras, apt
) -> None:
    monkeypatch.setattr(build.platform, "machine", lambda: "aarch64")

    def run(cmd, **_):
        if "import lgpio" in cmd:
            return subprocess.CompletedProcess(cmd, 1)
        assert "--only-binary=:all:" in cmd and "lgpio>=0.2" in cmd
        return subprocess.CompletedProcess(cmd, 0 if wheel else 1)

    monkeypatch.setattr(build.subprocess, "run", run)
    monkeypatch.setattr(build.shutil, "which", lambda name: f"/usr/bin/{name}" if swig else None)
    arch, _, got_extras, got_apt = build.native_target()
    assert (arch, got_extras, got_apt) == ("arm64", extras, apt)


@pytest.mark.parametrize(
    ("plain", "extras", "apt"), [(False, [], ["python3-lgpio"]), (True, [], [])]
)
def test_no_lgpio_wheel_takes_debians_or_on_plain_debian_none(
    tmp_path: Path, monkeypatch, plain: bool, extras: list[str], apt: list[str]
) -> None:
    """Python 3.13 on ARM: PyPI has no lgpio wheel. Raspberry Pi OS has python3-lgpio; plain
    Debian (make systest's root) has none, and mock pins need none."""
    asked: list[list[str]] = []

    def pip(cmd, **kwargs):
        asked.append(cmd)
        if len(asked) == 1:
            return subprocess.CompletedProcess(
                cmd, 1, "", "No matching distribution found for lgpio"
            )
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(build, "cache_dir", lambda arch, python: tmp_path / "cache")
    monkeypatch.setattr(build.subprocess, "run", pip)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    got = build.cross_wheels(ROOT, "arm64", "3.13", wheels, emulate=False, plain_debian=plain)
    assert got == (["web", *extras], apt)
    assert "lgpio>=0.2" in asked[0] and "lgpio>=0.2" not in asked[1]  # asked again without it
