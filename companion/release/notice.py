"""Saying that an update failed and the box went back: in the journal, and once on the OLED.

The OLED belongs to the daemon, so the updater (root, or the guard unit) leaves a small file in
the state directory; the daemon takes it at its next start (companion/core/update_notice.py,
from companion/app/box.py's ``_update_notice``) and shows it with start-up's other notices.
"""

from __future__ import annotations

import json
import logging
import os
import pwd
import syslog
from pathlib import Path

from companion.core.update_notice import NOTICE_FILE, take  # noqa: F401  (the daemon's side)
from companion.release.layout import write_durably

log = logging.getLogger(__name__)

IDENT = "trap-companion-update"  # journalctl -t trap-companion-update
SERVICE_USER = "trap-companion"


def to_journal(message: str, error: bool = True) -> None:
    """One line in the system journal (syslog reaches journald), whoever runs the update."""
    syslog.openlog(IDENT, 0, syslog.LOG_DAEMON)
    syslog.syslog(syslog.LOG_ERR if error else syslog.LOG_NOTICE, message)
    syslog.closelog()


def leave(state_dir: Path, message: str) -> None:
    """The notice the daemon shows at its next start (at most one: the latest)."""
    path = state_dir / NOTICE_FILE
    try:
        write_durably(path, json.dumps({"lines": [_sentence(message)]}) + "\n")
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam(SERVICE_USER)
                os.chown(path, user.pw_uid, user.pw_gid)
            except KeyError:
                pass
    except OSError as err:
        log.warning("cannot leave the notice in %s: %s", path, err)


def _sentence(message: str) -> str:
    """'update to 0.3 failed (why): back on 0.2' -> 'Update to 0.3 failed: back on 0.2': the
    why is the journal's; the screen says what happened."""
    head, _, tail = message.partition(" (")
    back = tail.partition("): ")[2] if tail else ""
    text = f"{head}: {back}" if back else message
    return text[:1].upper() + text[1:]
