"""A newer QEMU user-mode emulator than the host's, from Debian's own archive, for one run.

Debian 13's systemd (257) needs two things of QEMU's user-mode emulation that Debian 12's
qemu-user-static (7.2) lacks:
- It starts every unit's process through glibc's pidfd_spawn (glibc 2.39 and later), which
  clones with CLONE_PIDFD: 7.2 refuses the flag (EINVAL), so every service fails ("Failed to
  spawn executor: Invalid argument", result 'resources'). QEMU 10.0 (Debian 13) takes it.
- It tells the root it prepared for a unit's mount namespace (a bind mount of /: same device
  and inode) from the current one by statx's mount id. QEMU 7.2 and 10.0 say they fill
  stx_mnt_id and leave it 0, so systemd takes the new root for the current one, skips its
  pivot_root, and every unit with ProtectSystem=, PrivateTmp=, ReadWritePaths= ... fails
  ("Failed to remount /run/systemd/incoming with MS_SLAVE: Invalid argument", 226/NAMESPACE).
  QEMU 11.1 (Debian 13's backports) passes the mount id.

So `make systest ARCH=... SUITE=trixie` first asks the root itself: PROBE runs the root's
pidfd_spawn and statx under the host's QEMU. Where either fails, Debian 13's backported
qemu-user is fetched once (apt-get download from a private apt directory: apt checks the file
against the signed index) into the project's cache, ~/.cache/trap-companion/qemu-VERSION/, and
registered with binfmt_misc under a name of its own (trap-qemu-aarch64) on top of the host's
entry, for the run only. The kernel tries the most recently registered entry first, so the
new one takes every new ARM program at once and taking it away gives them back to the host's:
the host's own entry is never removed, disabled or rewritten, and at no moment is there no
entry for the CPU. While it is registered, every ARM program that starts on this machine runs
under the newer QEMU, the other emulated runs' included.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "systest"))

import archive  # tools/systest/archive.py: Debian's lists and the choosers

BINFMT = Path("/proc/sys/fs/binfmt_misc")
SOURCE_SUITE = "trixie-backports"  # Debian 13's: qemu-user 11.1, static binaries
PACKAGE = "qemu-user"
# The one version this takes a floor of: QEMU 11.1 is the first to pass statx's mount id (above);
# whichever version the suite's list has now, that or later, is fetched.
MINIMUM = "1:11.1~"
KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
CPUS = ("aarch64", "arm")  # what ARCHES (piroot) runs: arm64 and armhf
FLAGS = "POCF"  # as the host's after piroot: preserve argv[0], open-binary, credentials, fixed
PREFIX = "trap-"  # trap-qemu-aarch64: never the host's own name

# Run by the root's python3 under the QEMU that binfmt_misc picks: what systemd 257 does to start
# a unit's process and set up its mount namespace. "absent": the root's glibc has no pidfd_spawn
# (Debian 12, whose systemd 252 uses neither): nothing to prove.
PROBE = """\
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
spawn = getattr(libc, "pidfd_spawn", None)
if spawn is None:
    print("absent"); sys.exit(0)
argv = (ctypes.c_char_p * 2)(b"/bin/true", None)
fd = ctypes.c_int(-1)
err = spawn(ctypes.byref(fd), b"/bin/true", None, None, argv, None)
if err:
    print("pidfd_spawn fails: " + os.strerror(err)); sys.exit(3)
os.wait()
buf = ctypes.create_string_buffer(256)
if libc.statx(-100, b"/", 0, 0x1000, buf):  # AT_FDCWD, STATX_MNT_ID
    print("statx fails: " + os.strerror(ctypes.get_errno())); sys.exit(3)
mask, mnt_id = struct.unpack_from("I", buf.raw, 0)[0], struct.unpack_from("Q", buf.raw, 0x90)[0]
if mask & 0x1000 and not mnt_id:
    print("statx says it gives the mount id, and gives 0"); sys.exit(3)
print("ok")
"""

Runner = Callable[..., subprocess.CompletedProcess[str]]


class Unavailable(Exception):
    """No newer QEMU can be had here (one line says why): the run is skipped (exit 77)."""


# --- pure parts (tests/test_pitest.py) ----------------------------------------------------------


def apt_config(apt_dir: Path, mirror: str, suite: str = SOURCE_SUITE) -> tuple[str, str]:
    """apt.conf and sources.list of a private apt directory: Debian SUITE's main from MIRROR, the
    host's keyring, nothing of the host's own apt state read or written."""
    sources = f"deb [signed-by={KEYRING}] {mirror} {suite} main\n"
    conf = "\n".join(
        [
            f'Dir::Etc::SourceList "{apt_dir}/sources.list";',
            'Dir::Etc::SourceParts "/nonexistent";',
            f'Dir::Etc::Preferences "{apt_dir}/preferences";',
            'Dir::Etc::PreferencesParts "/nonexistent";',
            f'Dir::State "{apt_dir}/state";',
            f'Dir::State::status "{apt_dir}/status";',
            f'Dir::Cache "{apt_dir}/cache";',
            'APT::Sandbox::User "root";',
            'Acquire::Languages "none";',
            "",
        ]
    )
    return conf, sources


def entry_line(conf_line: str, cpu: str, interpreter: Path, flags: str = FLAGS) -> str:
    """The package's own binfmt.d line for CPU under our name, our interpreter and flags."""
    fields = conf_line.strip().split(":")
    if len(fields) != 8 or fields[1] != f"qemu-{cpu}":
        raise ValueError(f"not qemu-{cpu}'s binfmt_misc registration line: {conf_line.strip()!r}")
    fields[1], fields[6], fields[7] = f"{PREFIX}qemu-{cpu}", str(interpreter), flags
    return ":".join(fields)


def entry_name(cpu: str) -> str:
    return f"{PREFIX}qemu-{cpu}"


def probe_verdict(proc: subprocess.CompletedProcess[str]) -> str | None:
    """None where the QEMU serves the root's systemd; else what it said (one line)."""
    said = (proc.stdout.strip().splitlines() or [""])[-1]
    if proc.returncode == 0 and said in ("ok", "absent"):
        return None
    tail = said or (proc.stderr.strip().splitlines() or ["no answer"])[-1]
    return f"{tail} (exit {proc.returncode})"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def choose(stanzas: list[archive.Stanza], arch: str, where: str) -> archive.Stanza:
    """PACKAGE's newest version for ARCH in the suite's lists now, if MINIMUM or later; else
    archive.Missing (one line). Pure: tests/test_archive.py feeds it lists by hand."""
    version = archive.at_least(stanzas, PACKAGE, MINIMUM, arch, where)
    found = archive.stanza(stanzas, PACKAGE, version, arch)
    assert found is not None  # at_least took it from these lists
    return found


def host_arch() -> str:
    proc = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True)
    return proc.stdout.strip() or "amd64"


# --- the cache ----------------------------------------------------------------------------------


def cached(base: Path) -> Path | None:
    """A complete qemu-VERSION directory under BASE (its files as its manifest says), or None."""
    for folder in sorted(base.glob("qemu-*"), reverse=True):
        manifest = folder / "manifest.json"
        if folder.suffix == ".partial" or not manifest.is_file():
            continue
        try:
            found = json.loads(manifest.read_text())
            files = found["files"]
            if found["suite"] == SOURCE_SUITE and all(
                sha256(folder / name) == digest for name, digest in files.items()
            ):
                return folder
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def version_of(folder: Path) -> str:
    return str(json.loads((folder / "manifest.json").read_text())["version"])


def _last_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [ln.strip() for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith(("E:", "W:", "Err:"))]
    return (errors or lines or [f"exit {proc.returncode}"])[-1]


def fetch(base: Path, mirror: str, run: Runner = subprocess.run, arch: str = "") -> Path:
    """BASE/qemu-VERSION with Debian 13's qemu-user binaries for CPUS, fetched once: a later run
    finds it there and needs no network. Unavailable (one line) where it cannot be had."""
    base.mkdir(parents=True, exist_ok=True)
    with (base / "qemu.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one fetch at a time; others wait and reuse it
        found = cached(base)
        if found:
            return found
        if not KEYRING.is_file():
            raise Unavailable(f"needs Debian's archive keyring {KEYRING} (debian-archive-keyring)")
        with tempfile.TemporaryDirectory(prefix="trap-qemu-", dir=base) as tmp:
            return _fetch_into(base, Path(tmp), mirror, run, arch or host_arch())


def _fetch_into(base: Path, tmp: Path, mirror: str, run: Runner, arch: str) -> Path:
    apt = tmp / "apt"
    for d in (apt / "state" / "lists" / "partial", apt / "cache" / "archives" / "partial"):
        d.mkdir(parents=True)
    conf, sources = apt_config(apt, mirror)
    (apt / "apt.conf").write_text(conf)
    (apt / "sources.list").write_text(sources)
    (apt / "status").write_text("")
    env = {"APT_CONFIG": str(apt / "apt.conf"), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    lists = apt / "state" / "lists"

    def apt(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        return run(
            [tool, "-q", *args], cwd=tmp, env=env, capture_output=True, text=True,
            timeout=900, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    where = f"Debian {SOURCE_SUITE} at {mirror}"
    try:
        proc = apt("apt-get", "update")
        if proc.returncode != 0:
            raise Unavailable(f"cannot read the package index of {where}: {_last_line(proc)}")
        try:
            chosen = choose(archive.read_lists(lists, {PACKAGE}), arch, where)
        except archive.Missing as err:
            raise Unavailable(str(err)) from None
        proc = apt("apt-get", "download", f"{PACKAGE}={chosen.version}")
        if proc.returncode != 0:
            raise Unavailable(f"cannot fetch {PACKAGE} from {where}: {_last_line(proc)}")
    except FileNotFoundError as err:
        raise Unavailable(f"needs apt-get to fetch {PACKAGE} ({err.filename})") from err
    debs = sorted(tmp.glob(f"{PACKAGE}_*.deb"))
    if len(debs) != 1:
        raise Unavailable(f"apt-get download {PACKAGE} left {len(debs)} packages in {tmp}")
    deb = debs[0]
    version = chosen.version
    deb_sha = sha256(deb)  # against the signed index's own hash
    if deb_sha != chosen.sha256:
        raise Unavailable(f"{deb.name}: its SHA256 {deb_sha} is not the index's {chosen.sha256!r}")
    unpacked = tmp / "unpacked"
    proc = run(["dpkg-deb", "-x", str(deb), str(unpacked)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise Unavailable(f"cannot unpack {deb.name}: {_last_line(proc)}")
    name = "qemu-" + version.split(":", 1)[-1]  # the Debian version, epoch aside
    partial = base / f"{name}.partial"
    if partial.exists():
        subprocess.run(["rm", "-rf", str(partial)], check=True)
    files: dict[str, str] = {}
    for cpu in CPUS:
        binary = unpacked / "usr" / "bin" / f"qemu-{cpu}"
        conf = unpacked / "usr" / "share" / "qemu" / "binfmt.d" / f"qemu-{cpu}.conf"
        if not binary.is_file() or not conf.is_file():
            raise Unavailable(f"{deb.name} has no qemu-{cpu} (or its binfmt.d line)")
        for source, target in ((binary, f"bin/qemu-{cpu}"), (conf, f"binfmt.d/qemu-{cpu}.conf")):
            (partial / target).parent.mkdir(parents=True, exist_ok=True)
            (partial / target).write_bytes(source.read_bytes())
            files[target] = sha256(partial / target)
        (partial / "bin" / f"qemu-{cpu}").chmod(0o755)
        # Debian's QEMU knows it was started with binfmt_misc's P flag by this name.
        link = partial / "binfmt" / f"{cpu}-binfmt-P"
        link.parent.mkdir(exist_ok=True)
        link.symlink_to(f"../bin/qemu-{cpu}")
    manifest = {
        "package": PACKAGE, "version": version, "suite": SOURCE_SUITE, "mirror": mirror,
        "deb": deb.name, "deb_sha256": deb_sha, "files": files,
    }  # fmt: skip
    (partial / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    target = base / name
    if target.exists():
        subprocess.run(["rm", "-rf", str(target)], check=True)
    partial.rename(target)
    return target


# --- binfmt_misc --------------------------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    path.write_text(text)


@contextlib.contextmanager
def registered(
    line: str, binfmt: Path | None = None, write: Callable[[Path, str], None] | None = None
) -> Iterator[str]:
    """LINE registered on top of the host's entry while the block runs; removed at its end, also
    on an error or Ctrl-C. One left behind by a run that was killed is replaced first."""
    binfmt, write = binfmt or BINFMT, write or _write
    name = line.split(":")[1]
    if not name.startswith(PREFIX):
        raise ValueError(f"{name}: only our own entries ({PREFIX}*) are registered or removed")
    entry = binfmt / name
    if entry.exists():
        write(entry, "-1")
    write(binfmt / "register", line)
    try:
        yield name
    finally:
        if entry.exists():
            write(entry, "-1")


def run_probe(root: Path, run: Runner = subprocess.run) -> subprocess.CompletedProcess[str]:
    """PROBE in ROOT (the run's overlay: nothing is written to the cached root), under whichever
    QEMU binfmt_misc picks for its python3 now."""
    cmd = ["chroot", str(root), "/usr/bin/python3", "-B", "-I", "-c", PROBE]
    try:
        return run(cmd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, "", "no answer within 300 s")


def for_systemd(
    stack: contextlib.ExitStack,
    root: Path,
    cpu: str,
    cache_base: Path,
    mirror: str,
    log: Callable[[str], None],
    run: Runner = subprocess.run,
    binfmt: Path | None = None,
    write: Callable[[Path, str], None] | None = None,
) -> str:
    """Make the QEMU that runs ROOT's ARM programs one its systemd can start services under: the
    host's where it can, else Debian 13's registered on top for the rest of STACK. Says what it
    did in one line; Unavailable where no QEMU here can."""
    host = run_probe(root, run)
    log(f"probe under the host's QEMU: {shlex.join(host.args[:3])} ...\n{host.stdout}{host.stderr}")
    problem = probe_verdict(host)
    if problem is None:
        if host.stdout.strip() == "absent":
            return "the root's glibc has no pidfd_spawn: its systemd runs under the host's QEMU"
        return "the host's QEMU runs the root's pidfd_spawn and statx: its systemd runs under it"
    folder = fetch(cache_base, mirror, run)
    version = version_of(folder)
    conf = (folder / "binfmt.d" / f"qemu-{cpu}.conf").read_text()
    line = entry_line(conf, cpu, folder / "binfmt" / f"{cpu}-binfmt-P")
    name = stack.enter_context(registered(line, binfmt, write))
    log(f"registered {line}")
    newer = run_probe(root, run)
    log(f"probe under {name}: {newer.stdout}{newer.stderr}")
    still = probe_verdict(newer)
    if still is not None:
        raise Unavailable(f"under {PACKAGE} {version} too: {still}")
    return (
        f"the host's QEMU cannot start Debian 13's services ({problem}): {PACKAGE} {version} "
        f"({folder}) registered as {name} on top of the host's entry for this run, removed at "
        "its end"
    )
