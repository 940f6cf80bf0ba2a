"""The systest's update step: `trap-companion update` under the container's real systemd, a
power cut after every one of its steps, and a deliberately broken release that goes back.

Three bundles are made on the host from this checkout (tools/bundle/build.py, natively): the
release the box runs (A), one to update to (B, the same code stamped with another version), and
a broken one (X: `trap-companion run` exits at once, so it never says READY; its offline check
passes, so only the trial can catch it). B and X reuse A's wheels with their own program wheel.

In CI, A is the previous commit's bundle (SYSTEST_UPDATE_FROM, .ci/run) and B this one's.

For each step S of companion/release/update.py (STEPS, and UNDO_STEPS on the way back from X):
the update runs with TRAP_COMPANION_UPDATE_STOP_AT=S, stops itself once S is done and durable,
the container's init is SIGKILLed (the power cut), the container boots again, and the box must
be READY on the release a cut there leaves (A before the commit, B after it) with no trial left.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tools" / "bundle"))
sys.path.insert(0, str(REPO))

import build as bundle_build  # noqa: E402  (tools/bundle/build.py)

from companion.release import bundle  # noqa: E402
from companion.release.update import STEPS, UNDO_STEPS  # noqa: E402

OPT = "/opt/trap-companion"
INSIDE = "/var/tmp/bundles"  # survives the reboots (not /tmp)
LOG = "/var/tmp/update.log"
# The update's steps at which the owner's install is tried while the update holds the lock: as it
# builds, and during the new release's trial.
INSTALL_DURING = ("built", "switched")
STOP_AT = "TRAP_COMPANION_UPDATE_STOP_AT"
PROVE = 3  # --prove-seconds for the cut runs (the default 60 for the figures' run is too long)
BROKEN_PATCH = (
    "def main(args: argparse.Namespace) -> int:\n",
    "def main(args: argparse.Namespace) -> int:\n"
    '    raise SystemExit("a release broken on purpose by make systest")\n',
)
COMMITTED = STEPS.index("committed")


@dataclass(frozen=True)
class Bundles:
    a: Path
    b: Path
    broken: Path

    def version(self, path: Path) -> str:
        return bundle.check_bundle(path).version


def make_bundles(
    out: Path, arch: str = "native", start: Path | None = None, python: str = "3.11"
) -> Bundles:
    """A from the checkout, B and the broken one beside it (their own program wheel only).
    ``start`` (CI: the previous commit's bundle, SYSTEST_UPDATE_FROM): the box starts on it
    and B is this checkout's own bundle."""
    out.mkdir(parents=True, exist_ok=True)
    here = bundle_build.build(REPO, arch, python, out, plain_debian=True)  # a Debian root
    base = bundle.check_bundle(here).version
    broken = variant(here, f"{base}.sysx", out, BROKEN_PATCH)
    if start is not None:
        return Bundles(start, here, broken)
    return Bundles(here, variant(here, f"{base}.sysb", out), broken)


def variant(base: Path, version: str, out: Path, patch: tuple[str, str] | None = None) -> Path:
    manifest = bundle.check_bundle(base)
    own = bundle.own_wheel_prefix(manifest.version)
    with tempfile.TemporaryDirectory(prefix="trap-systest-variant-") as tmp_name:
        tmp = Path(tmp_name)
        files = bundle_build.source_files(REPO)
        src = bundle_build.stamped_source(REPO, files, tmp / "src", version)
        if patch:
            run_py = src / "companion" / "commands" / "run.py"
            text = run_py.read_text()
            if patch[0] not in text:
                raise RuntimeError(f"cannot break {run_py}: its main() changed")
            run_py.write_text(text.replace(patch[0], patch[1], 1))
        bundle_build.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--wheel-dir", str(tmp / "w"), str(src)]
        )  # fmt: skip
        wheel = next((tmp / "w").glob("*.whl"))
        members: dict[str, Path | bytes] = {}
        with tarfile.open(base) as tar:
            for member in tar.getmembers():
                name = member.name
                if name == bundle.MANIFEST or name.startswith(own):
                    continue
                stream = tar.extractfile(member)
                assert stream is not None
                members[name] = stream.read()
        members[f"wheels/{wheel.name}"] = wheel.read_bytes()
        digests = {
            name: hashlib.sha256(body if isinstance(body, bytes) else body.read_bytes()).hexdigest()
            for name, body in members.items()
        }
        new = bundle.Manifest(
            version, manifest.arch, manifest.python, digests, manifest.extras, manifest.apt
        )
        path = out / bundle.bundle_name(version, manifest.arch, manifest.python)
        bundle_build.write_tar(path, members, new)
    bundle.check_bundle(path)
    return path


def expected_after(step: str, broken: bool) -> str:
    """Which release ('from' or 'to') a cut after ``step`` must leave the box on."""
    if broken:
        return "from"
    return "to" if STEPS.index(step) >= COMMITTED else "from"


class UpdateCut:
    """Runs inside the systest (tools/systest/steps_owner.py, OwnerSteps.step_update): ``suite`` is
    its Systest, ``fail`` its StepFailed, ``wait`` its wait_for."""

    def __init__(
        self, suite: Any, bundles: Bundles, fail: type[Exception], wait: Any, unit: str, clone: str
    ) -> None:
        self.suite = suite
        self.box = suite.box
        self.fail = fail
        self.wait = wait
        self.unit = unit
        self.clone = clone
        self.bundles = bundles
        self.versions = {p: bundles.version(p) for p in (bundles.a, bundles.b, bundles.broken)}
        self.figures: dict[str, Any] = {}

    # helpers

    def sh(self, script: str, timeout: float = 60) -> Any:
        return self.box.sh(script, timeout=timeout)

    def cli(self) -> str:
        return f"{OPT}/current/venv/bin/trap-companion"

    def version(self) -> dict[str, Any]:
        proc = self.sh(f"{self.cli()} version --json")
        if proc.returncode != 0:
            raise self.fail(f"trap-companion version exited {proc.returncode}: {proc.stderr}")
        return json.loads(proc.stdout)

    def inside(self, path: Path) -> str:
        return f"{INSIDE}/{path.name}"

    def ready_on(self, version: str, why: str) -> dict[str, str]:
        """The unit active (running: READY came) on ``version``, no trial left."""

        def up() -> dict[str, str] | None:
            show = self.box.show("ActiveState", "SubState", "MainPID")
            return show if show.get("SubState") == "running" else None

        try:
            self.wait(f"{why}: the service READY", up, 60 * self.box.pace)
        except Exception as err:
            raise self.fail(f"{why}: the box is not READY; " + self.suite.journal_tail()) from err
        found = self.version()
        if found["running"] != version or found["on_trial"]:
            raise self.fail(f"{why}: running {found['running']}, not {version} ({found})")
        marker = self.sh(f"test -e {OPT}/trial.json && echo yes").stdout.strip()
        if marker:
            raise self.fail(f"{why}: {OPT}/trial.json is still there")
        # The daemon's own files: its C extensions (Pillow's) are mapped from its release's venv.
        maps = self.sh(
            f"grep -o '{OPT}/releases/[^/]*/' /proc/$(systemctl show -p MainPID --value "
            f"{self.unit})/maps | sort -u"
        ).stdout.split()
        if maps != [f"{OPT}/releases/{version}/"]:
            raise self.fail(f"{why}: the daemon's files come from {maps}, not release {version}")
        return found

    def update(self, path: Path | None, stop_at: str | None = None, prove: float = PROVE) -> Any:
        what = "--rollback" if path is None else shlex.quote(self.inside(path))
        env = f"env {STOP_AT}={stop_at} " if stop_at else ""
        cmd = f"{env}{self.cli()} update {what} --prove-seconds {prove:g}"
        if stop_at is None:
            return self.sh(cmd, timeout=600)
        # In the background, in a session of its own: it stops itself (SIGSTOP) after the step.
        inner = f"echo $$ > {LOG}.pid; exec {cmd}"
        # The pid file of the cut before names a process the power cut ended: removed, so a
        # poll before this update's shell has written its own never takes it for this one.
        self.sh(
            f"rm -f {LOG} {LOG}.pid; setsid bash -c {shlex.quote(inner)} > {LOG} 2>&1 < /dev/null &"
        )

        def stopped() -> bool:
            said = f"stopped after step {stop_at}"
            if said in self.sh(f"cat {LOG}").stdout:
                return True
            state = self.sh(
                f"test -s {LOG}.pid || {{ echo starting; exit 0; }}; "
                f"kill -0 $(cat {LOG}.pid) 2>/dev/null && echo running || echo gone"
            ).stdout.strip()
            if state == "gone":
                text = self.sh(f"cat {LOG}").stdout  # what it wrote before it ended
                if said in text:
                    return True
                raise self.fail(f"the update ended before step {stop_at}: {text[-300:]}")
            return False

        self.wait(f"the update to stop after {stop_at}", stopped, 600)
        return None

    # the step

    def run(self) -> str:
        a, b, broken = self.bundles.a, self.bundles.b, self.bundles.broken
        va, vb, vx = self.versions[a], self.versions[b], self.versions[broken]
        self.install(a)
        self.ready_on(va, "after installing A")
        # The figures: an update with the default trial, and a broken release going back.
        started = time.monotonic()
        proc = self.update(b, prove=60)
        took = time.monotonic() - started
        load = self.sh("cat /proc/loadavg").stdout.split()[:3]
        if proc.returncode != 0:
            raise self.fail(f"update A -> B exited {proc.returncode}: {proc.stdout}{proc.stderr}")
        ready = re.search(r"READY (\d+\.\d) s after the switch", proc.stdout)
        self.ready_on(vb, "after update A -> B")
        found = self.version()
        if found["kept"] != va:
            raise self.fail(f"after A -> B the kept release is {found['kept']}, not A")
        self.figures["update"] = (
            f"A -> B {took:.0f} s in all (60 s of it the trial), READY "
            f"{ready.group(1) if ready else '?'} s after the switch, load {' '.join(load)}"
        )
        proc = self.update(None)  # back to A by hand: B is kept
        if proc.returncode != 0:
            raise self.fail(f"update --rollback exited {proc.returncode}: {proc.stderr}")
        self.ready_on(va, "after update --rollback")
        if self.version()["kept"] != vb:
            raise self.fail("after --rollback B is not kept")
        started = time.monotonic()
        proc = self.update(broken)
        load = self.sh("cat /proc/loadavg").stdout.split()[:3]
        said = proc.stdout + proc.stderr
        wanted = f"update to {vx} failed"
        if proc.returncode != 1 or wanted not in said or f"back on {va}" not in said:
            raise self.fail(f"the broken release: exit {proc.returncode}, said {said[-400:]}")
        back = re.search(r"(\d+\.\d) s to READY again", said)
        self.ready_on(va, "after the broken release")
        journal = self.sh("journalctl -t trap-companion-update --no-pager -o cat").stdout
        if f"{wanted} (" not in journal:
            raise self.fail(f"the journal does not say '{wanted}': {journal[-300:]}")
        self.figures["back"] = (
            f"broken X -> A READY again {back.group(1) if back else '?'} s after the failure "
            f"was seen ({time.monotonic() - started:.0f} s for the whole failed update), "
            f"load {' '.join(load)}"
        )
        # A power cut after every step.
        cuts = []
        for step in STEPS:
            cuts.append(self.cut(step, a=va, to=b, to_version=vb, broken=False))
        for step in UNDO_STEPS:
            cuts.append(self.cut(step, a=va, to=broken, to_version=vx, broken=True))
        installs = self.figures.get("install", [])
        if len(installs) != len(INSTALL_DURING):
            raise self.fail(f"the install during an update was tried {len(installs)} times")
        return (
            f"power cut after each of {len(cuts)} steps ({', '.join(cuts)}): READY on the "
            f"release each leaves; {', '.join(installs)}; {self.figures['update']}; "
            f"{self.figures['back']}"
        )

    def install(self, a: Path) -> None:
        """The box from scratch (the upgrade step before purged it), as an owner installs one
        file: install.sh --bundle A, with the container's config (mock pins) written first."""
        self.sh(f"mkdir -p {INSIDE}")
        for path in (self.bundles.a, self.bundles.b, self.bundles.broken):
            target = Path(self.box.root) / INSIDE.lstrip("/") / path.name
            target.write_bytes(path.read_bytes())
        etc = "/etc/trap-companion"
        self.sh(
            f"install -d -m 0755 {etc} && sed 's/^pin_factory = .*/pin_factory = \"mock\"/' "
            f"{self.clone}/companion/data/config.example.toml > {etc}/config.toml"
        )
        proc = self.sh(
            f"SKIP_APT=1 SKIP_FIRMWARE=1 bash {self.clone}/systemd/install.sh --bundle "
            + shlex.quote(self.inside(a)),
            timeout=900,
        )
        if proc.returncode != 0:
            raise self.fail(f"installing A exited {proc.returncode}: {proc.stderr[-400:]}")

    def install_meanwhile(self, step: str) -> str:
        """The owner's one-file install while the update holds its lock, stopped after
        ``step``: refused with update's status (4) naming the update, nothing touched (issue 45
        point 2; before, it undid the update's work or said "installed" mid-trial)."""
        before = self.sh(f"readlink {OPT}/current; ls {OPT}/releases").stdout
        proc = self.sh(
            f"SKIP_APT=1 SKIP_FIRMWARE=1 bash {self.clone}/systemd/install.sh --bundle "
            + shlex.quote(self.inside(self.bundles.a)),
            timeout=300,
        )
        said = proc.stdout + proc.stderr
        if proc.returncode != 4 or "(update) holds /run/lock/" not in said:
            raise self.fail(
                f"an install during an update stopped after '{step}': exit {proc.returncode}, "
                f"said {said[-300:]}"
            )
        if "is installed" in said:
            raise self.fail(f"an install refused during an update said it installed: {said}")
        after = self.sh(f"readlink {OPT}/current; ls {OPT}/releases").stdout
        if after != before:
            raise self.fail(f"a refused install changed {OPT}: {before!r} -> {after!r}")
        return f"install during '{step}' refused (4)"

    def cut(self, step: str, a: str, to: Path, to_version: str, broken: bool) -> str:
        self.update(to, stop_at=step)
        if not broken and step in INSTALL_DURING:
            self.figures.setdefault("install", []).append(self.install_meanwhile(step))
        self.box.power_cut()
        self.box.boot()
        want = to_version if expected_after(step, broken) == "to" else a
        self.ready_on(want, f"a power cut after '{step}'")
        marked = step in STEPS and STEPS.index("marked") <= STEPS.index(step) < COMMITTED
        if marked or step == "undo-switched":  # the marker was left: the guard goes back
            said = self.sh("journalctl -t trap-companion-update -b 0 --no-pager -o cat").stdout
            if f"failed (interrupted by a restart): back on {a}" not in said:
                raise self.fail(f"after a cut after '{step}' the guard did not say it went back")
        if want == to_version:  # back to A for the next cut (B stays kept: no rebuild)
            proc = self.update(None)
            if proc.returncode != 0:
                raise self.fail(f"--rollback after '{step}': {proc.stderr[-300:]}")
            self.ready_on(a, f"--rollback after '{step}'")
        return f"{step}->{'B' if want == to_version else 'A'}"
