"""Errors that reach the user, each with its own exit status (sysexits.h where one fits)."""

from __future__ import annotations


class CompanionError(Exception):
    """A problem the user can fix; ``str()`` names what and where."""

    exit_status = 1


class UsageError(CompanionError):
    """Bad command-line input or a bad replay script line."""

    exit_status = 2


class DataError(CompanionError):
    """A data file (journal, card registry, board profile) that cannot be read."""

    exit_status = 65


class HardwareError(CompanionError):
    """A part that is missing or does not answer."""

    exit_status = 69


class ConfigError(CompanionError):
    """The configuration is invalid. systemd does not restart on this status."""

    exit_status = 78


class StateDirError(CompanionError):
    """The state directory (journal, cards) cannot be made or written (sysexits' CANTCREAT)."""

    exit_status = 73


class PermissionDenied(CompanionError):
    """The command changes the installed system and needs root (sysexits' NOPERM)."""

    exit_status = 77


class PortTaken(CompanionError):
    """A web face's port is used by another program (sysexits' UNAVAILABLE)."""

    exit_status = 69

    def __init__(self, host: str, port: int, why: str = "") -> None:
        self.host, self.port = host, port
        more = f" ({why})" if why else ""
        super().__init__(
            f"port {port} on {host} is already taken{more}: stop what uses it or pick another "
            "with --port"
        )
