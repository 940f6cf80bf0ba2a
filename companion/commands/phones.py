"""`trap-companion phones enable|disable|status`: the phones at the table on an installed box.

Enable sets ``[phones] enabled = true`` in the config and writes the systemd drop-in that gives
the service its network (loopback and the private ranges only), then restarts the service;
disable undoes both. ``--root DIR`` works on a tree laid out by the installer, for packaging
and tests: no root, no systemctl.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from companion.core import config as configuration
from companion.errors import CompanionError, PermissionDenied
from companion.pi import phones
from companion.pi.paths import CONFIG_FILE, UNIT_NAME

UNIT_DIR = Path("/etc/systemd/system")  # systemd/common.sh's UNIT_DIR


class NotInstalled(CompanionError):
    """No installed box to change (sysexits' UNAVAILABLE)."""

    exit_status = 69


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "phones",
        help="let phones at the table see the box (enable, disable, status)",
        description="Phones on the box's own network pair with a code the box shows and then "
        "see whose turn it is, the scores and the cards. The traffic is plain HTTP: use it on "
        "a home network only. Exit status 77 without root, 78 on a bad config.",
    )
    p.add_argument("action", choices=("enable", "disable", "status"))
    p.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help=f"the config to change (default: {CONFIG_FILE}, under --root if given)",
    )
    p.add_argument(
        "--root",
        type=Path,
        metavar="DIR",
        help="work on files under DIR only (no root needed, systemd is not told)",
    )
    p.add_argument(
        "--no-restart", action="store_true", help="do not restart the service afterwards"
    )
    p.set_defaults(func=main)


PHONES_UNIT_NAME = "trap-companion-phones.service"  # systemd/trap-companion-phones.service


def _systemctl(*args: str) -> None:
    subprocess.run(["systemctl", *args], check=False, timeout=60)


def main(args: argparse.Namespace) -> int:
    root: Path | None = args.root
    config_path = args.config or (
        CONFIG_FILE if root is None else root / CONFIG_FILE.relative_to("/")
    )
    dropin = phones.dropin_path(root)
    if args.action == "status":
        on = configuration.load(config_path).phones if config_path.exists() else None
        enabled = bool(on and on.enabled)
        port = on.port if on else configuration.PhonesConfig().port
        has_dropin = dropin.exists()
        print(f"config {config_path}: phones {'enabled' if enabled else 'disabled'}, port {port}")
        print(f"systemd drop-in {dropin}: {'present' if has_dropin else 'absent'}")
        if enabled != has_dropin:
            fix = "enable" if enabled else "disable"
            print(f"they disagree: run `sudo trap-companion phones {fix}`")
            return 1
        return 0
    on = args.action == "enable"
    if root is None and os.geteuid() != 0:
        raise PermissionDenied(f"run it as root: sudo trap-companion phones {args.action}")
    unit = (UNIT_DIR if root is None else root / UNIT_DIR.relative_to("/")) / UNIT_NAME
    if not unit.exists() or not config_path.exists():
        missing = unit if not unit.exists() else config_path
        raise NotInstalled(
            f"{missing} does not exist: the box is not installed here (sudo make install), "
            "or name the tree with --root"
        )
    changed_config = phones.set_config(config_path, on)
    changed_dropin = phones.set_dropin(root, on)
    word = "enabled" if on else "disabled"
    print(f"{config_path}: phones {word}" + ("" if changed_config else " (already)"))
    print(
        f"{dropin}: " + ("written" if on else "removed") + ("" if changed_dropin else " (already)")
    )
    if root is None:
        _systemctl("daemon-reload")
        if not on:  # the phones' own unit (BindsTo= does not stop it on a restart)
            _systemctl("stop", PHONES_UNIT_NAME)
        if not args.no_restart:
            _systemctl("try-restart", UNIT_NAME)
            print(f"restarted {UNIT_NAME} (if it was running)")
    if on and root is None and importlib.util.find_spec("aiohttp") is None:
        print(
            "warning: aiohttp is not installed here, so the box cannot serve phones: "
            "run `sudo make install` again from the clone (it installs trap-companion[web])",
            file=sys.stderr,
        )
    if on:
        port = configuration.load(config_path).phones.port
        print(
            f"Phones on the box's network: open http://<the box's address>:{port}/ and pick "
            "'Pair a phone' in the box's game menu. The traffic is plain HTTP (not encrypted): "
            "use it on a home network only."
        )
    return 0
