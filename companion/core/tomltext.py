"""TOML in and out: files the owner edits are parsed with one way to fail, and a value is quoted
as TOML writes it (the registry saves cards with it; messages say ``true``, not ``True``)."""

from __future__ import annotations

import datetime
import json
import tomllib
from typing import Any

from companion.core.nesting import toml_deep_line


def parse_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads`` failing only with ValueError (it raises a bare one for a number of more
    than 4300 digits); nesting that would make it recurse too deep is refused first."""
    deep = toml_deep_line(text)
    if deep is not None:
        raise ValueError(f"nested too deep (line {deep})")
    return tomllib.loads(text)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)  # inf, -inf, nan and 1e+20 are TOML too
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    return json.dumps(str(value), ensure_ascii=False)
