"""``python -m companion.release.guard boot|failed``: the units that go back without anyone.

Run from the release kept for going back (``previous``), which during a trial is always the
proven one the trial came from (companion/release/update.py writes ``previous`` first).

- boot: before the box starts. A trial marker from an earlier boot means a power cut or a
  reboot came before the new release was proven: go back to the old one.
- failed: the box's unit failed (OnFailure=) during a trial. Wait for an update that is still
  running (it sees the failure itself), then go back if the marker is still there, and start
  the box again.

Exit status 0 also when there was nothing to do; the one line of what it did is in the journal
(journalctl -t trap-companion-update) and, for the OLED, in the state dir.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from companion.release import lock, notice
from companion.release import trial as trials
from companion.release.layout import Layout, pin_release
from companion.release.systemd import UNIT

log = logging.getLogger(__name__)

STATE_DIR = Path("/var/lib/trap-companion")
WAIT_FOR_UPDATE = 900.0  # seconds: an update proving its release holds the lock that long


def recover(
    layout: Layout, why: str, this_boot: str | None, tell: Callable[[str], None]
) -> str | None:
    """Go back if a trial is under way and nobody proves it; the message, or None.
    ``this_boot``: at boot, a marker written in this same boot is left alone."""
    trial = trials.read(layout)
    if trial is None:
        return None
    if this_boot is not None and trial.boot_id == this_boot:
        return None
    message = trial.failed_message(why)
    # After a cut the new release is not known to be bad: an update to it again reuses it.
    trials.go_back(layout, trial, lambda: tell(message), remove_failed=this_boot is None)
    return message


def tell(message: str, state_dir: Path = STATE_DIR) -> None:
    notice.to_journal(message)
    notice.leave(state_dir, message)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args not in (["boot"], ["failed"]):
        print("usage: python -m companion.release.guard boot|failed", file=sys.stderr)
        return 2
    pin_release(["companion.release.guard", *args])
    layout = Layout()
    try:
        if args == ["boot"]:
            with lock.held(what="the boot guard"):
                message = recover(layout, "interrupted by a restart", trials.boot_id(), tell)
        else:
            with lock.held(wait_seconds=WAIT_FOR_UPDATE, what="the update guard"):
                message = recover(layout, "its unit failed", None, tell)
            if message:
                for cmd in (["reset-failed", UNIT], ["start", "--no-block", UNIT]):
                    subprocess.run(["systemctl", *cmd], check=False, timeout=60)
    except lock.Busy as err:
        log.error("%s; left as it is", err)
        return 1
    if not message:  # else it is in the journal already (notice.to_journal)
        log.info("no release on trial to go back from")
    return 0


if __name__ == "__main__":
    sys.exit(main())
