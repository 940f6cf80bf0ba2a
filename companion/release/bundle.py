"""A release bundle: one tar file that installs the box with no network (issue 34).

Stdlib only, and free of the rest of the package: it runs under the system python3 before any
venv exists (``systemd/install.sh --bundle``, also as a plain script from a bundle's own
installer/ folder) as well as from ``trap-companion update``.

The file (RELEASE-CONTRACT.md): an uncompressed tar holding manifest.json and the files it lists
with their sha256: wheels/*.whl (the program's own wheel and every library not taken from
Debian's apt) and installer/ (the installer and what it lays out: units, boot fragments, the
guide). Nothing in it is trusted before every file has been checked against the manifest, and
nothing under /opt is touched before that.

A release is built at its final path, /opt/trap-companion/releases/<version> (a venv cannot be
moved), and counts only once its RELEASE.json is there: written last, by rename. `current` names
the release the units run, and is replaced by rename, so a power cut leaves the old or the new.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

log = logging.getLogger(__name__)

FORMAT = 1
NAME = "trap-companion"
MANIFEST = "manifest.json"
RELEASE_FILE = "RELEASE.json"
DEFAULT_OPT = Path("/opt/trap-companion")
# Debian's name for an architecture -> what `uname -m` says there.
MACHINES = {"arm64": ("aarch64", "arm64"), "armhf": ("armv7l", "armv8l", "armv6l"),
            "amd64": ("x86_64",)}  # fmt: skip
# Exit statuses of the command line (install.sh passes them on).
EXIT_BAD_BUNDLE = 65  # EX_DATAERR: a changed, missing or unlisted file; not a bundle
EXIT_WRONG_BOX = 66  # the bundle is for another architecture or Python
EXIT_INSTALL_FAILED = 70  # EX_SOFTWARE: the venv or pip failed (the release stays unfinished)
EXIT_NO_SPACE = 73  # EX_CANTCREAT: not enough free space for the release
VERSION = re.compile(r"^[0-9][0-9A-Za-z.+!_-]*$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")
CHUNK = 1 << 20


class BundleError(Exception):
    """The bundle cannot be trusted; one line that names the file (and what is wrong)."""

    status = EXIT_BAD_BUNDLE


class WrongBox(BundleError):
    """A sound bundle, for another architecture or Python than this box's."""

    status = EXIT_WRONG_BOX


class InstallError(Exception):
    """Building the release failed; it is left unfinished (no RELEASE.json), never switched to."""

    def __init__(self, message: str, status: int = EXIT_INSTALL_FAILED) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Manifest:
    version: str
    arch: str
    python: str  # "3.11"
    files: dict[str, str]  # relative path -> sha256 hex
    extras: tuple[str, ...] = ("web",)  # the program's extras to install (pyproject)
    apt: tuple[str, ...] = ()  # Debian's packages the release takes from apt
    sha256: str = ""  # of the whole bundle file (check_bundle fills it in)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def wheels(self) -> list[str]:
        return sorted(p for p in self.files if p.startswith("wheels/") and p.endswith(".whl"))

    def to_json(self) -> str:
        data = {
            "format": FORMAT,
            "name": NAME,
            "version": self.version,
            "arch": self.arch,
            "python": self.python,
            "extras": list(self.extras),
            "apt": list(self.apt),
            "files": dict(sorted(self.files.items())),
        }
        return json.dumps(data, indent=2) + "\n"


def bundle_name(version: str, arch: str, python: str) -> str:
    """trap-companion-<version>-<arch>-py<XY>.tar"""
    return f"{NAME}-{version}-{arch}-py{python.replace('.', '')}.tar"


def own_wheel_prefix(version: str) -> str:
    """The start of the program's wheel name (PEP 427 escapes '-' in the name as '_')."""
    return f"wheels/{NAME.replace('-', '_')}-{version}-"


def _safe_path(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts and "\\" not in name


def parse_manifest(data: bytes, where: str = MANIFEST) -> Manifest:
    """manifest.json's bytes as a Manifest; BundleError naming what is wrong with it."""
    try:
        raw = json.loads(data.decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BundleError(f"{where}: not JSON ({err})") from err
    if not isinstance(raw, dict):
        raise BundleError(f"{where}: not a JSON object")
    if raw.get("format") != FORMAT:
        raise BundleError(
            f"{where}: format {raw.get('format')!r}, this installer reads format {FORMAT} "
            "(a newer bundle needs a newer installer)"
        )
    if raw.get("name") != NAME:
        raise BundleError(f"{where}: a bundle of {raw.get('name')!r}, not {NAME}")
    for key in ("version", "arch", "python"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise BundleError(f"{where}: no {key}")
    if not VERSION.match(raw["version"]):
        raise BundleError(f"{where}: version {raw['version']!r} is not a version")
    if raw["arch"] not in MACHINES:
        raise BundleError(f"{where}: arch {raw['arch']!r} is not one of {', '.join(MACHINES)}")
    if not re.match(r"^3\.\d+$", raw["python"]):
        raise BundleError(f"{where}: python {raw['python']!r} is not like 3.11")
    files = raw.get("files")
    if not isinstance(files, dict) or not files:
        raise BundleError(f"{where}: no files")
    for name, digest in files.items():
        if not _safe_path(name) or name == MANIFEST:
            raise BundleError(f"{where}: a file outside the bundle: {name!r}")
        if not isinstance(digest, str) or not SHA256.match(digest):
            raise BundleError(f"{where}: {name}: {digest!r} is not a sha256")
    lists = {}
    for key in ("extras", "apt"):
        value = raw.get(key, [] if key == "apt" else ["web"])
        if not isinstance(value, list) or not all(
            isinstance(v, str) and re.match(r"^[a-z0-9][a-z0-9.+-]*$", v) for v in value
        ):
            raise BundleError(f"{where}: {key} must be a list of names")
        lists[key] = tuple(value)
    manifest = Manifest(
        raw["version"], raw["arch"], raw["python"], dict(files), lists["extras"], lists["apt"],
        raw=raw,
    )  # fmt: skip
    if not any(w.startswith(own_wheel_prefix(manifest.version)) for w in manifest.wheels):
        raise BundleError(
            f"{where}: lists no {own_wheel_prefix(manifest.version)}*.whl (the program itself)"
        )
    return manifest


def _hash_stream(stream: IO[bytes], sink: IO[bytes] | None = None) -> str:
    digest = hashlib.sha256()
    while chunk := stream.read(CHUNK):
        digest.update(chunk)
        if sink is not None:
            sink.write(chunk)
    return digest.hexdigest()


def _open_tar(path: Path) -> tarfile.TarFile:
    if not path.is_file():
        raise BundleError(f"{path}: no such file")
    try:
        return tarfile.open(path, "r:")  # uncompressed only, as the contract says
    except (tarfile.TarError, OSError) as err:
        raise BundleError(f"{path}: not a bundle (not an uncompressed tar file: {err})") from err


def _members(tar: tarfile.TarFile, path: Path) -> Iterator[tarfile.TarInfo]:
    """Every member, refusing what a bundle never holds (links, devices, paths outside)."""
    seen: set[str] = set()
    for member in tar:
        name = member.name.removeprefix("./")
        if member.isdir():
            if not _safe_path(name.rstrip("/") or "x"):
                raise BundleError(f"{path}: {member.name}: a folder outside the bundle")
            continue
        if not member.isfile():
            raise BundleError(f"{path}: {member.name}: not a plain file (a link or a device)")
        if not _safe_path(name):
            raise BundleError(f"{path}: {member.name}: a file outside the bundle")
        if name in seen:
            raise BundleError(f"{path}: {name}: in the bundle twice")
        seen.add(name)
        yield member


@contextlib.contextmanager
def _damaged(path: Path) -> Iterator[None]:
    """A tar that ends early or is garbled inside, in the bundle's words."""
    try:
        yield
    except tarfile.TarError as err:
        raise BundleError(f"{path}: damaged tar file ({err}): copy it again") from err


def check_bundle(path: Path | str) -> Manifest:
    """The bundle's manifest, once every file in it matches: BundleError naming the first file
    that is changed, missing or unlisted (or why the file is no bundle). Reads only."""
    path = Path(path)
    manifest: Manifest | None = None
    found: dict[str, str] = {}
    with _open_tar(path) as tar, _damaged(path):
        for member in _members(tar, path):
            name = member.name.removeprefix("./")
            stream = tar.extractfile(member)
            assert stream is not None  # a regular file
            if name == MANIFEST:
                manifest = parse_manifest(stream.read(), f"{path}: {MANIFEST}")
            else:
                found[name] = _hash_stream(stream)
    if manifest is None:
        raise BundleError(f"{path}: no {MANIFEST} (not a {NAME} bundle)")
    for name, digest in sorted(found.items()):
        if name not in manifest.files:
            raise BundleError(f"{path}: {name}: a file the manifest does not list")
        if digest != manifest.files[name]:
            raise BundleError(f"{path}: {name}: changed (its sha256 is not the manifest's)")
    for name in sorted(manifest.files):
        if name not in found:
            raise BundleError(f"{path}: {name}: missing (the manifest lists it)")
    with path.open("rb") as whole:
        total = _hash_stream(whole)
    return Manifest(
        manifest.version, manifest.arch, manifest.python, manifest.files, manifest.extras,
        manifest.apt, total, manifest.raw,
    )  # fmt: skip


def extract(path: Path, manifest: Manifest, dest: Path, prefix: str = "") -> list[Path]:
    """The bundle's files under PREFIX (all: "") into DEST, each checked again as it is written
    (the file may have changed since check_bundle read it)."""
    written = []
    with _open_tar(path) as tar, _damaged(path):
        for member in _members(tar, path):
            name = member.name.removeprefix("./")
            if name == MANIFEST or not name.startswith(prefix):
                continue
            if name not in manifest.files:
                raise BundleError(f"{path}: {name}: a file the manifest does not list")
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            stream = tar.extractfile(member)
            assert stream is not None
            with target.open("wb") as out:
                digest = _hash_stream(stream, out)
            if digest != manifest.files[name]:
                raise BundleError(f"{path}: {name}: changed while it was being read")
            if member.mode & 0o111:
                target.chmod(0o755)
            written.append(target)
    return written


# --- this box --------------------------------------------------------------------------------


def box_python(python: str) -> tuple[str, str]:
    """(Python "3.11", machine "aarch64") of the interpreter the venv is made from."""
    if python in (sys.executable, "") or Path(python).resolve() == Path(sys.executable).resolve():
        return f"{sys.version_info[0]}.{sys.version_info[1]}", platform.machine()
    proc = subprocess.run(
        [python, "-c", "import platform, sys; print('%d.%d' % sys.version_info[:2]); "
         "print(platform.machine())"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if proc.returncode != 0:
        raise InstallError(f"{python} does not run: {proc.stderr.strip()}")
    version, machine = proc.stdout.split()
    return version, machine


def check_fits(manifest: Manifest, python: str) -> None:
    """WrongBox unless this box has the bundle's architecture and Python."""
    version, machine = box_python(python)
    arch = next((a for a, names in MACHINES.items() if machine in names), machine)
    if (arch, version) != (manifest.arch, manifest.python):
        raise WrongBox(
            f"this bundle is for {manifest.arch} with Python {manifest.python}; this box is "
            f"{arch} with Python {version}: take {bundle_name(manifest.version, arch, version)}"
        )


def read_release(directory: Path) -> dict[str, Any] | None:
    """A finished release's RELEASE.json; None for an unfinished (or foreign) directory."""
    try:
        data = json.loads((directory / RELEASE_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == directory.name else None


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".new")
    with partial.open("w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    partial.replace(path)
    _fsync_dir(path.parent)


def _linked(opt_dir: Path) -> set[str]:
    """The release names `current` and `previous` point at."""
    names = set()
    for link in ("current", "previous"):
        with contextlib.suppress(OSError):
            names.add(Path(os.readlink(opt_dir / link)).name)
    return names


def remove_unfinished(opt_dir: Path) -> list[str]:
    """Release directories without RELEASE.json (an install or update cut short) and leftovers
    of unpacking; never one that `current` or `previous` names."""
    releases = opt_dir / "releases"
    removed = []
    if not releases.is_dir():
        return removed
    keep = _linked(opt_dir)
    for entry in sorted(releases.iterdir()):
        if entry.name in keep or (entry.is_dir() and read_release(entry) is not None):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
        removed.append(entry.name)
    return removed


def _run(cmd: list[str], what: str, timeout: float = 3600) -> None:
    log.debug("%s: %s", what, " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        said = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()][-4:]
        raise InstallError(f"{what} failed (exit {proc.returncode}): {' | '.join(said)}")


def _needed_bytes(path: Path) -> int:
    """Room a release takes: the wheels unpacked (about twice their size) and the copy."""
    return path.stat().st_size * 4


def install_release(
    bundle_path: Path | str, opt_dir: Path = DEFAULT_OPT, python: str = "python3"
) -> Path:
    """Build releases/<version> from the bundle (checked first) and return it; do not switch.
    A finished release of that version is reused; unfinished ones are removed first."""
    bundle_path = Path(bundle_path)
    manifest = check_bundle(bundle_path)
    check_fits(manifest, python)
    releases = opt_dir / "releases"
    target = releases / manifest.version
    finished = read_release(target)
    if finished is not None:
        log.info("release %s is already installed in %s: reused", manifest.version, target)
        return target
    releases.mkdir(parents=True, exist_ok=True)
    releases.chmod(0o755)
    for name in remove_unfinished(opt_dir):
        log.info("removed the unfinished release %s", name)
    if target.exists():  # unfinished, and named by a link: unusable all the same
        shutil.rmtree(target)
    free = shutil.disk_usage(releases).free
    if free < _needed_bytes(bundle_path):
        raise InstallError(
            f"{releases}: {free // 2**20} MiB free, the release needs about "
            f"{_needed_bytes(bundle_path) // 2**20} MiB",
            EXIT_NO_SPACE,
        )
    unpack = Path(tempfile.mkdtemp(prefix=".unpack-", dir=releases))
    umask = os.umask(0o022)  # the venv readable by the service user, whoever calls this
    try:
        extract(bundle_path, manifest, unpack, "wheels/")
        target.mkdir()
        target.chmod(0o755)  # the service user reads it, whatever the caller's umask
        _build_venv(target, unpack / "wheels", manifest, python)
        firmware = unpack / "firmware"
        extract(bundle_path, manifest, firmware, "installer/firmware/")
        share = target / "venv" / "share" / NAME / "firmware"
        share.mkdir(parents=True, exist_ok=True)
        for source in sorted((firmware / "installer" / "firmware").glob("*")):
            shutil.copyfile(source, share / source.name)
        record = {
            "format": FORMAT,
            "version": manifest.version,
            "arch": manifest.arch,
            "python": manifest.python,
            "bundle_sha256": manifest.sha256,
            "installed_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
        _fsync_tree(target)
        _write_atomically(target / RELEASE_FILE, json.dumps(record, indent=2) + "\n")
    except subprocess.TimeoutExpired as err:
        raise InstallError(f"building release {manifest.version} took too long: {err}") from err
    finally:
        os.umask(umask)
        shutil.rmtree(unpack, ignore_errors=True)
    log.info("release %s built in %s", manifest.version, target)
    return target


def _build_venv(target: Path, wheels: Path, manifest: Manifest, python: str) -> None:
    """The release's venv from the bundle's wheels only (--no-index: no network). pip itself
    comes from the bundle when it holds pip's wheel (python3-venv is then not needed)."""
    venv = target / "venv"
    pip_wheel = sorted(wheels.glob("pip-*.whl"))
    extras = f"[{','.join(manifest.extras)}]" if manifest.extras else ""
    wanted = [f"{NAME}{extras}=={manifest.version}"]
    # --isolated: no pip.conf, no PIP_* variables: the bundle's wheels and nothing else.
    flags = [
        "--isolated",
        "install", "--quiet", "--no-index", "--find-links", str(wheels), "--no-cache-dir",
        "--disable-pip-version-check", "--no-warn-script-location",
    ]  # fmt: skip
    venv_python = str(venv / "bin" / "python")
    if pip_wheel:
        _run([python, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], "venv")
        # pip runs from its own wheel (a zip on sys.path) and installs itself into the venv.
        _run([venv_python, f"{pip_wheel[0]}/pip", *flags, "pip", *wanted], "pip install")
    else:
        _run([python, "-m", "venv", "--system-site-packages", str(venv)], "venv (ensurepip)")
        _run([venv_python, "-m", "pip", *flags, *wanted], "pip install")
    _run([venv_python, "-c", "import companion.cli"], "the program's import")
    log.info(
        "%s: a venv with %d wheels of the bundle (pip --no-index), the program imports",
        target.name, len(list(wheels.glob("*.whl"))),
    )  # fmt: skip


def _fsync_tree(root: Path) -> None:
    """Every file and folder of the release on disk before RELEASE.json says it is whole."""
    for folder, _, files in os.walk(root):
        for name in files:
            file = Path(folder) / name
            if file.is_symlink():
                continue
            with contextlib.suppress(OSError):
                fd = os.open(file, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        _fsync_dir(Path(folder))


def switch_current(opt_dir: Path, version: str) -> None:
    """Point `current` at releases/<version>, atomically: a new link renamed over the old one,
    the directory synced. Only a finished release can be switched to."""
    target = opt_dir / "releases" / version
    if read_release(target) is None:
        raise InstallError(f"{target} is not a finished release (no {RELEASE_FILE})")
    link = opt_dir / "current"
    fresh = opt_dir / "current.new"
    with contextlib.suppress(FileNotFoundError):
        fresh.unlink()
    os.symlink(f"releases/{version}", fresh)
    if link.exists() and not link.is_symlink():
        raise InstallError(f"{link} is a directory, not the link this layout keeps")
    fresh.replace(link)
    _fsync_dir(opt_dir)
    log.info("%s -> releases/%s", link, version)


def current_version(opt_dir: Path = DEFAULT_OPT) -> str | None:
    with contextlib.suppress(OSError):
        return Path(os.readlink(opt_dir / "current")).name
    return None


# --- the command line (install.sh) -----------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """python3 bundle.py check FILE | field FILE KEY | install FILE [--opt DIR] [--python P]
    [--switch]. One line on stderr and a distinct status when the bundle is refused."""
    import argparse

    parser = argparse.ArgumentParser(prog="bundle.py", description=main.__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check a bundle; print its version")
    check.add_argument("bundle", type=Path)
    check.add_argument("--python", help="and that it is for this CPU and this interpreter")
    get = sub.add_parser("field", help="a manifest field (version, arch, python, apt, extras)")
    get.add_argument("bundle", type=Path)
    get.add_argument("key", choices=["version", "arch", "python", "apt", "extras", "sha256"])
    unpack = sub.add_parser("extract", help="a checked bundle's files under a prefix into DIR")
    unpack.add_argument("bundle", type=Path)
    unpack.add_argument("prefix")
    unpack.add_argument("dest", type=Path)
    inst = sub.add_parser("install", help="build releases/<version> (and switch with --switch)")
    inst.add_argument("bundle", type=Path)
    inst.add_argument("--opt", type=Path, default=DEFAULT_OPT)
    inst.add_argument("--python", default="python3")
    inst.add_argument("--switch", action="store_true", help="then point current at it")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    try:
        if args.command == "check":
            manifest = check_bundle(args.bundle)
            if args.python:
                check_fits(manifest, args.python)
            print(manifest.version)
        elif args.command == "field":
            manifest = check_bundle(args.bundle)
            value = getattr(manifest, args.key)
            print(" ".join(value) if isinstance(value, tuple) else value)
        elif args.command == "extract":
            manifest = check_bundle(args.bundle)
            extract(args.bundle, manifest, args.dest, args.prefix)
        else:
            release = install_release(args.bundle, args.opt, args.python)
            if args.switch:
                switch_current(args.opt, release.name)
    except BundleError as err:
        print(f"bundle refused: {err}", file=sys.stderr)
        return err.status
    except InstallError as err:
        print(f"install failed: {err}", file=sys.stderr)
        return err.status
    return 0


if __name__ == "__main__":
    sys.exit(main())
