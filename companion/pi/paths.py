"""Where an installed box keeps things. systemd/install.sh and the unit file use the same paths;
keep the three in step."""

from __future__ import annotations

from pathlib import Path

from companion.core.config import INSTALLED_STATE_DIR

INSTALL_DIR = Path("/opt/trap-companion")
# The release the units run (issue 34): releases/<version>, named by the `current` link.
VENV_DIR = INSTALL_DIR / "current" / "venv"
CONFIG_DIR = Path("/etc/trap-companion")
CONFIG_FILE = CONFIG_DIR / "config.toml"
STATE_DIR = INSTALLED_STATE_DIR
UNIT_NAME = "trap-companion.service"
SERVICE_USER = "trap-companion"
DEVICE_GROUPS = ("gpio", "i2c", "dialout")

# Raspberry Pi OS Bookworm mounts the boot partition here (older releases used /boot).
BOOT_DIR = Path("/boot/firmware")
# The board's model string, NUL-terminated, from the device tree.
MODEL_FILE = Path("/proc/device-tree/model")
