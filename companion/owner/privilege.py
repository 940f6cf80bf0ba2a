"""A command run as root that writes a state directory writes it as the directory's owner (the
service's user, for an installed box's): what it writes keeps the owner, group and mode the box
gives its files, and root never makes a file the box then cannot read."""

from __future__ import annotations

import logging
import os
import pwd
from pathlib import Path

log = logging.getLogger(__name__)


def become_owner_of(directory: Path) -> str | None:
    """As root: become the user and group owning ``directory`` (its user's groups too) for the
    rest of this process; the user's name, or None when nothing changed (not root, or the
    directory is root's own)."""
    if os.geteuid() != 0:
        return None
    st = os.stat(directory)
    if st.st_uid == 0:
        return None
    try:
        name = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        name = str(st.st_uid)
        os.setgroups([st.st_gid])
    else:
        os.initgroups(name, st.st_gid)
    os.setgid(st.st_gid)
    os.setuid(st.st_uid)
    log.debug("writing %s as %s", directory, name)
    return name
