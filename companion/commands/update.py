"""`trap-companion update FILE` and `trap-companion update --rollback`: root only.

The new release is built beside the running one, checked as the service user, switched to and
proven (READY within the start timeout, then up for --prove-seconds), or the box goes back by
itself (companion/release/update.py; the steps and what a power cut after each leaves).

Exit status: 0 updated (or already on that release), 1 the new release did not prove itself and
the box is back on the old one, 2 bad command line, 3 the new release failed its check (nothing
was switched), 4 another install or update is running (``UPDATE_RUNNING``), 65 not a release
bundle or a changed one, 66 no such file (or a bundle for another CPU or Python), 69 nothing to
update or go back to (not installed as releases, or no release kept), 70 the release could not be
built, 73 not enough room, 77 not root.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from companion.errors import CompanionError, DataError, PermissionDenied, UsageError
from companion.pi import paths

if TYPE_CHECKING:
    from companion.release.layout import Layout
    from companion.release.update import Outcome, Service

# Another update or rollback holds the lock: try again when it ends. Not 75 (sysexits'
# TEMPFAIL): every command already exits 75 for a kept file written by a newer release
# (core/formats.py:NewerFormat), which waiting does not mend; update's own statuses beside
# sysexits' are small numbers (1 back on the old release, 3 the new one failed its check).
UPDATE_RUNNING = 4
STOP_AT = "TRAP_COMPANION_UPDATE_STOP_AT"  # the systest's power cut: stop after this step
CHECK_SECONDS = 300.0  # the new release's own check, at an emulated Pi's pace too


class NoSuchFile(CompanionError):
    exit_status = 66


class NothingToDo(CompanionError):
    """Not installed as releases, or no release kept to go back to (sysexits' UNAVAILABLE)."""

    exit_status = 69


class UpdateRunning(CompanionError):
    exit_status = UPDATE_RUNNING


class ReleaseCheckFailed(CompanionError):
    exit_status = 3


class TrialFailedError(CompanionError):
    exit_status = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "update",
        help="update from a release bundle, or go back to the kept release (root)",
        description="Installs the release in FILE (trap-companion-<version>-<arch>-py<XY>.tar) "
        "beside the running one, checks it, switches to it and restarts the box. The new "
        "release must reach READY within the unit's start timeout and stay up for "
        "--prove-seconds; otherwise the box goes back to the running release by itself and "
        "says so on the OLED and in the journal. Config and state (/etc/trap-companion, "
        "/var/lib/trap-companion) are never copied or moved. Exit status: 0 updated, 1 the "
        "new release failed and the box is back on the old one, 2 bad command line, 3 the new "
        f"release failed its check (nothing switched), {UPDATE_RUNNING} another update is "
        "running, 65 not a bundle or a changed one, 66 no such file (or a bundle for another "
        "CPU or Python), 69 nothing installed as releases or no release to go back to, 70 the "
        "release could not be built, 73 not enough room, 77 not root.",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("file", nargs="?", type=Path, metavar="FILE", help="the release bundle")
    what.add_argument(
        "--rollback",
        action="store_true",
        help="go back to the release kept for going back (proven the same way)",
    )
    p.add_argument(
        "--prove-seconds",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long the new release must stay up after READY (default 60)",
    )
    p.add_argument("--opt-dir", type=Path, default=None, help=argparse.SUPPRESS)  # tests
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from companion.release.layout import pin_release

    pin_release(["companion", *sys.argv[1:]])
    from companion.release import lock, notice, units
    from companion.release import update as flow
    from companion.release.guard import recover
    from companion.release.layout import OPT_DIR, Layout
    from companion.release.systemd import Systemd

    stay = flow.PROVE_SECONDS if args.prove_seconds is None else args.prove_seconds
    if not 0 <= stay <= 3600:
        raise UsageError(f"--prove-seconds {stay:g}: give 0 <= SECONDS <= 3600")
    what = "update --rollback" if args.rollback else f"update {args.file}"
    if os.geteuid() != 0:
        raise PermissionDenied(f"run it as root: sudo trap-companion {what}")
    bundle: Path | None = None
    if not args.rollback:
        bundle = args.file
        if not bundle.is_file():
            raise NoSuchFile(f"{bundle}: no such file")
    layout = Layout(args.opt_dir or OPT_DIR)
    if not layout.installed():
        raise NothingToDo(
            f"no release is installed under {layout.root}: install a bundle once with "
            "sudo systemd/install.sh --bundle FILE (a box installed before releases moves to them)"
        )
    service = Systemd()

    def tell(message: str) -> None:
        notice.to_journal(message)
        notice.leave(paths.STATE_DIR, message)

    def step(name: str) -> None:
        if os.environ.get(STOP_AT) == name:  # the systest cuts the power here
            print(f"update: stopped after step {name}", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSTOP)

    # A dropped SSH session must not end a trial half way: the box's own guard would go back.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with lock.held(what="update --rollback" if args.rollback else "update"):
            # We hold the lock: a trial still marked has nobody proving it (an update killed,
            # or cut before a guard ran). Back to the proven release before anything else.
            stale = recover(layout, "its update did not finish", None, tell)
            if stale:
                print(f"an earlier update did not finish: {stale}", flush=True)
            if args.rollback:
                kept = layout.previous
                if kept is None or kept == layout.current or not layout.finished(kept):
                    raise NothingToDo(
                        f"no release is kept for going back (running {layout.current})"
                    )
                _say(f"going back from {layout.current} to {kept}; proving it for {stay:g} s")
                units.install(_run)
                outcome = flow.rollback(layout, service, tell, stay, step)
                tell_done = f"went back to {outcome.version} ({outcome.kept} kept)"
            else:
                assert bundle is not None
                outcome = _update(layout, service, bundle, tell, stay, step)
                if outcome is None:
                    return 0
                tell_done = f"updated to {outcome.version} ({outcome.kept} kept for going back)"
                _say(f"{outcome.version} was READY {outcome.ready_seconds:.1f} s after the switch")
    except lock.Busy as err:
        raise UpdateRunning(f"{err}: wait for it to end") from None
    except flow.TrialFailed as err:
        tail = "" if err.back_ready is None else f"; and it is not running either: {err.back_ready}"
        if err.back_ready is None:
            tail = f"; {err.back_seconds:.1f} s to READY again"
        raise TrialFailedError(err.message + tail) from None
    notice.to_journal(tell_done, error=False)
    if outcome.removed:
        tell_done += f"; removed {', '.join(outcome.removed)}"
    _say(tell_done)
    return 0


def _update(
    layout: Layout,
    service: Service,
    bundle: Path,
    tell: Callable[[str], None],
    stay: float,
    step: Callable[[str], None],
) -> Outcome | None:
    """check the bundle, build and check the new release, then the trial; None: already on it."""
    from companion.release import bundle as bundles
    from companion.release import units
    from companion.release import update as flow

    running = layout.current
    try:
        manifest = bundles.check_bundle(bundle)
        version = manifest.version
        if version != running:  # the fit first: another CPU's bundle touches nothing
            bundles.check_fits(manifest, "python3")
    except (bundles.BundleError, bundles.InstallError) as err:
        raise _status(err) from None
    if version == running:
        _say(f"already running {version}: nothing to do")
        return None
    _say(f"{bundle}: release {version}; building it beside {running}")

    def install(path: Path, root: Path) -> Path:
        return bundles.install_release(path, opt_dir=root)

    def check(release: Path) -> None:
        _say(f"checking {release.name} as {paths.SERVICE_USER} (check --offline)")
        why = check_release(release)
        if why:
            raise flow.ReleaseRefused(why)
        units.install(_run)
        _say(f"switching to {release.name} and restarting; proving it for {stay:g} s")

    try:
        return flow.update(
            layout, service, bundle, lambda p: manifest, install, check, tell, stay, step
        )
    except (bundles.BundleError, bundles.InstallError) as err:
        raise _status(err) from None  # nothing was switched
    except flow.ReleaseRefused as err:
        raise ReleaseCheckFailed(
            f"release {version} failed its check, nothing was switched ({running} runs): {err}"
        ) from None


def _status(err: Exception) -> CompanionError:
    """bundle.py's error with its own exit status (65 not a bundle or changed, 66 another
    architecture or Python, 70 the build failed, 73 no room)."""
    error = CompanionError(str(err))
    error.exit_status = int(getattr(err, "status", DataError.exit_status))
    return error


def check_release(release: Path) -> str | None:
    """The new release's own offline check, as the service user; None if it passed."""
    program = release / "venv" / "bin" / "trap-companion"
    cmd = [str(program), "check", "--offline", "--config", str(paths.CONFIG_FILE)]
    try:
        import pwd

        pwd.getpwnam(paths.SERVICE_USER)
        cmd = ["runuser", "-u", paths.SERVICE_USER, "--", *cmd]
    except KeyError:
        pass  # no service user (a test's layout): as root
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=CHECK_SECONDS, env=env, cwd="/"
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{program} could not run: {err}"
    if proc.returncode == 0:
        return None
    said = [line for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
    return f"exit {proc.returncode}: " + (said[-1].strip() if said else "no message")


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _say(text: str) -> None:
    print(text, flush=True)
