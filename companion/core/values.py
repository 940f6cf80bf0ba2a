"""Frozen value classes made at no cost at import: the box's events, effects, menus' and games'
values, its configuration.

``@dataclass(frozen=True)`` writes and compiles six methods for every class it makes; for the
classes the box declares before its first screen, that was most of its own start on a Pi Zero's
CPU. ``@value`` gives such a class what the box uses of a frozen dataclass (construction by
position or by name with defaults, ``field(default_factory=..., compare=..., repr=...)``, ``==``,
``hash``, the same ``repr``, no assignment after it is made, ``match`` by position, and the
dataclass fields that ``dataclasses.replace``, ``fields`` and ``asdict`` read) from methods shared
by every value class, so declaring one compiles nothing. Values that change by ``replace`` (the
box's value, its menus) are made with ``frozen``: real frozen dataclasses that share ``==``,
``hash`` and ``repr`` and compile only their own ``__init__``.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, fields
from typing import Any, ClassVar, TypeVar, dataclass_transform

T = TypeVar("T")


class _Value:
    """The methods every value class shares; ``_value_names`` and ``_value_defaults`` say its
    fields, in order, and the defaults of those that have one."""

    _value_names: ClassVar[tuple[str, ...]] = ()
    _value_defaults: ClassVar[dict[str, Any]] = {}
    _value_factories: ClassVar[dict[str, Any]] = {}  # field(default_factory=...): made each time
    _value_compared: ClassVar[tuple[str, ...]] = ()  # what == and hash read (compare=True)
    _value_shown: ClassVar[tuple[str, ...]] = ()  # what repr shows (repr=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """The first value made of a class compiles its own ``__init__`` (as a dataclass's,
        the same arguments and errors) and puts it on the class: a class is compiled when it
        is first used, not when it is declared, and those never made cost nothing."""
        init = _compiled_init(type(self))
        init(self, *args, **kwargs)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in type(self)._value_compared)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self)._value_shown)
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


_FACTORY = object()  # the default of a field made by a factory: the factory is called instead


def _compiled_init(cls: type) -> Any:
    names = cls._value_names  # type: ignore[attr-defined]
    defaults, factories = cls._value_defaults, cls._value_factories  # type: ignore[attr-defined]
    scope: dict[str, Any] = {"_FACTORY": _FACTORY}
    params, body = [], []
    for i, name in enumerate(names):
        if name in defaults:
            scope[f"_d{i}"] = defaults[name]
            params.append(f"{name}=_d{i}")
            body.append(f"    _fields[{name!r}] = {name}")
        elif name in factories:
            scope[f"_f{i}"] = factories[name]
            params.append(f"{name}=_FACTORY")
            body.append(f"    _fields[{name!r}] = _f{i}() if {name} is _FACTORY else {name}")
        else:
            params.append(name)
            body.append(f"    _fields[{name!r}] = {name}")
    # Straight into the instance's dict, past the class's own __setattr__ (a frozen
    # dataclass's __init__ goes past it with object.__setattr__, one call a field).
    head = [f"def __init__(self, {', '.join(params)}):", "    _fields = self.__dict__"]
    code = "\n".join([*head, *body])
    exec(code, scope)  # built from the field names of the class alone
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    type.__setattr__(cls, "__init__", init)
    return init


_SHARED = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "_values")


@dataclass_transform(field_specifiers=(dataclasses.field,))
def value(cls: type[T]) -> type[T]:
    """A frozen value class from the annotations of ``cls`` (its own, in order; a class
    attribute is the field's default, or a ``dataclasses.field``). No inheritance of fields."""
    annotations = inspect.get_annotations(cls)
    names = tuple(annotations)
    defaults, factories, found = {}, {}, {}
    for name in names:
        given = cls.__dict__.get(name, MISSING)
        spec = given if isinstance(given, Field) else dataclasses.field(default=given)
        spec.name, spec.type = name, annotations[name]
        spec._field_type = dataclasses._FIELD  # type: ignore[attr-defined]  # as dataclass marks it
        found[name] = spec
        if spec.default is not MISSING:
            defaults[name] = spec.default
            type.__setattr__(cls, name, spec.default)
        elif spec.default_factory is not MISSING:
            factories[name] = spec.default_factory
            type.__delattr__(cls, name)
    type.__setattr__(cls, "__dataclass_fields__", found)
    type.__setattr__(cls, "_value_names", names)
    type.__setattr__(cls, "_value_defaults", defaults)
    type.__setattr__(cls, "_value_factories", factories)
    type.__setattr__(cls, "_value_compared", tuple(n for n in names if found[n].compare))
    type.__setattr__(cls, "_value_shown", tuple(n for n in names if found[n].repr))
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
    found = fields(made)
    type.__setattr__(made, "_value_names", tuple(f.name for f in found))
    type.__setattr__(made, "_value_compared", tuple(f.name for f in found if f.compare))
    type.__setattr__(made, "_value_shown", tuple(f.name for f in found if f.repr))
    for name in ("__eq__", "__hash__", "__repr__", "_values"):
        type.__setattr__(made, name, _Value.__dict__[name])
    return made
