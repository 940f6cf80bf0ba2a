"""companion/release/bundle.py: a bundle is checked whole before anything is touched, and a
release is built at its final path and switched to by rename (issue 34 points 1 and 2).

The bundles here are tiny and made on the spot: a hand-made wheel of a fake `trap-companion`
(two modules, no dependencies) and pip's own wheel, so install_release runs natively in seconds.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import platform
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from companion.release import bundle

VERSION = "0.0.1+gtest"
ARCH = next(a for a, names in bundle.MACHINES.items() if platform.machine() in names)
PY = f"{sys.version_info[0]}.{sys.version_info[1]}"
BUNDLE_PY = Path(bundle.__file__)


def fake_wheel(version: str = VERSION) -> tuple[str, bytes]:
    """A wheel of a program named trap-companion whose `companion.cli` imports."""
    dist = f"trap_companion-{version}"
    files = {
        "companion/__init__.py": b"",
        "companion/cli.py": f"VERSION = {version!r}\n".encode(),
        f"{dist}.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: trap-companion\nVersion: {version}\n"
        ).encode(),
        f"{dist}.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist}.dist-info/RECORD,,")
    files[f"{dist}.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as whl:
        for name, data in files.items():
            whl.writestr(name, data)
    return f"{dist}-py3-none-any.whl", out.getvalue()


def pip_wheel() -> tuple[str, bytes] | None:
    """pip's wheel as ensurepip ships it, so the venv is made --without-pip, as on a Pi."""
    import ensurepip

    bundled = Path(ensurepip.__file__).parent / "_bundled"
    found = sorted(bundled.glob("pip-*.whl"))
    return (found[-1].name, found[-1].read_bytes()) if found else None


def make_bundle(
    where: Path,
    *,
    version: str = VERSION,
    arch: str = ARCH,
    python: str = PY,
    extra: dict[str, bytes] | None = None,
    unlisted: dict[str, bytes] | None = None,
    drop: tuple[str, ...] = (),
    change: dict[str, bytes] | None = None,
) -> Path:
    """A bundle file: manifest.json and its files; then files added, dropped or changed
    behind the manifest's back."""
    name, data = fake_wheel(version)
    files = {f"wheels/{name}": data, "installer/firmware/models.toml": b"[models.pi4]\n"}
    pip = pip_wheel()
    if pip:
        files[f"wheels/{pip[0]}"] = pip[1]
    files.update(extra or {})
    manifest = bundle.Manifest(
        version, arch, python, {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}, ()
    )
    files.update(unlisted or {})
    files.update(change or {})
    for gone in drop:
        files.pop(gone)
    path = where / bundle.bundle_name(version, arch, python)
    with tarfile.open(path, "w") as tar:
        for member, body in [(bundle.MANIFEST, manifest.to_json().encode()), *files.items()]:
            info = tarfile.TarInfo(member)
            info.size = len(body)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(body))
    return path


def refused(path: Path) -> str:
    with pytest.raises(bundle.BundleError) as caught:
        bundle.check_bundle(path)
    return str(caught.value)


def test_a_sound_bundle_gives_its_manifest(tmp_path: Path) -> None:
    path = make_bundle(tmp_path)
    manifest = bundle.check_bundle(path)
    assert (manifest.version, manifest.arch, manifest.python) == (VERSION, ARCH, PY)
    assert manifest.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert path.name == f"trap-companion-{VERSION}-{ARCH}-py{PY.replace('.', '')}.tar"


def test_a_changed_file_is_named(tmp_path: Path) -> None:
    name = f"wheels/{fake_wheel()[0]}"
    said = refused(make_bundle(tmp_path, change={name: b"not the wheel"}))
    assert name in said and "changed" in said


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    said = refused(make_bundle(tmp_path, drop=("installer/firmware/models.toml",)))
    assert "installer/firmware/models.toml: missing" in said


def test_an_unlisted_file_is_named(tmp_path: Path) -> None:
    said = refused(make_bundle(tmp_path, unlisted={"wheels/evil-1.0-py3-none-any.whl": b"x"}))
    assert "wheels/evil-1.0-py3-none-any.whl: a file the manifest does not list" in said


def test_a_bundle_without_the_program_is_refused(tmp_path: Path) -> None:
    path = make_bundle(tmp_path, drop=(f"wheels/{fake_wheel()[0]}",))
    assert "missing" in refused(path)


@pytest.mark.parametrize(
    ("member", "why"),
    [("../etc/passwd", "outside the bundle"), ("/etc/passwd", "outside the bundle")],
)
def test_paths_outside_the_bundle_are_refused(tmp_path: Path, member: str, why: str) -> None:
    path = make_bundle(tmp_path, unlisted={member: b"root::0:0"})
    assert why in refused(path)


def test_a_link_in_the_bundle_is_refused(tmp_path: Path) -> None:
    path = make_bundle(tmp_path)
    with tarfile.open(path, "a") as tar:
        info = tarfile.TarInfo("wheels/link.whl")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/shadow"
        tar.addfile(info)
    assert "not a plain file" in refused(path)


def test_a_truncated_or_foreign_file_is_no_bundle(tmp_path: Path) -> None:
    path = make_bundle(tmp_path)
    with tarfile.open(path) as tar:
        last = tar.getmembers()[-1]
    # Cut inside the last member's header and inside its bytes: half the file may be only the
    # tar's zero padding when the bundle is small (Debian's Python ships no pip wheel to add).
    for size in (last.offset + 100, last.offset_data + last.size // 2):
        cut = tmp_path / "cut.tar"
        cut.write_bytes(path.read_bytes()[:size])
        assert refused(cut).startswith(f"{cut}: "), size
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert "not a bundle" in refused(text) or "no manifest.json" in refused(text)
    assert "no such file" in refused(tmp_path / "absent.tar")


def test_a_manifest_of_a_newer_format_is_refused_by_name(tmp_path: Path) -> None:
    raw = json.loads(bundle.Manifest(VERSION, ARCH, PY, {"a": "0" * 64}).to_json())
    raw["format"] = 2
    with pytest.raises(bundle.BundleError, match="format 2, this installer reads format 1"):
        bundle.parse_manifest(json.dumps(raw).encode())


def test_the_command_line_refuses_a_tampered_bundle_with_its_own_status(tmp_path: Path) -> None:
    name = f"wheels/{fake_wheel()[0]}"
    path = make_bundle(tmp_path, change={name: b"tampered"})
    opt = tmp_path / "opt"
    proc = subprocess.run(
        [sys.executable, str(BUNDLE_PY), "install", str(path), "--opt", str(opt), "--switch"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == bundle.EXIT_BAD_BUNDLE == 65
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and name in lines[0]
    assert not opt.exists()  # nothing touched


def test_a_bundle_for_another_box_is_refused_before_anything_is_touched(tmp_path: Path) -> None:
    other = "armhf" if ARCH != "armhf" else "arm64"
    path = make_bundle(tmp_path, arch=other)
    opt = tmp_path / "opt"
    with pytest.raises(bundle.WrongBox, match=f"this bundle is for {other}"):
        bundle.install_release(path, opt, sys.executable)
    assert not opt.exists()


def test_install_release_builds_a_finished_release_and_switch_points_current_at_it(
    tmp_path: Path,
) -> None:
    opt = tmp_path / "opt"
    path = make_bundle(tmp_path)
    release = bundle.install_release(path, opt, sys.executable)
    assert release == opt / "releases" / VERSION
    record = json.loads((release / "RELEASE.json").read_text())
    assert record["version"] == VERSION and record["format"] == 1
    assert record["bundle_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (record["arch"], record["python"]) == (ARCH, PY)
    python = release / "venv" / "bin" / "python"
    said = subprocess.run(
        [str(python), "-c", "import companion.cli as c, pip; print(c.VERSION)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert said.stdout.strip() == VERSION, said.stderr
    share = release / "venv" / "share" / "trap-companion" / "firmware" / "models.toml"
    assert share.read_text() == "[models.pi4]\n"
    assert not (opt / "current").exists()  # install does not switch
    bundle.switch_current(opt, VERSION)
    assert os.readlink(opt / "current") == f"releases/{VERSION}"
    assert bundle.current_version(opt) == VERSION
    assert not list((opt / "releases").glob(".unpack-*"))
    # Again: the finished release is reused, not rebuilt.
    mtime = (release / "RELEASE.json").stat().st_mtime_ns
    assert bundle.install_release(path, opt, sys.executable) == release
    assert (release / "RELEASE.json").stat().st_mtime_ns == mtime


def test_an_unfinished_release_is_removed_and_never_switched_to(tmp_path: Path) -> None:
    opt = tmp_path / "opt"
    cut_short = opt / "releases" / "0.0.0+gcut"
    (cut_short / "venv").mkdir(parents=True)
    with pytest.raises(bundle.InstallError, match="not a finished release"):
        bundle.switch_current(opt, "0.0.0+gcut")
    assert not (opt / "current").exists()
    assert bundle.remove_unfinished(opt) == ["0.0.0+gcut"]
    assert not cut_short.exists()


def test_the_release_current_names_is_never_removed(tmp_path: Path) -> None:
    opt = tmp_path / "opt"
    (opt / "releases" / "0.0.0+gold").mkdir(parents=True)
    os.symlink("releases/0.0.0+gold", opt / "current")
    assert bundle.remove_unfinished(opt) == []
    assert (opt / "releases" / "0.0.0+gold").is_dir()


def test_a_failed_pip_leaves_the_release_unfinished(tmp_path: Path) -> None:
    opt = tmp_path / "opt"
    name = fake_wheel()[0]
    path = make_bundle(tmp_path, extra={f"wheels/{name}": b"PK not a zip"})
    with pytest.raises(bundle.InstallError, match="pip install failed"):
        bundle.install_release(path, opt, sys.executable)
    assert not (opt / "releases" / VERSION / "RELEASE.json").exists()
    with pytest.raises(bundle.InstallError):
        bundle.switch_current(opt, VERSION)


INSTALL_SH = Path(__file__).resolve().parents[1] / "systemd" / "install.sh"


def install_sh(*args: str, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHON": python}
    return subprocess.run(
        ["bash", str(INSTALL_SH), *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.parametrize("damage", ["changed", "missing", "unlisted"])
def test_install_sh_refuses_a_damaged_bundle_before_laying_out_anything(
    tmp_path: Path, damage: str
) -> None:
    name = f"wheels/{fake_wheel()[0]}"
    path = make_bundle(
        tmp_path,
        change={name: b"x"} if damage == "changed" else None,
        drop=(name,) if damage == "missing" else (),
        unlisted={"wheels/x.whl": b"x"} if damage == "unlisted" else None,
    )
    root = tmp_path / "root"
    proc = install_sh("--root", str(root), "--bundle", str(path))
    assert proc.returncode == bundle.EXIT_BAD_BUNDLE, proc.stderr
    assert proc.stderr.count("\n") == 1 and "wheels/" in proc.stderr
    assert list(root.rglob("*")) == []  # the folder --root names, and nothing in it


def test_install_sh_names_a_bundle_that_is_not_there(tmp_path: Path) -> None:
    proc = install_sh("--root", str(tmp_path / "root"), "--bundle", str(tmp_path / "no.tar"))
    assert proc.returncode == 1
    assert f"--bundle {tmp_path / 'no.tar'}: no such file" in proc.stderr
