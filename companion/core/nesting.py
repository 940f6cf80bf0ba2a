"""How deep the brackets of a JSON or TOML text go, counted without parsing it.

Both parsers recurse once per bracket: thousands of nested brackets end in RecursionError
deep in the stack, where any finalizer the garbage collector runs at that moment (a GPIO
device closing itself, a file) fails too and is reported as an exception ignored. So a text
nested deeper than anything the box or an editor writes is refused before it reaches the
parser. Brackets inside strings (and TOML comments) do not count."""

from __future__ import annotations

MAX_DEPTH = 64  # the box's own files nest 3 deep; tomllib alone fails past about 300

_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")


def _few_brackets(text: bytes | str, limit: int) -> bool:
    """True when there are too few opening brackets to go past ``limit`` (a C-speed count, so
    the usual small file is never scanned character by character)."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{") <= limit
    return text.count("[") + text.count("{") <= limit


def json_too_deep(text: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON text nests more than ``limit`` brackets deep (strings skipped)."""
    if _few_brackets(text, limit):
        return False
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            if depth > limit:
                return True
        elif byte in _CLOSE:
            depth -= 1
    return False


def toml_deep_line(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The first line where more than ``limit`` brackets are open, or None. Basic, literal and
    multi-line strings and comments are skipped, so a card name with brackets never counts."""
    if _few_brackets(text, limit):
        return None
    depth, line, at, end = 0, 1, 0, len(text)
    while at < end:
        char = text[at]
        if char == "\n":
            line += 1
        elif char == "#":
            newline = text.find("\n", at)
            at = end if newline < 0 else newline
            continue
        elif char in "\"'":
            fence = char * 3 if text.startswith(char * 3, at) else char
            close = _string_end(text, at + len(fence), fence)
            line += text.count("\n", at, close)
            at = close
            continue
        elif char in "[{":
            depth += 1
            if depth > limit:
                return line
        elif char in "]}":
            depth -= 1
        at += 1
    return None


def _string_end(text: str, at: int, fence: str) -> int:
    """Where the string whose body starts at ``at`` ends (past its closing fence); the end of
    the text (or of the line, for a one-line string) when it is never closed."""
    basic = fence[0] == '"'
    end = len(text)
    while at < end:
        char = text[at]
        if basic and char == "\\":
            at += 2
            continue
        if len(fence) == 1 and char == "\n":
            return at
        if text.startswith(fence, at):
            return at + len(fence)
        at += 1
    return end
