"""The Raspberry Pi boot configuration the box needs, applied to a boot partition.

config.txt gets our lines between two marker lines, so applying again replaces only our block and
the owner's own lines are never touched. cmdline.txt loses the serial console, which would
otherwise talk to the card reader. What each model needs is data: firmware/*.txt and
firmware/models.toml.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError, DataError, HardwareError, UsageError
from companion.pi.paths import MODEL_FILE

log = logging.getLogger(__name__)

BEGIN = "# >>> trap-companion >>>"
END = "# <<< trap-companion <<<"
BACKUP_SUFFIX = ".trap-companion.bak"
CONFIG_TXT = "config.txt"
CMDLINE_TXT = "cmdline.txt"
# A kernel console on the UART the reader uses: `console=serial0,115200`, `console=ttyAMA0`.
SERIAL_CONSOLE = re.compile(r"console=(?:serial0|ttyAMA0)(?:,\S*)?")


@dataclass(frozen=True)
class BoardModel:
    name: str
    fragment: str
    reader_port: str
    detect: tuple[str, ...]


def firmware_dir() -> Path:
    """The folder of fragments: the checkout's firmware/, or the copy install.sh makes."""
    candidates = (
        Path(__file__).resolve().parents[2] / "firmware",
        Path(sys.prefix) / "share" / "trap-companion" / "firmware",
    )
    for candidate in candidates:
        if (candidate / "models.toml").is_file():
            return candidate
    raise DataError(
        "the boot configuration files are missing: no models.toml in "
        + " or ".join(str(c) for c in candidates)
        + " (reinstall with `sudo make install`)"
    )


def load_models(directory: Path | None = None) -> dict[str, BoardModel]:
    path = (directory or firmware_dir()) / "models.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return {
            name: BoardModel(
                name=name,
                fragment=str(entry["fragment"]),
                reader_port=str(entry["reader_port"]),
                detect=tuple(str(prefix) for prefix in entry["detect"]),
            )
            for name, entry in data["models"].items()
        }
    except OSError as err:
        raise DataError(f"{path}: cannot read: {err.strerror}") from err
    except (tomllib.TOMLDecodeError, KeyError, TypeError, AttributeError) as err:
        raise DataError(f"{path}: not a valid model table ({type(err).__name__}: {err})") from err


def detect_model(model_file: Path = MODEL_FILE, models: dict[str, BoardModel] | None = None) -> str:
    """The model name (pi3, pi4, pi5, zero2w, zerow) of the board this runs on."""
    models = load_models() if models is None else models
    try:
        text = model_file.read_bytes().decode("utf-8", "replace").rstrip("\0\n ")
    except FileNotFoundError as err:
        raise HardwareError(
            f"cannot tell which Raspberry Pi this is: {model_file} does not exist "
            "(not a Raspberry Pi?); pass --model " + "|".join(sorted(models))
        ) from err
    except OSError as err:
        raise HardwareError(f"cannot read {model_file}: {err.strerror}") from err
    best = max(
        (
            (len(prefix), name)
            for name, m in models.items()
            for prefix in m.detect
            if text.startswith(prefix)
        ),
        default=None,
    )
    if best is None:
        raise HardwareError(
            f"{model_file} says {text!r}, which is not a supported board "
            f"({', '.join(sorted(models))}); pass --model if it is compatible with one of them"
        )
    return best[1]


def fragment_lines(model: BoardModel, directory: Path | None = None) -> list[str]:
    """The configuration lines of a model's fragment, without its comments and blank lines."""
    path = (directory or firmware_dir()) / model.fragment
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise DataError(f"{path}: cannot read: {err.strerror}") from err
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def with_block(text: str, lines: Sequence[str], model: str, origin: str = CONFIG_TXT) -> str:
    """config.txt with our block (markers included) replaced, or appended if absent."""
    own = text.splitlines(keepends=True)
    newline = "\r\n" if any(line.endswith("\r\n") for line in own) else "\n"
    block = [
        BEGIN + newline,
        f"# Written by `trap-companion firmware apply --model {model}`; changes here are" + newline,
        "# replaced on the next apply. Put your own lines outside these markers." + newline,
        *(line + newline for line in lines),
        END + newline,
    ]
    begins = [i for i, line in enumerate(own) if line.strip() == BEGIN]
    ends = [i for i, line in enumerate(own) if line.strip() == END]
    if not begins and not ends:
        if own and not own[-1].endswith("\n"):
            own[-1] += newline
        separator = [newline] if own and own[-1].strip() else []
        return "".join(own + separator + block)
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        where = ", ".join(f"line {i + 1}: {own[i].strip()}" for i in sorted(begins + ends))
        raise DataError(
            f"{origin}: the trap-companion marker lines are damaged ({where}); "
            f"expected one {BEGIN!r} followed by one {END!r}: fix or delete them by hand"
        )
    start, stop = begins[0], ends[0]
    tail = own[stop + 1 :]
    return "".join(own[:start] + block + tail)


def without_serial_console(text: str, origin: str = CMDLINE_TXT) -> str:
    """cmdline.txt without a kernel console on the reader's UART; every other byte is kept."""
    body = text.rstrip("\r\n")
    ending = text[len(body) :]
    if "\n" in body or "\r" in body:
        count = len([line for line in text.splitlines() if line.strip()])
        raise DataError(
            f"{origin}: expected the kernel command line on a single line, found {count} lines"
        )
    tokens = body.split(" ")
    kept = [token for token in tokens if not SERIAL_CONSOLE.fullmatch(token)]
    if len(kept) == len(tokens):
        return text
    return " ".join(kept) + ending


@dataclass(frozen=True)
class FileChange:
    path: Path
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=str(self.path),
                tofile=f"{self.path} (after apply)",
            )
        )


@dataclass(frozen=True)
class Plan:
    model: BoardModel
    changes: tuple[FileChange, ...]

    @property
    def changed(self) -> bool:
        return any(change.changed for change in self.changes)

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes if change.changed)


def require_boot_dir(boot: Path) -> None:
    if not boot.is_dir():
        raise UsageError(
            f"boot directory {boot} does not exist or is not a directory "
            "(Raspberry Pi OS Bookworm mounts it at /boot/firmware)"
        )


def plan(boot: Path, model_name: str, directory: Path | None = None) -> Plan:
    """What applying would write, without writing anything."""
    require_boot_dir(boot)
    models = load_models(directory)
    if model_name not in models:
        raise UsageError(f"unknown model {model_name!r}: one of {', '.join(sorted(models))}")
    model = models[model_name]
    lines = fragment_lines(model, directory)
    config_path, cmdline_path = boot / CONFIG_TXT, boot / CMDLINE_TXT
    config = _read(config_path)
    cmdline = _read(cmdline_path)
    return Plan(
        model=model,
        changes=(
            FileChange(
                config_path, config, with_block(config, lines, model.name, str(config_path))
            ),
            FileChange(cmdline_path, cmdline, without_serial_console(cmdline, str(cmdline_path))),
        ),
    )


def apply(planned: Plan) -> list[Path]:
    """Write the plan's changed files, each after a backup; returns the files written."""
    written = []
    for change in planned.changes:
        if not change.changed:
            continue
        backup = change.path.with_name(change.path.name + BACKUP_SUFFIX)
        for target, text in ((backup, change.before), (change.path, change.after)):
            try:
                _replace(target, text)
            except OSError as err:
                hint = " (run it with sudo)" if isinstance(err, PermissionError) else ""
                raise CompanionError(f"cannot write {target}: {err.strerror}{hint}") from err
        log.info("updated %s (the previous version is in %s)", change.path, backup.name)
        written.append(change.path)
    return written


def _read(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError as err:
        raise DataError(f"{path} does not exist: is this the boot partition?") from err
    except UnicodeDecodeError as err:
        raise DataError(f"{path}: not a text file (byte {err.start} is not UTF-8)") from err
    except OSError as err:
        raise DataError(f"{path}: cannot read: {err.strerror}") from err


def _replace(path: Path, text: str) -> None:
    """Write through a temporary file and a rename, so a power cut leaves old or new."""
    temporary = path.with_name(path.name + ".trap-companion.tmp")
    try:
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
