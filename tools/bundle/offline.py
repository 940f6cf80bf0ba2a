#!/usr/bin/env python3
"""`make bundletest ARCH=arm64`: the owner's install from one file on the Pi's CPU, no network.

Builds the bundle for ARCH (tools/bundle/build.py; wheels cached), then in the emulated root of
`make pitest` (tools/pitest/piroot.py, on an overlay: the cached root stays clean) started by
systemd-nspawn with --private-network (lo only, no route anywhere):

  1 refused   a tampered copy (a changed wheel), one with a file missing, one with a file the
              manifest does not list, a truncated copy and a bundle for another CPU are each
              refused with one line naming the file and their own exit status, and nothing is
              left under /opt/trap-companion
  2 install   `tar -xOf FILE install.sh | sh -s FILE` installs it: releases/<version> with
              RELEASE.json, `current` names it, the units run through it, the program runs
              (`trap-companion --help`, Pillow >= 10 and lgpio import), a box of the install
              before releases (/opt/trap-companion/venv) is moved over
  3 again     the same file again reuses the finished release (no rebuild)

Times: the install's seconds (wall) and the CPU seconds of its processes (rusage), with the
load average. Exit status: 0 passed, 1 failed, 77 this machine cannot emulate (one line why).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tools" / "pitest"))
sys.path.insert(0, str(REPO))

import build  # noqa: E402  (tools/bundle/build.py)
import piroot  # noqa: E402
from piroot import systest  # noqa: E402

from companion.release import bundle  # noqa: E402

INSIDE = "/root/bundles"
LOG: list[systest.Log] = []
OPT = "/opt/trap-companion"


def say(text: str) -> None:
    print(f"bundletest: {text}", flush=True)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} CPUs"


def variant(good: Path, out: Path, kind: str) -> Path:
    """A damaged copy of GOOD: changed, missing or unlisted file, or cut short."""
    path = out / f"{kind}-{good.name}"
    if kind == "truncated":
        path.write_bytes(good.read_bytes()[: good.stat().st_size * 2 // 3])
        return path
    with tarfile.open(good) as src, tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as dst:
        members = [m for m in src.getmembers() if m.isfile()]
        wheel = next(m for m in members if m.name.startswith("wheels/pillow"))
        for member in members:
            data = src.extractfile(member).read()  # type: ignore[union-attr]
            if kind == "missing" and member.name == wheel.name:
                continue
            if kind == "changed" and member.name == wheel.name:
                data = data[:-1] + bytes([data[-1] ^ 1])
            info = tarfile.TarInfo(member.name)
            info.size, info.mode = len(data), member.mode
            dst.addfile(info, io.BytesIO(data))
        if kind == "unlisted":
            extra = b"print('not from the bundle')\n"
            info = tarfile.TarInfo("wheels/sitecustomize.py")
            info.size = len(extra)
            dst.addfile(info, io.BytesIO(extra))
    return path


def nspawn(root: Path, binds: list[str], script: str, timeout: float) -> tuple[int, str, float]:
    """SCRIPT in ROOT by systemd-nspawn (not booted) with no network; (status, output, CPU s).
    Started from a cgroup of its own, as systest's containers are (systest.Container)."""
    box = systest.Container(root, f"trap-bundletest-{os.getpid()}", LOG[0], Path(os.devnull))
    cgroups = box.own_cgroups()
    cmd = [
        "systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--private-network",
        "--as-pid2",
        f"--directory={root}", f"--setenv=PATH={systest.PATH}",
        *(f"--bind-ro={b}" for b in binds),
        "bash", "-c", script,
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
            preexec_fn=lambda: [(c / "cgroup.procs").write_text(str(os.getpid())) for c in cgroups],
        )  # fmt: skip
    finally:
        box._remove_cgroups()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.returncode, proc.stdout + proc.stderr, cpu


def run(arch: str, python: str) -> int:
    problem = systest.host_problem(os.geteuid(), shutil.which)
    if problem:
        say(f"skipped: {problem}")
        return 77
    try:
        said = piroot.ensure_emulation(arch)
    except piroot.NoEmulation as err:
        say(f"skipped: {err}")
        return 77
    cache = piroot.cache_dir(dict(os.environ), arch)
    logs = cache / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    name = f"trap-bundletest-{arch}-{os.getpid()}"
    log = systest.Log(logs / f"{time.strftime('%Y%m%d-%H%M%S')}-{name}.log")
    LOG.append(log)
    say(f"{arch}: {said}; log {log.path}")
    failed: list[str] = []
    with systest.terminate_as_interrupt(), contextlib.ExitStack() as stack:
        root = piroot.root(arch, log)
        if systest.fs_type(systest.NSPAWN_RUN) != "tmpfs":
            systest.one_run_at_a_time(stack)
            systest.nspawn_tmpfs(stack, log)
        run_dir = cache / "runs" / name
        merged = systest.overlay(stack, log, root, run_dir / "fs")
        out = run_dir / "bundles"
        out.mkdir(parents=True)
        started = time.monotonic()
        good = build.build(REPO, arch, python, out)
        built = time.monotonic() - started
        other = build.build(REPO, "amd64" if arch != "amd64" else "arm64", python, out)
        bad = {kind: variant(good, out, kind) for kind in ("changed", "missing", "unlisted")}
        bad["truncated"] = variant(good, out, "truncated")
        binds = [f"{out}:{INSIDE}"]
        # 1: refused, nothing touched.
        expected = {"changed": "changed", "missing": "missing", "unlisted": "does not list",
                    "truncated": "", "other CPU": "this bundle is for"}  # fmt: skip
        files = {**bad, "other CPU": other}
        for kind, path in files.items():
            f = shlex.quote(f"{INSIDE}/{path.name}")
            status, output, _ = nspawn(
                merged, binds,
                f"tar -xOf {f} install.sh 2>/dev/null | SKIP_FIRMWARE=1 sh -s {f}; s=$?; "
                f"ls -A {OPT} 2>/dev/null | sed 's/^/LEFT /'; exit $s",
                1800,
            )  # fmt: skip
            log.write(f"--- {kind}: exit {status}\n{output}")
            lines = [ln for ln in output.splitlines() if ln.strip()]
            left = [ln for ln in lines if ln.startswith("LEFT ")]
            refusal = [ln for ln in lines if not ln.startswith("LEFT ")]
            want = bundle.EXIT_WRONG_BOX if kind == "other CPU" else bundle.EXIT_BAD_BUNDLE
            ok = status == want and len(refusal) == 1 and expected[kind] in refusal[0] and not left
            mark = "PASS" if ok else "FAIL"
            say(f"{mark} 1 refused {kind}: exit {status}: {' | '.join(refusal)[:200]}")
            if not ok:
                failed.append(f"refused {kind}")
        # 2: the install, offline, over a box of the install before releases.
        f = shlex.quote(f"{INSIDE}/{good.name}")
        manifest = bundle.check_bundle(good)
        script = (
            f"mkdir -p {OPT}/venv/bin && touch {OPT}/venv/bin/trap-companion && "
            "echo NETDEV $(tail -n +3 /proc/net/dev | cut -d: -f1) && "
            f"tar -xOf {f} install.sh | SKIP_FIRMWARE=1 NO_START=1 sh -s {f}"
        )
        load_before = load_average()
        t0 = time.monotonic()
        status, output, cpu = nspawn(merged, binds, script, 3600)
        took = time.monotonic() - t0
        log.write(f"--- install: exit {status}\n{output}")
        netdev = [ln for ln in output.splitlines() if ln.startswith("NETDEV")]
        interfaces = netdev[0].split()[1:] if netdev else []
        say(
            f"install: exit {status} in {took:.0f} s wall, {cpu:.0f} s CPU (load average "
            f"{load_before} before, {load_average()} after); network inside: {interfaces}"
        )
        checks = {
            "no network": interfaces == ["lo"],
            "exit 0": status == 0,
        }
        probe = (
            f"readlink {OPT}/current; cat {OPT}/current/RELEASE.json; "
            f"test -e {OPT}/venv && echo LEGACY-LEFT; "
            "grep -h ^ExecStart= /etc/systemd/system/trap-companion*.service; "
            "readlink /usr/local/bin/trap-companion; "
            "ls /etc/systemd/system/multi-user.target.wants/; "
            f"cd /tmp && {OPT}/current/venv/bin/python -c 'import PIL, lgpio, importlib.metadata"
            ' as m; print("PIL", PIL.__version__, "version", m.version("trap-companion"))\' && '
            f"{OPT}/current/venv/bin/trap-companion --help | head -1"
        )
        _, seen, _ = nspawn(merged, binds, probe, 600)
        log.write(f"--- probe\n{seen}")
        release = json.loads(seen[seen.index("{") : seen.index("}") + 1]) if "{" in seen else {}
        pil = seen.split("PIL ", 1)[-1].split()[0] if "PIL " in seen else "0"
        checks.update(
            {
                "current -> releases/<version>": f"releases/{manifest.version}\n" in seen,
                "RELEASE.json": release.get("version") == manifest.version
                and release.get("bundle_sha256") == manifest.sha256,
                "units through current": seen.count(f"ExecStart={OPT}/current/venv/bin/") == 2,
                "command link": f"{OPT}/current/venv/bin/trap-companion\n" in seen,
                "enabled": "trap-companion.service" in seen,
                "Pillow >= 10, lgpio": int(pil.split(".")[0]) >= 10,
                "program's version": f"version {manifest.version}" in seen,
                "old venv moved over": "LEGACY-LEFT" not in seen
                and "removed the venv of the install before releases" in output,
            }
        )
        # 3: again: reused.
        t1 = time.monotonic()
        status, again, _ = nspawn(
            merged, binds, f"tar -xOf {f} install.sh | SKIP_FIRMWARE=1 NO_START=1 sh -s {f}", 1800
        )
        again_took = time.monotonic() - t1
        log.write(f"--- again: exit {status}\n{again}")
        checks["again: reused"] = status == 0 and "already installed" in again
        for what, ok in checks.items():
            say(f"{'PASS' if ok else 'FAIL'} 2 install: {what}")
            if not ok:
                failed.append(what)
        size = good.stat().st_size / 2**20
        digest = hashlib.sha256(good.read_bytes()).hexdigest()[:12]
        say(
            f"figures: bundle {good.name} {size:.1f} MiB (sha256 {digest}...) built in "
            f"{built:.0f} s; offline install {took:.0f} s wall, {cpu:.0f} s CPU under QEMU; "
            f"again (reused) {again_took:.0f} s; load average now {load_average()}"
        )
    if failed:
        say(f"FAILED: {', '.join(failed)}; every command and its output: {log.path}")
        return 1
    say(f"{arch}: passed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bundletest", description=__doc__.split("\n")[0])
    parser.add_argument("--arch", default="arm64", choices=sorted(piroot.ARCHES))
    parser.add_argument("--python", default="3.11", choices=build.PYTHONS)
    args = parser.parse_args(argv)
    return run(args.arch, args.python)


if __name__ == "__main__":
    sys.exit(main())
