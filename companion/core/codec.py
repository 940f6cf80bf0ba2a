"""Dataclass values (a game's state) to a JSON value and back, for the journal's checkpoints.

Only the classes the codec was given are ever built: a name in a file is looked up in that
table, never imported. Every field is checked against its annotation as it is decoded, so a
value that decodes is one the rules can read (a checkpoint that does not is damage, as a
damaged journal line is). The encoding keeps Python's types exactly: a tuple is a JSON array;
a list, a set, a dict or a float JSON cannot write are tagged objects; a dataclass is an
object of its fields with its class's name under ``$``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

CLASS = "$"


class CodecError(ValueError):
    """A value that cannot be encoded, or a JSON value that is not one this codec wrote."""


def reachable(roots: Iterable[type]) -> tuple[type, ...]:
    """The dataclasses and enums that ``roots`` name in their fields' annotations, themselves
    included: the classes a state of these types can hold (unless a field says ``Any``)."""
    seen: list[type] = []
    todo = list(roots)
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.append(cls)
        if dataclasses.is_dataclass(cls):
            hints = typing.get_type_hints(cls)
            for f in dataclasses.fields(cls):
                todo.extend(_classes_in(hints[f.name]))
    return tuple(seen)


def _classes_in(hint: Any) -> list[type]:
    found: list[type] = []
    if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or issubclass(hint, enum.Enum)):
        found.append(hint)
    for arg in typing.get_args(hint):
        found.extend(_classes_in(arg))
    return found


class Codec:
    """Encodes values of the given classes (dataclasses, enums) and decodes them back."""

    def __init__(self, classes: Iterable[type]) -> None:
        self.classes: dict[str, type] = {}
        self._hints: dict[type, dict[str, Any]] = {}
        for cls in classes:
            name = cls.__qualname__
            if self.classes.get(name, cls) is not cls:
                raise ValueError(f"two classes named {name} in one codec")
            self.classes[name] = cls
            if dataclasses.is_dataclass(cls):
                self._hints[cls] = typing.get_type_hints(cls)

    # --- encode -----------------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        """A JSON value (dicts, lists, str, int, float, bool, None) for ``value``."""
        if value is None or isinstance(value, bool | int | str):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {"$float": repr(value)}
        if isinstance(value, tuple):
            return [self.encode(v) for v in value]
        if isinstance(value, list):
            return {"$list": [self.encode(v) for v in value]}
        if isinstance(value, frozenset | set):
            items = sorted(
                (self.encode(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True)
            )
            return {"$frozenset" if isinstance(value, frozenset) else "$set": items}
        if isinstance(value, dict):
            return {"$dict": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        cls = type(value)
        if self.classes.get(cls.__qualname__) is not cls:
            raise CodecError(f"{cls.__qualname__} is not a class this codec may write")
        if isinstance(value, enum.Enum):
            return {"$enum": cls.__qualname__, "name": value.name}
        out: dict[str, Any] = {CLASS: cls.__qualname__}
        for f in dataclasses.fields(value):
            if f.init:
                out[f.name] = self.encode(getattr(value, f.name))
        return out

    # --- decode -----------------------------------------------------------------------------

    def decode(self, data: Any, expect: Any = Any) -> Any:
        """The value ``data`` encodes; CodecError (saying what and where) for anything else,
        or for a value that is not of type ``expect``."""
        value = self._decode(data, "state")
        if not _fits(value, expect):
            raise CodecError(f"state: not a {_name(expect)}")
        return value

    def _decode(self, data: Any, where: str) -> Any:
        if data is None or isinstance(data, bool | int | str):
            return data
        if isinstance(data, float):
            return data
        if isinstance(data, list):
            return tuple(self._decode(v, f"{where}[{i}]") for i, v in enumerate(data))
        if not isinstance(data, dict):
            raise CodecError(f"{where}: not a value this codec writes")
        if CLASS in data:
            return self._dataclass(data, where)
        if len(data) == 1:
            (tag, body), *_ = data.items()
            return self._tagged(tag, body, where)
        if set(data) == {"$enum", "name"}:
            return self._enum(data["$enum"], data["name"], where)
        raise CodecError(f"{where}: an object with no class")

    def _tagged(self, tag: str, body: Any, where: str) -> Any:
        if tag == "$float" and body in ("inf", "-inf", "nan"):
            return float(body)
        if not isinstance(body, list):
            raise CodecError(f"{where}: {tag} without a list")
        items = [self._decode(v, f"{where}[{i}]") for i, v in enumerate(body)]
        try:
            if tag == "$list":
                return items
            if tag == "$frozenset":
                return frozenset(items)
            if tag == "$set":
                return set(items)
            if tag == "$dict" and all(isinstance(p, tuple) and len(p) == 2 for p in items):
                return dict(items)
        except TypeError as err:  # an unhashable member or key
            raise CodecError(f"{where}: {err}") from None
        raise CodecError(f"{where}: {tag!r} is not a value this codec writes")

    def _enum(self, name: Any, member: Any, where: str) -> Any:
        cls = self.classes.get(name) if isinstance(name, str) else None
        if cls is None or not issubclass(cls, enum.Enum):
            raise CodecError(f"{where}: {name!r} is not a class this state may hold")
        if not isinstance(member, str) or member not in cls.__members__:
            raise CodecError(f"{where}: {name} has no member {member!r}")
        return cls[member]

    def _dataclass(self, data: dict[str, Any], where: str) -> Any:
        name = data[CLASS]
        cls = self.classes.get(name) if isinstance(name, str) else None
        if cls is None or cls not in self._hints:
            raise CodecError(f"{where}: {name!r} is not a class this state may hold")
        hints = self._hints[cls]
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
        extra = sorted(set(data) - set(fields) - {CLASS})
        if extra:
            raise CodecError(f"{where}: {name} has no field {extra[0]!r}")
        kwargs: dict[str, Any] = {}
        for key, f in fields.items():
            at = f"{where}.{key}"
            if key not in data:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise CodecError(f"{at}: missing")
                continue
            value = self._decode(data[key], at)
            if not _fits(value, hints[key]):
                raise CodecError(f"{at}: {_shown(value)} is not a {_name(hints[key])}")
            kwargs[key] = value
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as err:  # a class that checks its own values
            raise CodecError(f"{where}: {name}: {err}") from None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the annotated type (as far as the codec can build values)."""
    if hint is Any or hint is object:
        return True
    if hint is None or hint is type(None):
        return value is None
    if hint is float:  # an int is a float's value too (PEP 484): kept as the int it was
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_fits(value, a) for a in args)
    if origin is typing.Literal:
        return value in args
    if origin is None:
        return isinstance(value, hint) if isinstance(hint, type) else True
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if not args:
            return True
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        if len(args) != len(value):
            return False
        return all(_fits(v, a) for v, a in zip(value, args, strict=True))
    if origin in (dict, Mapping):
        if not isinstance(value, dict):
            return False
        key, item = args if len(args) == 2 else (Any, Any)
        return all(_fits(k, key) and _fits(v, item) for k, v in value.items())
    if isinstance(origin, type) and isinstance(value, origin):
        return not args or all(_fits(v, args[0]) for v in value)
    return False
