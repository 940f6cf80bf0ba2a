"""Deep nesting is refused before a parser recurses into it, and only deep nesting: brackets in
strings and comments never count."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.core.nesting import MAX_DEPTH, json_too_deep, toml_deep_line


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("x = 1\n", None),
        ("x = " + "[" * 65 + "]" * 65 + "\n", 1),
        ("a = 1\n\nx = " + "[" * 65 + "\n", 3),
        ("x = " + "[" * 64 + "]" * 64 + "\n", None),  # exactly the limit is allowed
        ('name = "' + "[" * 200 + '"\n', None),  # a basic string
        ("name = '" + "{" * 200 + "'\n", None),  # a literal string
        ('name = """\n' + "[" * 200 + '\n"""\nx = ' + "[" * 65 + "\n", 4),  # multi-line
        ("name = '''" + "[" * 200 + "'''\n", None),
        ('name = "\\"' + "[" * 200 + '"\n', None),  # an escaped quote does not end it
        ("# " + "[" * 200 + "\nx = 1\n", None),  # a comment
        ("".join(f'[cards."{n:08X}"]\ngame = "dice"\n' for n in range(500)), None),
    ],
)
def test_the_line_where_toml_nests_too_deep(text: str, line: int | None) -> None:
    assert toml_deep_line(text) == line


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        ('{"a": [1, 2]}', False),
        ("[" * 65, True),
        ("[" * 64 + "]" * 64, False),
        ('{"a": "' + "[" * 200 + '"}', False),
        ('{"a": "\\"' + "{" * 200 + '"}', False),
        (b"[" * 100_000, True),
    ],
)
def test_json_nesting_past_the_limit(text: str | bytes, deep: bool) -> None:
    assert json_too_deep(text) is deep


def _outcome(parse: Callable[[str], object], syntax: type[Exception], text: str) -> str:
    """ "parsed" or "syntax"; a RecursionError propagates and fails the test."""
    try:
        parse(text)
    except syntax:
        return "syntax"
    return "parsed"


pieces = st.sampled_from(["[", "]", "{", "}", '"', "'", "#", "\n", "\\", "x = ", "1", ",", " "])


@given(st.lists(pieces, max_size=400).map("".join), st.integers(0, 3000))
def test_what_passes_the_check_never_recurses_too_deep_in_tomllib(text: str, more: int) -> None:
    text = text + "x = " + "[" * more
    if toml_deep_line(text) is None:
        assert _outcome(tomllib.loads, tomllib.TOMLDecodeError, text) in ("parsed", "syntax")
    else:
        assert more > MAX_DEPTH or text.count("[") + text.count("{") > MAX_DEPTH


@given(st.lists(pieces, max_size=400).map("".join), st.integers(0, 3000))
def test_what_passes_the_check_never_recurses_too_deep_in_json(text: str, more: int) -> None:
    text = "[" * more + text
    if not json_too_deep(text):
        assert _outcome(json.loads, json.JSONDecodeError, text) in ("parsed", "syntax")
