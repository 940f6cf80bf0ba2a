"""The container: booted under systemd-nspawn, commands in it, its power cut and its stop;
the drop-ins and files it gets before it boots."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rootfs import Recipe, checkout_files
from sysbase import (
    CA_BUNDLE,
    CLONE,
    EMULATION_DROPIN,
    EMULATION_DROPIN_TEXT,
    HOSTNAME,
    JOURNALD_DROPIN_TEXT,
    OWNER,
    PATH,
    PHONES_DROPIN_TEXT,
    PHONES_UNIT,
    REPO,
    UNIT,
    Log,
    Skip,
    StepFailed,
    parse_show,
)


def _comm(proc_dir: Path) -> str:
    try:
        return (proc_dir / "comm").read_text().strip()
    except OSError:
        return ""


@dataclass
class Container:
    root: Path
    name: str
    log: Log
    console: Path
    binds: list[str] = field(default_factory=list)
    binds_rw: list[str] = field(default_factory=list)  # "host:inside", written to (a cache)
    # How much slower than this machine's CPU it runs (EMULATED_PACE under QEMU): every time
    # limit of a command or a wait is this many times longer; the checks stay the same.
    pace: float = 1.0
    emulated: str = ""  # the architecture QEMU runs (make systest ARCH=...), "" natively
    proc: subprocess.Popen[bytes] | None = None
    init: int = 0
    boots: int = 0

    def boot(self) -> float:
        """Boot, wait for the system to be up; returns the seconds it took."""
        started = time.monotonic()
        self.boots += 1
        cmd = [
            "systemd-nspawn",
            f"--directory={self.root}",
            "--boot",
            "--register=no",  # no systemd on the host to register with
            "--keep-unit",
            f"--machine={self.name}",
            "--console=pipe",
            # A Pi's systemd has it: PrivateNetwork= brings up the loopback of the daemon's own
            # network with it. Without it Debian 13's systemd (257) proceeds with no private
            # network at all (Debian 12's set one up all the same).
            "--capability=CAP_NET_ADMIN",
            *(f"--bind-ro={path}" for path in self.binds),
            *(f"--bind={path}" for path in self.binds_rw),
        ]
        self.log.write(f"host$ {shlex.join(cmd)}   (console: {self.console})")
        with self.console.open("a") as out:
            out.write(f"--- boot {self.boots} ---\n")
            out.flush()
            cgroups = self.own_cgroups()
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=lambda: [
                    (c / "cgroup.procs").write_text(str(os.getpid())) for c in cgroups
                ],
            )
        self.init = self._find_init(deadline=time.monotonic() + 30 * self.pace)

        # Until its init has the bus up, systemctl cannot ask; then it waits for the boot.
        def up() -> str | None:
            state = self.sh("systemctl is-system-running --wait", timeout=120).stdout.strip()
            return None if state in ("", "offline", "initializing", "starting") else state

        state, _ = wait_for("the container's system manager", up, 60 * self.pace)
        if state not in ("running", "degraded"):
            raise StepFailed(f"the container did not come up: is-system-running says {state!r}")
        if state == "degraded":
            failed = self.sh("systemctl --failed --no-legend --plain").stdout.strip()
            self.log.write(f"degraded: {failed}")
        return time.monotonic() - started

    def own_cgroups(self) -> list[Path]:
        """On a host without systemd (cgroup hierarchies mounted, nobody managing them), nspawn
        puts its container in "payload" beside itself: two containers at once (make pitest and
        make systest ARCH=...) would share it and the second one's init dies. Each one starts
        from a cgroup of its own, named after the container; removed again by stop()."""
        made = []
        for hierarchy in ("systemd", "unified"):
            base = Path("/sys/fs/cgroup") / hierarchy
            if (base / "cgroup.procs").exists() and not Path("/run/systemd/system").exists():
                (base / self.name).mkdir(exist_ok=True)
                made.append(base / self.name)
        return made

    def _remove_cgroups(self) -> None:
        for hierarchy in ("systemd", "unified"):
            top = Path("/sys/fs/cgroup") / hierarchy / self.name
            if top.is_dir():
                for folder in sorted(top.rglob("*/"), key=lambda p: len(p.parts), reverse=True):
                    with contextlib.suppress(OSError):
                        folder.rmdir()
                with contextlib.suppress(OSError):
                    top.rmdir()

    def _find_init(self, deadline: float) -> int:
        """The container's init: nspawn's child in a PID namespace of its own. nspawn forks an
        outer child first, in its own PID namespace, which starts the init and exits: taken for
        the init, it is gone by the first command (seen with Debian 13's root, whose outer child
        lives long enough to be found)."""
        assert self.proc is not None
        own = os.readlink(f"/proc/{self.proc.pid}/ns/pid")
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.console.read_text(errors="replace").splitlines()[-5:]
                raise StepFailed(
                    f"systemd-nspawn exited with {self.proc.returncode}: " + " | ".join(tail)
                )
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                # nspawn's child is first a copy of nspawn itself, which starts init and goes:
                # only the child that is systemd, in a PID namespace of its own, is the init (a
                # boot in a loaded moment caught the copy once, and every command after went to
                # a process that was gone; Debian 13's root showed it too).
                if int(fields[1]) == self.proc.pid and _comm(stat.parent) == "systemd":
                    with contextlib.suppress(OSError):
                        if os.readlink(stat.parent / "ns" / "pid") != own:
                            return int(stat.parent.name)
            time.sleep(0.1)
        raise StepFailed(f"systemd-nspawn started no init within {30 * self.pace:.0f} s")

    def sh(
        self, script: str, user: str | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run a shell script inside (as root, or as USER), with a clean environment."""
        if self.proc is None or self.proc.poll() is not None:
            raise StepFailed("the container is not running")
        inner = ["bash", "-c", script]
        if user:
            inner = ["runuser", "-u", user, "--", *inner]
        cmd = [
            "nsenter", "-t", str(self.init), "-a", "--",
            "env", "-i", f"PATH={PATH}", "HOME=/root", "LANG=C.UTF-8", "TERM=dumb",
            *inner,
        ]  # fmt: skip
        self.log.write(f"[{self.name}{' as ' + user if user else ''}]$ {script}")
        timeout *= self.pace
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired as err:
            self.log.write(f"[timed out after {timeout:.0f} s]")
            raise StepFailed(f"`{script}` did not end within {timeout:.0f} s") from err
        self.log.write(proc.stdout + proc.stderr + f"[exit {proc.returncode}]")
        return proc

    def host_pid(self, pid: str) -> int:
        """The host's number of the container's process PID."""
        pid_ns = os.readlink(f"/proc/{self.init}/ns/pid")
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                text = status.read_text()
                same_ns = os.readlink(status.parent / "ns" / "pid") == pid_ns
            except OSError:
                continue
            line = next((ln for ln in text.splitlines() if ln.startswith("NSpid:")), "")
            if same_ns and line.split()[-1:] == [str(pid)]:
                return int(status.parent.name)
        raise StepFailed(f"no process {pid} in the container")

    def in_mounts_of(self, pid: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """ARGV in the mount namespace of the container's process PID, entered by the host's
        nsenter: a program inside runs under QEMU when emulated, and QEMU's threads keep it from
        joining a mount namespace ("reassociate to namespace 'ns/mnt' failed")."""
        cmd = ["nsenter", "-t", str(self.host_pid(pid)), "-m", "--", "env", "-i", f"PATH={PATH}"]
        self.log.write(f"[{self.name}, in the mounts of {pid}]$ {shlex.join(argv)}")
        proc = subprocess.run(
            [*cmd, *argv],
            capture_output=True,
            text=True,
            timeout=60 * self.pace,
            stdin=subprocess.DEVNULL,
        )
        self.log.write(proc.stdout + proc.stderr + f"[exit {proc.returncode}]")
        return proc

    def show(self, *props: str) -> dict[str, str]:
        args = " ".join(f"-p {p}" for p in props)
        return parse_show(self.sh(f"systemctl show {UNIT} {args}").stdout)

    def power_cut(self) -> None:
        """SIGKILL the container's init: every process in it dies at once."""
        self.log.write(f"host$ kill -KILL {self.init}   (power cut)")
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.init, signal.SIGKILL)
        self._wait_nspawn()

    def _wait_nspawn(self) -> None:
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # our own nspawn, which outlived its init
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.power_cut()
        self.proc = None
        self._remove_cgroups()


def failure_tail(proc: subprocess.CompletedProcess[str], lines: int = 4) -> str:
    """The last lines of a failed command, pip's notes about absent local index pages left out."""
    said = [
        line.strip()
        for line in (proc.stdout + proc.stderr).splitlines()
        if line.strip() and not line.startswith("WARNING: Location ")
    ]
    return " | ".join(said[-lines:])


def wait_for(
    what: str, probe: Callable[[], Any], timeout: float, interval: float = 0.5
) -> tuple[Any, float]:
    """Ask PROBE until it answers something true; (answer, seconds). StepFailed after TIMEOUT,
    naming WHAT and the last answer. (A systemd outside us: asking is the only way.)"""
    started = time.monotonic()
    answer = None
    while time.monotonic() - started < timeout:
        answer = probe()
        if answer:
            return answer, time.monotonic() - started
        time.sleep(interval)
    raise StepFailed(f"{what}: not within {timeout:.0f} s")


def emulation_dropins(merged: Path) -> None:
    """Under QEMU only: what it cannot set up taken away, unit by unit (written again after
    step 7's purge, which removes the box's)."""
    units = merged / "etc" / "systemd" / "system"
    journald = merged / "usr" / "lib" / "systemd" / "system" / "systemd-journald.service"
    dropins = {UNIT: EMULATION_DROPIN_TEXT, PHONES_UNIT: PHONES_DROPIN_TEXT}
    if journald.is_file() and "ImportCredential=" in journald.read_text():  # Debian 13's
        dropins["systemd-journald.service"] = JOURNALD_DROPIN_TEXT
    for unit, text in dropins.items():
        (units / f"{unit}.d").mkdir(parents=True, exist_ok=True)
        (units / f"{unit}.d" / EMULATION_DROPIN).write_text(text)


def furnish(merged: Path, pip_conf_text: str, pip_files: list[str], emulated: bool = False) -> None:
    """Before the first boot: a hostname of its own, and the host's pip configuration and CA
    bundle (pip inside must reach the same package index as pip here); under emulation, the
    drop-in that takes away what QEMU cannot set up."""
    if emulated:
        emulation_dropins(merged)
    (merged / "etc" / "hostname").write_text(f"{HOSTNAME}\n")
    hosts = merged / "etc" / "hosts"
    hosts.write_text(f"127.0.1.1\t{HOSTNAME}\n" + (hosts.read_text() if hosts.exists() else ""))
    (merged / "etc" / "pip.conf").write_text(pip_conf_text)
    for path in [*pip_files, CA_BUNDLE]:
        if Path(path).is_file():
            target = merged / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def prepare(box: Container, merged: Path) -> None:
    """Inside the booted root: the owner (with sudo) and the checkout in their home."""
    proc = box.sh(
        f"useradd --create-home --shell /bin/bash {OWNER} && "
        f"echo '{OWNER} ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/{OWNER} && "
        f"chmod 0440 /etc/sudoers.d/{OWNER}"
    )
    if proc.returncode != 0:
        raise StepFailed(f"cannot create the owner: {proc.stderr.strip()}")
    clone = merged / CLONE.lstrip("/")
    for name in checkout_files(REPO):
        target = clone / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    box.sh(f"chown -R {OWNER}:{OWNER} {CLONE}")


def services_start(box: Container) -> None:
    """Skip (exit 77) where the emulated root's systemd starts no service at all: Debian 13's
    (257, which starts each through systemd-executor) fails even `/bin/true` under the QEMU
    of a Debian 12 host (7.2) with "Result: resources", as it does dbus.service. (newer_qemu_for
    gives it a newer QEMU first where the probe says so: this is the proof under systemd.)"""
    unit = "/run/systemd/system/systest-probe.service"
    proc = box.sh(
        f"printf '[Service]\\nType=oneshot\\nExecStart=/bin/true\\n' > {unit} && "
        "systemctl daemon-reload && systemctl start systest-probe",
        timeout=60,
    )
    result = box.sh("systemctl show -p Result --value systest-probe").stdout.strip()
    box.sh(f"rm -f {unit}; systemctl daemon-reload")
    if proc.returncode != 0:
        raise Skip(
            f"the emulated root's systemd starts no service under this QEMU (`/bin/true` as a "
            f"unit: result {result!r}); a newer qemu-user-static may"
        )


def newer_qemu_for(
    stack: contextlib.ExitStack, merged: Path, arch: str, recipe: Recipe, log: Log
) -> str:
    """The QEMU the root's systemd can start services under, for the rest of STACK: the host's,
    or Debian 13's registered on top of it (tools/pitest/newer_qemu.py); Skip where none."""
    import newer_qemu  # beside piroot, on the path main gave it
    import piroot

    cpu = piroot.ARCHES[arch][0]
    base = piroot.cache_dir(dict(os.environ), arch).parent  # ~/.cache/trap-companion
    mirror = os.environ.get("SYSTEST_MIRROR") or recipe.mirror
    try:
        return newer_qemu.for_systemd(stack, merged, cpu, base, mirror, log.write)
    except newer_qemu.Unavailable as err:
        raise Skip(f"the root's systemd needs a newer QEMU than the host's: {err}") from err
