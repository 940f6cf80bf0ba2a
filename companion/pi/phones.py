"""Turning the phones at the table on and off on an installed box: the config's
``[phones] enabled`` and the systemd drop-in that gives the service a network.

The unit (systemd/trap-companion.service) has no network at all; the drop-in
``trap-companion.service.d/phones.conf`` opens IPv4 and IPv6 to loopback, link-local and the
private ranges only. Both change together, so the service never listens without the network
it needs, nor keeps a network it does not use.
"""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path

from companion.core.config import from_dict
from companion.core.tomltext import parse_toml
from companion.errors import ConfigError

DROPIN_DIR = Path("/etc/systemd/system/trap-companion.service.d")
DROPIN_NAME = "phones.conf"

_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$")
_ENABLED = re.compile(r"^\s*enabled\s*=")


def dropin_text() -> str:
    return resources.files("companion.data").joinpath("systemd-phones.conf").read_text("utf-8")


def dropin_path(root: Path | None = None) -> Path:
    base = DROPIN_DIR if root is None else root / DROPIN_DIR.relative_to("/")
    return base / DROPIN_NAME


def with_enabled(text: str, on: bool, where: str = "config") -> str:
    """The config text with ``[phones] enabled`` set, every other line as it was (comments
    too). Raises ConfigError if the result is not a valid config."""
    value = "true" if on else "false"
    lines = text.splitlines(keepends=True)
    section = None
    header_at = None
    for i, line in enumerate(lines):
        found = _SECTION.match(line)
        if found:
            section = found.group(1)
            if section == "phones":
                header_at = i
            continue
        if section == "phones" and _ENABLED.match(line):
            end = "\n" if line.endswith("\n") else ""
            lines[i] = f"enabled = {value}{end}"
            break
    else:
        if header_at is not None:
            lines.insert(header_at + 1, f"enabled = {value}\n")
        else:
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            lines.append(f"\n[phones]\nenabled = {value}\n")
    new = "".join(lines)
    try:
        from_dict(parse_toml(new), where)
    except ValueError as err:
        raise ConfigError(f"{where}: not valid TOML ({err})") from None
    return new


def set_config(path: Path, on: bool) -> bool:
    """Write ``enabled`` into the config file, keeping its mode. True if it changed."""
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read ({err})") from None
    if old:  # a broken config is named before anything is written
        try:
            from_dict(parse_toml(old), str(path))
        except ValueError as err:
            raise ConfigError(f"{path}: not valid TOML ({err})") from None
    new = with_enabled(old, on, str(path))
    if new == old:
        return False
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.new")
    tmp.write_text(new, encoding="utf-8")
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return True


def set_dropin(root: Path | None, on: bool) -> bool:
    """Write or remove the drop-in. True if it changed."""
    path = dropin_path(root)
    if on:
        text = dropin_text()
        if path.exists() and path.read_text(encoding="utf-8") == text:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.new")
        tmp.write_text(text, encoding="utf-8")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        return True
    if not path.exists():
        return False
    path.unlink()
    return True
