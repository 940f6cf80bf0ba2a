"""Reading the games' TOML tables with messages that name the file and the key, so an owner who
edits a table learns exactly what to fix (exit 65 through DataError)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from companion.errors import DataError

DATA_DIR = Path(__file__).resolve().parent / "data"


def shipped(name: str) -> Path:
    """A table that ships in companion/games/data/."""
    return DATA_DIR / name


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML table, or DataError naming the file (and, from tomllib, the line)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise DataError(f"{path}: cannot be read ({err.strerror or err})") from None
    except UnicodeDecodeError:
        raise DataError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise DataError(f"{path}: not valid TOML: {err}") from None


def need(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``table[key]`` if it is of ``kind`` (a bool is never a number here)."""
    if key not in table:
        raise DataError(f"{where}: missing {key!r}")
    value = table[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise DataError(f"{where}.{key}: expected {_names(kinds)}, got {_toml(value)}")
    if not isinstance(value, kinds):
        raise DataError(f"{where}.{key}: expected {_names(kinds)}, got {_toml(value)}")
    return value


def colour(value: Any, where: str) -> tuple[float, float, float]:
    """An LED colour: three numbers 0..1."""
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        or not all(0 <= v <= 1 for v in value)
    ):
        raise DataError(f"{where}: an LED colour is three numbers 0..1, got {_toml(value)}")
    return (float(value[0]), float(value[1]), float(value[2]))


def _names(kinds: tuple[type, ...]) -> str:
    words = {str: "text", int: "a whole number", float: "a number", list: "a list", dict: "a table"}
    return " or ".join(words.get(k, k.__name__) for k in kinds)


def _toml(value: Any) -> str:
    """A value as the owner typed it in TOML (``true``, not Python's ``True``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)
