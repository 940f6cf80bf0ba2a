#!/usr/bin/env python3
"""`make bundle ARCH=arm64|armhf|amd64 PY=3.11|3.13`: one file that installs the box offline.

Writes dist/trap-companion-<version>-<arch>-py<XY>.tar (RELEASE-CONTRACT.md): the program's own
wheel, every library's wheel for that CPU and Python, pip's wheel (so the Pi needs no
python3-venv), the installer (installer/: systemd/install.sh and what it lays out) and
install.sh, which an owner pipes to a shell, and manifest.json with the sha256 of each.

The libraries come from PyPI as wheels for the target (`pip download --only-binary=:all:
--platform ... --python-version ...`; no root, no emulation). A library published only as
source is built here when it is pure Python (sdnotify). One that needs compiling for the target
and has no wheel there (Pillow on armhf) is built in the emulated root of `make pitest`
(tools/pitest/piroot.py; root) once and kept in ~/.cache/trap-companion/wheels/<arch>-py<XY>/.

What stays with Debian's apt, and why: python3 itself (the venv's interpreter: the Pi's own);
lgpio only where PyPI has no wheel for the Python (3.13: python3-lgpio, named in the manifest's
"apt"). Pillow is the bundle's: bookworm's python3-pil is 9.4, the box needs 10 or later.

--native: for this machine's CPU and Python, with pip resolving as it does here (PIP_* settings
apply: a local wheelhouse with PIP_NO_INDEX=1 builds it offline); what `sudo make install` uses.

The version is pyproject's plus "+g<commit>" (and ".d<hash>" of the changes in a dirty tree),
so every commit's bundle is its own release; the installed program knows it from its metadata.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

sys.path.insert(0, str(REPO / "tools" / "systest"))

import archive  # noqa: E402  (tools/systest/archive.py: one line of what pip says is missing)

from companion.release import bundle  # noqa: E402  (stdlib only: safe before any venv)

PYTHONS = ("3.11", "3.13")
# Debian's architecture -> the manylinux platform tags pip may take for it (glibc 2.36 on
# bookworm, 2.41 on trixie: both run any of these).
PLATFORMS = {
    "arm64": "aarch64",
    "armhf": "armv7l",
    "amd64": "x86_64",
}
GLIBC = (
    "manylinux2014",
    "manylinux_2_17",
    "manylinux_2_28",
    "manylinux_2_31",
    "manylinux_2_34",
    "manylinux_2_36",
)
INSTALLER = (
    "systemd/install.sh",
    "systemd/common.sh",
    "systemd/uninstall.sh",
    "systemd/trap-companion.service",
    "systemd/trap-companion-phones.service",
    "docs/raspberry-pi.md",
    "companion/data/config.example.toml",
    "companion/data/systemd-phones.conf",
    "companion/release/bundle.py",
)
BOOTSTRAP = """#!/bin/sh
# Installs Trap Companion from the bundle this script came in, with no network:
#
#   tar -xOf trap-companion-VERSION-ARCH-pyXY.tar install.sh | sudo sh -s trap-companion-...tar
#
# It unpacks the bundle's installer into a temporary folder, checks the whole bundle against its
# manifest (a changed, missing or unlisted file is refused, naming it, before anything is
# touched) and runs installer/systemd/install.sh --bundle with the other arguments.
set -eu
case ${1:-} in ''|-h|--help)
    echo "usage: tar -xOf BUNDLE.tar install.sh | sudo sh -s BUNDLE.tar [install.sh options]" >&2
    exit 2 ;;
esac
bundle=$1
shift
# The guide's glob names every bundle in the folder (an older one left there too): the newest
# version of them is installed, and said so.
given=$bundle
while [ $# -gt 0 ]; do
    case $1 in *.tar) [ -f "$1" ] || break; given="$given $1"; shift ;; *) break ;; esac
done
if [ "$given" != "$bundle" ]; then
    bundle=$(printf '%s\n' $given | sort -V | tail -n 1)
    echo "install.sh: $(printf '%s\n' $given | wc -l) bundles given ($given):" \
        "installing the newest, $bundle" >&2
fi
[ -f "$bundle" ] || { echo "install.sh: $bundle: no such file" >&2; exit 66; }
case $bundle in /*) ;; *) bundle=$(pwd)/$bundle ;; esac
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run it as root (sudo sh -s ...)" >&2; exit 1; }
command -v python3 >/dev/null || {
    echo "install.sh: needs python3 (Debian: apt-get install python3)" >&2; exit 69; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/trap-companion-installer.XXXXXX")
trap 'rm -rf "$dir"' EXIT
tar -xf "$bundle" -C "$dir" installer/companion/release/bundle.py 2>/dev/null || {
    echo "install.sh: $bundle: damaged (copy it again) or not a trap-companion bundle:" \
        "cannot read installer/companion/release/bundle.py in it" >&2; exit 65; }
# The checked copy of the installer: bundle.py checks every file, then writes them out again.
status=0
python3 "$dir/installer/companion/release/bundle.py" extract "$bundle" installer/ "$dir/checked" \\
    || status=$?
[ "$status" = 0 ] || exit "$status"
bash "$dir/checked/installer/systemd/install.sh" --bundle "$bundle" "$@"
"""


def say(text: str) -> None:
    print(f"bundle: {text}", flush=True)


def run(cmd: list[str], cwd: Path | None = None, timeout: float = 1800) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        said = [
            line
            for line in (proc.stdout + proc.stderr).splitlines()
            if line.strip() and not line.startswith("WARNING: Location ")
        ]
        raise SystemExit(f"bundle: {cmd[2] if len(cmd) > 2 else cmd[0]} failed: {said[-6:]}")
    return proc.stdout


# --- the version and the source --------------------------------------------------------------


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git in REPO (as root in an owner's clone too); status 127 where there is no git."""
    cmd = ["git", "-c", "safe.directory=*", "-C", str(repo), *args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        return subprocess.CompletedProcess(cmd, 127, "", "no git")


def source_files(repo: Path) -> list[str]:
    """The checkout as git sees it (tracked and new files, not ignored ones)."""
    proc = git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if proc.returncode == 0:
        return sorted(f for f in proc.stdout.split("\0") if f and (repo / f).is_file())
    skip = {".git", ".venv", "dist", "__pycache__", ".pytest_cache", ".ruff_cache", "build"}
    return sorted(
        str(p.relative_to(repo))
        for p in repo.rglob("*")
        if p.is_file() and not skip.intersection(p.relative_to(repo).parts)
    )


def version(repo: Path, files: list[str]) -> str:
    """pyproject's version + "+g<commit>", + ".d<hash of the files>" when the tree has changes
    (a developer's `sudo make install` of edited code is a release of its own)."""
    base = tomllib.loads((repo / "pyproject.toml").read_text())["project"]["version"]
    head = git(repo, "rev-parse", "--short=8", "HEAD")
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0" + (repo / name).read_bytes() + b"\0")
    if head.returncode != 0:
        return f"{base}+s{digest.hexdigest()[:8]}"
    local = f"g{head.stdout.strip()}"
    dirty = git(repo, "status", "--porcelain")
    if dirty.stdout.strip():
        local += f".d{digest.hexdigest()[:8]}"
    return f"{base}+{local}"


def stamped_source(repo: Path, files: list[str], to: Path, release: str) -> Path:
    """A copy of the source whose pyproject says the release's version."""
    for name in files:
        target = to / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target)
    pyproject = to / "pyproject.toml"
    text = pyproject.read_text()
    stamped = re.sub(r'(?m)^version = "[^"]*"', f'version = "{release}"', text, count=1)
    pyproject.write_text(stamped)
    return to


# --- the wheels ------------------------------------------------------------------------------


def requirements(repo: Path, extras: list[str]) -> list[str]:
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in extras:
        for req in project["optional-dependencies"][extra]:
            if "trap-companion" in req:
                continue
            # pip download judges a marker by this machine, not the target: the pi extra's
            # "platform_machine == 'aarch64' or ..." holds on the Pi, so it is taken whole.
            wanted.append(req.split(";")[0].strip() if extra == "pi" else req)
    return wanted


def target_args(arch: str, python: str) -> list[str]:
    machine = PLATFORMS[arch]
    xy = python.replace(".", "")
    args = ["--only-binary=:all:", "--python-version", python, "--implementation", "cp",
            "--abi", f"cp{xy}", "--abi", "abi3", "--abi", "none"]  # fmt: skip
    for glibc in GLIBC:
        args += ["--platform", f"{glibc}_{machine}"]
    return [*args, "--platform", f"linux_{machine}"]


def cache_dir(arch: str, python: str) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "trap-companion" / "wheels" / f"{arch}-py{python.replace('.', '')}"


def pure_wheel(name: str, into: Path) -> Path | None:
    """NAME built here as a wheel; kept only if it is pure Python (py3-none-any)."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", tmp,
             name],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        if proc.returncode != 0:
            return None
        built = list(Path(tmp).glob("*.whl"))
        if len(built) != 1 or not built[0].name.endswith("-none-any.whl"):
            return None
        into.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(built[0], into / built[0].name))


def cross_wheels(
    repo: Path, arch: str, python: str, wheels: Path, emulate: bool, plain_debian: bool = False
) -> tuple[list[str], list[str]]:
    """Every library's wheel for ARCH and PYTHON into WHEELS; (extras, apt packages).
    PLAIN_DEBIAN: for a Debian system without Raspberry Pi OS's packages (make systest's emulated
    root): where PyPI has no lgpio wheel, no python3-lgpio from apt either (mock pins only)."""
    extras = ["web", "pi"] if arch in ("arm64", "armhf") else ["web"]
    apt: list[str] = []
    cache = cache_dir(arch, python)
    cache.mkdir(parents=True, exist_ok=True)
    for attempt in range(8):
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
               "--dest", str(wheels), "--find-links", str(cache), *target_args(arch, python),
               "pip", *requirements(repo, extras)]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if proc.returncode == 0:
            for whl in sorted(wheels.glob("*.whl")):  # built under emulation: their libraries
                if "-linux_" not in whl.name:
                    continue
                sidecar = cache / f"{whl.name}.apt"
                if not sidecar.exists():
                    sidecar.write_text("".join(f"{p}\n" for p in wheel_apt(repo, arch, whl)))
                apt += [p for p in sidecar.read_text().split() if p not in apt]
            return extras, apt
        match = re.search(r"No matching distribution found for ([A-Za-z0-9_.-]+)", proc.stderr)
        if not match:
            raise SystemExit(f"bundle: pip download failed: {archive.pip_failure(proc.stderr)}")
        name = match.group(1)
        if name.lower() == "lgpio" and "pi" in extras and plain_debian:
            say(f"no {arch} wheel of lgpio for Python {python} on PyPI, and plain Debian has no "
                "python3-lgpio: a bundle without lgpio (mock pins only)")  # fmt: skip
            extras.remove("pi")
            continue
        if name.lower() == "lgpio" and "pi" in extras:
            # No wheel of lgpio for this Python (3.13): Debian's python3-lgpio, through the
            # venv's --system-site-packages.
            say(f"no {arch} wheel of lgpio for Python {python} on PyPI: python3-lgpio from apt")
            extras.remove("pi")
            apt.append("python3-lgpio")
            continue
        if pure_wheel(name, cache):
            say(f"{name}: published as source only; built here (pure Python), kept in {cache}")
            continue
        if not emulate:
            raise SystemExit(
                f"bundle: PyPI has no {arch} wheel of {name} for Python {python}, and it is not "
                f"pure Python: build it under emulation with BUNDLE_ARGS=--emulate (root; "
                f"about 20 minutes once, then cached in {cache})"
            )
        emulated_wheel(repo, arch, python, name, cache)
        _ = attempt
    raise SystemExit("bundle: too many libraries without a wheel")


def emulated_wheel(repo: Path, arch: str, python: str, name: str, cache: Path) -> None:
    """NAME's wheel built by pip in the emulated root of `make pitest` (its compiler and the
    headers tools/pitest/recipe.toml brings), then kept in CACHE."""
    sys.path.insert(0, str(repo / "tools" / "pitest"))
    import piroot  # the cached emulated root and QEMU's registration

    if python != "3.11":
        raise SystemExit(f"bundle: the emulated root is Debian 12 (Python 3.11), not {python}")
    say(f"building {name} for {arch} in the emulated root (slow: QEMU)")
    print(piroot.ensure_emulation(arch), flush=True)
    logs = piroot.cache_dir(dict(os.environ), arch) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = piroot.systest.Log(logs / f"{time.strftime('%Y%m%d-%H%M%S')}-bundle-{name}.log")
    root = piroot.root(arch, log)
    systest = piroot.systest
    # A cgroup of its own, as systest's containers start from (systest.Container.own_cgroups).
    box = systest.Container(root, f"trap-bundle-{os.getpid()}", log, Path(os.devnull))
    with tempfile.TemporaryDirectory(dir=cache) as out, contextlib.ExitStack() as stack:
        if systest.fs_type(systest.NSPAWN_RUN) != "tmpfs":
            systest.one_run_at_a_time(stack)
            systest.nspawn_tmpfs(stack, log)
        cgroups = box.own_cgroups()
        stack.callback(box._remove_cgroups)
        inner = "/var/tmp/wheels"
        proc = subprocess.run(
            ["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--as-pid2",
             f"--directory={root}", "--volatile=overlay", f"--bind={out}:{inner}",
             f"--setenv=PATH={systest.PATH}", f"--bind-ro={systest.CA_BUNDLE}",
             f"--setenv=PIP_CERT={systest.CA_BUNDLE}",  # the host's CAs: pip reaches what it does
             "python3", "-m", "pip", "wheel", "--no-deps", "--wheel-dir", inner, name],
            capture_output=True, text=True, timeout=7200, stdin=subprocess.DEVNULL,
            preexec_fn=in_cgroups(cgroups),
        )  # fmt: skip
        log.write(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            raise SystemExit(f"bundle: building {name} under emulation failed; log {log.path}")
        for whl in Path(out).glob("*.whl"):
            shutil.copy2(whl, cache / whl.name)
            say(f"built {whl.name} under emulation; kept in {cache}")


# The Debian packages whose libraries a wheel's extension modules load (run in the root).
LIBS_OF = (
    "set -e; d=$(mktemp -d); cd $d; python3 -m zipfile -e /var/tmp/wheels/{wheel} .; "
    "find . -name '*.so' -exec ldd {{}} \\; | awk '/=> \\//{{print $3}}' | sort -u | "
    'while read -r lib; do real=$(realpath "$lib"); '
    'dpkg -S "$real" 2>/dev/null || dpkg -S "/usr$real" 2>/dev/null '
    '|| dpkg -S "${{real#/usr}}" 2>/dev/null || true; done | cut -d: -f1 | sort -u'
)


def wheel_apt(repo: Path, arch: str, whl: Path) -> list[str]:
    """The Debian packages a wheel built in the emulated root (no auditwheel: linked against
    the root's shared libraries) needs on the Pi: libjpeg62-turbo, libfreetype6 for Pillow."""
    sys.path.insert(0, str(repo / "tools" / "pitest"))
    import piroot

    systest = piroot.systest
    logs = piroot.cache_dir(dict(os.environ), arch) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = systest.Log(logs / f"{time.strftime('%Y%m%d-%H%M%S')}-bundle-libs.log")
    root = piroot.root(arch, log)
    box = systest.Container(root, f"trap-bundle-{os.getpid()}", log, Path(os.devnull))
    with contextlib.ExitStack() as stack:
        if systest.fs_type(systest.NSPAWN_RUN) != "tmpfs":
            systest.one_run_at_a_time(stack)
            systest.nspawn_tmpfs(stack, log)
        cgroups = box.own_cgroups()
        stack.callback(box._remove_cgroups)
        proc = subprocess.run(
            ["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--as-pid2",
             f"--directory={root}", "--volatile=overlay", f"--bind-ro={whl.parent}:/var/tmp/wheels",
             f"--setenv=PATH={systest.PATH}", "sh", "-c", LIBS_OF.format(wheel=whl.name)],
            capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL,
            preexec_fn=in_cgroups(cgroups),
        )  # fmt: skip
    log.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"bundle: cannot tell the libraries of {whl.name}; log {log.path}")
    packages = sorted(set(proc.stdout.split()) - {"libc6", "libgcc-s1"})
    say(f"{whl.name} loads libraries of Debian's {' '.join(packages) or 'nothing more'}")
    return packages


def in_cgroups(cgroups: list[Path]) -> Any:
    """A preexec_fn that moves the child into CGROUPS (systest.Container.own_cgroups)."""
    return lambda: [(c / "cgroup.procs").write_text(str(os.getpid())) for c in cgroups]


def native_target(plain_debian: bool = False) -> tuple[str, str, list[str], list[str]]:
    """(arch, python, extras, apt) of this machine. PLAIN_DEBIAN: no lgpio to be had (no wheel,
    and the sdist needs swig and the lgpio C library Debian lacks): mock pins only."""
    machine = platform.machine()
    arch = next((a for a, names in bundle.MACHINES.items() if machine in names), "")
    if not arch:
        raise SystemExit(f"bundle: this machine is {machine}, not one of {list(bundle.MACHINES)}")
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    extras, apt = ["web"], []
    has_lgpio = subprocess.run([sys.executable, "-c", "import lgpio"], capture_output=True)
    if arch != "amd64" and has_lgpio.returncode != 0 and not plain_debian:
        if lgpio_wheel_or_compiler():
            extras.append("pi")
        else:
            # Debian 13 has no python3-lgpio, PyPI no lgpio wheel for 3.13: Raspberry Pi OS's
            # archive has the package, which install.sh's apt step brings.
            say(
                f"no wheel of lgpio for Python {python} and no swig to build one: the venv "
                "takes python3-lgpio from apt (Raspberry Pi OS has it)"
            )
            apt.append("python3-lgpio")
    return arch, python, extras, apt


def lgpio_wheel_or_compiler() -> bool:
    """Whether pip can put lgpio (pyproject's `pi` extra) in the venv here: a wheel for this
    Python, or the swig and C compiler its source needs."""
    if shutil.which("swig") and shutil.which("cc"):
        return True
    with tempfile.TemporaryDirectory(prefix="trap-lgpio-") as dest:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--only-binary=:all:", "--dest", dest, "lgpio>=0.2"],
            capture_output=True, timeout=600,
        )  # fmt: skip
    return proc.returncode == 0


# --- the file --------------------------------------------------------------------------------


def write_tar(path: Path, members: dict[str, Path | bytes], manifest: bundle.Manifest) -> None:
    """An uncompressed tar, the same bytes for the same contents (sorted, no dates, root)."""
    partial = path.with_name(path.name + ".partial")
    with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as tar:
        items = [(bundle.MANIFEST, manifest.to_json().encode()), *sorted(members.items())]
        for name, body in items:
            data = body if isinstance(body, bytes) else body.read_bytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            executable = name.endswith(".sh")
            info.mode = 0o755 if executable else 0o644
            info.mtime = 0
            info.uname = info.gname = "root"
            tar.addfile(info, io.BytesIO(data))
    partial.replace(path)


def build(
    repo: Path, arch: str, python: str, out: Path, emulate: bool = False, plain_debian: bool = False
) -> Path:
    started = time.monotonic()
    files = source_files(repo)
    release = version(repo, files)
    native = arch == "native"
    with tempfile.TemporaryDirectory(prefix="trap-bundle-") as tmp_name:
        tmp = Path(tmp_name)
        wheels = tmp / "wheels"
        wheels.mkdir()
        src = stamped_source(repo, files, tmp / "src", release)
        if native:
            arch, python, extras, apt = native_target(plain_debian)
            say(f"{release} for this machine ({arch}, Python {python}): pip wheel")
            run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
                 "--prefer-binary", "--wheel-dir", str(wheels),
                 f"{src}[{','.join(extras)}]"])  # fmt: skip
            # pip's own wheel, if pip can find one (else the Pi's python3-venv gives pip).
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--only-binary=:all:", "--dest", str(wheels), "pip"],
                capture_output=True, timeout=600,
            )  # fmt: skip
        else:
            say(f"{release} for {arch}, Python {python}")
            run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
                 "--no-deps", "--wheel-dir", str(wheels), str(src)])  # fmt: skip
            extras, apt = cross_wheels(repo, arch, python, wheels, emulate, plain_debian)
        members: dict[str, Path | bytes] = {
            f"wheels/{w.name}": w for w in sorted(wheels.glob("*.whl"))
        }
        for name in [*INSTALLER, *sorted(f for f in files if f.startswith("firmware/"))]:
            if name.startswith("firmware/") and not name.endswith((".txt", ".toml")):
                continue
            members[f"installer/{name}"] = repo / name
        members["install.sh"] = BOOTSTRAP.encode()
        digests = {
            name: hashlib.sha256(body if isinstance(body, bytes) else body.read_bytes()).hexdigest()
            for name, body in members.items()
        }
        manifest = bundle.Manifest(release, arch, python, digests, tuple(extras), tuple(apt))
        out.mkdir(parents=True, exist_ok=True)
        path = out / bundle.bundle_name(release, arch, python)
        write_tar(path, members, manifest)
    checked = bundle.check_bundle(path)
    size = path.stat().st_size
    say(
        f"wrote {path} ({size / 2**20:.1f} MiB, {len(checked.wheels)} wheels, extras "
        f"{','.join(checked.extras) or '-'}, from apt: {' '.join(checked.apt) or 'python3 only'})"
        f" in {time.monotonic() - started:.0f} s"
    )
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bundle", description=__doc__.split("\n")[0])
    parser.add_argument("--arch", default="native", choices=["native", *PLATFORMS])
    parser.add_argument("--python", default="3.11", choices=PYTHONS)
    parser.add_argument("--out", type=Path, default=REPO / "dist")
    parser.add_argument(
        "--emulate", action="store_true", help="build wheels PyPI lacks in the emulated root"
    )
    parser.add_argument(
        "--plain-debian",
        action="store_true",
        default=os.environ.get("BUNDLE_PLAIN_DEBIAN") == "1",  # make install BUNDLE_PLAIN_DEBIAN=1
        help="for Debian without Raspberry Pi OS's python3-lgpio (make systest's root): where "
        "PyPI has no lgpio wheel, a bundle without lgpio (mock pins only)",
    )
    args = parser.parse_args(argv)
    path = build(REPO, args.arch, args.python, args.out, args.emulate, args.plain_debian)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
