"""Frozen value classes made at no cost at import: the box's events and effects.

``@dataclass(frozen=True)`` writes and compiles six methods for every class it makes; for the
few dozen events and effects the box declares, that was most of its start on a Pi Zero's CPU.
``@value`` gives such a class what the box uses of a frozen dataclass (construction by position
or by name with defaults, ``==``, ``hash``, the same ``repr``, no assignment after it is made,
``match`` by position) from methods shared by every value class, so declaring one compiles
nothing. Classes that ``dataclasses.replace`` or ``fields`` are used on stay dataclasses: made
with ``frozen``, they share those same methods and compile only their own ``__init__``.
"""

from __future__ import annotations

import inspect
from dataclasses import FrozenInstanceError, dataclass, fields
from typing import Any, ClassVar, TypeVar, dataclass_transform

T = TypeVar("T")


class _Value:
    """The methods every value class shares; ``_value_names`` and ``_value_defaults`` say its
    fields, in order, and the defaults of those that have one."""

    _value_names: ClassVar[tuple[str, ...]] = ()
    _value_defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        names = cls._value_names
        if len(args) > len(names):
            raise TypeError(
                f"{cls.__name__}() takes {len(names)} positional arguments but {len(args)} "
                "were given"
            )
        given = dict(zip(names, args, strict=False))
        for name, arg in kwargs.items():
            if name not in names:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
            if name in given:
                raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
            given[name] = arg
        defaults = cls._value_defaults
        for name in names:
            if name in given:
                object.__setattr__(self, name, given[name])
            elif name in defaults:
                object.__setattr__(self, name, defaults[name])
            else:
                raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in type(self)._value_names)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self)._value_names)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


_SHARED = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "_values")


@dataclass_transform()
def value(cls: type[T]) -> type[T]:
    """A frozen value class from the annotations of ``cls`` (its own, in order; a class
    attribute is the field's default). Only plain fields: no ``field(...)``, no inheritance."""
    names = tuple(inspect.get_annotations(cls))
    type.__setattr__(cls, "_value_names", names)
    type.__setattr__(
        cls, "_value_defaults", {n: cls.__dict__[n] for n in names if n in cls.__dict__}
    )
    type.__setattr__(cls, "__match_args__", names)
    for name in _SHARED:
        type.__setattr__(cls, name, _Value.__dict__[name])
    return cls


def frozen(cls: type[T]) -> type[T]:
    """A frozen dataclass (``dataclasses.replace``, ``fields``, ``field`` defaults and
    ``__post_init__`` work as on any) whose ``==``, ``hash`` and ``repr`` are shared by every
    such class instead of compiled for each: ``@dataclass(frozen=True)`` compiles six methods
    per class at import, this three. For values that change by ``replace`` (the box's value,
    its menus)."""
    made = dataclass(frozen=True, eq=False, repr=False)(cls)
    type.__setattr__(made, "_value_names", tuple(f.name for f in fields(made)))
    for name in ("__eq__", "__hash__", "__repr__", "_values"):
        type.__setattr__(made, name, _Value.__dict__[name])
    return made
