"""What makes two values of the box the same, for the walk's set of values already seen.

The box's value is a frozen dataclass, but a question of play holds a form's answers in a dict
and functions the game made for it (``Form.questions``, ``Form.build``), so not every value
hashes. ``key`` is the value itself where it hashes, else a canonical encoding of it: plain
tuples of its fields, dicts as sorted pairs, a function by its name and what it closes over
(two forms made alike from the same state are one value; made from different states, two)."""

from __future__ import annotations

import dataclasses
from typing import Any

from companion.app.boxstate import BoxState


def key(box: BoxState) -> Any:
    try:
        hash(box)
        return box
    except TypeError:
        return tuple(_field(getattr(box, f.name)) for f in dataclasses.fields(box))


# Encodings by identity: a value shares most of its parts with the values before it (the
# session stays while a menu moves), so each part is encoded once. The object is kept with its
# encoding, so its identity is never reused meanwhile.
_known: dict[int, tuple[Any, Any]] = {}
KNOWN_MAX = 200_000


def _field(obj: Any) -> Any:
    got = _known.get(id(obj))
    if got is not None:
        return got[1]
    try:
        hash(obj)
        out = obj
    except TypeError:
        out = canon(obj, {})
    if len(_known) >= KNOWN_MAX:
        _known.clear()
    _known[id(obj)] = (obj, out)
    return out


def canon(obj: Any, memo: dict[int, Any]) -> Any:
    """A hashable encoding of ``obj`` that is equal for equal values."""
    known = memo.get(id(obj))
    if known is not None:
        return known
    memo[id(obj)] = ("cycle", id(obj))
    out = _canon(obj, memo)
    memo[id(obj)] = out
    return out


def _part(obj: Any, memo: dict[int, Any]) -> Any:
    """A part of a value: encoded once by identity when it is large (a value of its own)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _field_deep(obj)
    return canon(obj, memo)


def _field_deep(obj: Any) -> Any:
    """A dataclass part, encoded field by field (it may hash only by the identity of the
    functions it holds), once by identity."""
    got = _known.get(id(obj))
    if got is not None:
        return got[1]
    out = canon(obj, {})
    if len(_known) >= KNOWN_MAX:
        _known.clear()
    _known[id(obj)] = (obj, out)
    return out


_fields: dict[type, tuple[str, ...]] = {}


def _compared(cls: type) -> tuple[str, ...]:
    names = _fields.get(cls)
    if names is None:
        names = _fields[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.compare)
    return names


def _canon(obj: Any, memo: dict[int, Any]) -> Any:
    if isinstance(obj, str | int | float | bool | bytes | type(None)):
        return obj
    if isinstance(obj, dict):
        items = [(canon(k, memo), canon(v, memo)) for k, v in obj.items()]
        return ("dict", tuple(sorted(items, key=repr)))
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, tuple(canon(x, memo) for x in obj))
    if isinstance(obj, set | frozenset):
        return ("set", tuple(sorted((canon(x, memo) for x in obj), key=repr)))
    if callable(obj) and hasattr(obj, "__code__"):
        cells = tuple(_field(c.cell_contents) for c in (obj.__closure__ or ()))
        return ("fn", obj.__qualname__, cells)
    if dataclasses.is_dataclass(obj):
        names = _compared(type(obj))
        return (type(obj).__qualname__, tuple(_part(getattr(obj, n), memo) for n in names))
    try:
        hash(obj)
        return obj
    except TypeError:
        return ("repr", type(obj).__qualname__, repr(obj))


def same(a: Any, b: Any) -> bool:
    """Whether two values are the same, a function made afresh alike compared by its code and
    what it closes over (a game's question made twice from the same state is the same)."""
    if a is b:
        return True
    try:
        if a == b:
            return True
    except Exception:
        pass
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if callable(a) and hasattr(a, "__code__"):
        cells_a, cells_b = a.__closure__ or (), b.__closure__ or ()
        return (
            a.__code__ is b.__code__
            and len(cells_a) == len(cells_b)
            and all(
                same(x.cell_contents, y.cell_contents)
                for x, y in zip(cells_a, cells_b, strict=True)
            )
        )
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, n), getattr(b, n)) for n in _compared(type(a)))
    return False
