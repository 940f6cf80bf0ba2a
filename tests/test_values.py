"""The box's events and effects are ``@value`` classes: frozen values as a frozen dataclass
would make them (what the box relies on), declared without compiling code per class."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError, asdict, dataclass, field, fields, is_dataclass, replace

import pytest

from companion.app import effects, events
from companion.core.values import value


@value
class Point:
    """A value for the tests."""

    x: int
    y: int = 0
    label: str = "p"


@dataclass(frozen=True)
class Twin:
    x: int
    y: int = 0
    label: str = "p"


def test_a_value_behaves_as_the_frozen_dataclass_it_replaces():
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((), {"x": 1, "label": "q"}), ((1,), {"y": 3})]:
        mine, theirs = Point(*args, **kwargs), Twin(*args, **kwargs)
        assert repr(mine) == repr(theirs).replace("Twin", "Point")
        assert (mine.x, mine.y, mine.label) == (theirs.x, theirs.y, theirs.label)
        assert mine == Point(*args, **kwargs) and hash(mine) == hash(Point(*args, **kwargs))
    assert Point(1) != Point(2) and Point(1) != Twin(1) and Point(1) != (1, 0, "p")
    assert Point.__doc__ == "A value for the tests."
    with pytest.raises(FrozenInstanceError):
        Point(1).x = 2  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(Point(1, 2))) == Point(1, 2)
    match Point(4, 5):
        case Point(x, y):
            assert (x, y) == (4, 5)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {}), ((1, 2, "a", 4), {}), ((1,), {"z": 1}), ((1,), {"x": 1})],
)
def test_a_wrong_construction_is_the_type_error_a_dataclass_raises(args, kwargs):
    with pytest.raises(TypeError) as theirs:
        Twin(*args, **kwargs)
    with pytest.raises(TypeError) as mine:
        Point(*args, **kwargs)
    assert str(mine.value) == str(theirs.value).replace("Twin", "Point")


def test_the_box_events_and_effects_are_values():
    assert events.Pressed("green") == events.Pressed(button="green", long=False, remote=False)
    assert repr(events.Pressed("green")) == "Pressed(button='green', long=False, remote=False)"
    assert {events.Tapped("04AB"), events.Tapped("04AB")} == {events.Tapped("04AB")}
    assert effects.__name__ and any(isinstance(v, type) for v in vars(effects).values())


@value
class Bag:
    """Fields as a dataclass's: made by a factory, left out of == and repr."""

    name: str
    items: dict[str, int] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class BagTwin:
    name: str
    items: dict[str, int] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)


def test_a_value_has_the_fields_replace_and_asdict_read():
    mine, theirs = Bag("a", {"x": 1}, {"k": 2}), BagTwin("a", {"x": 1}, {"k": 2})
    assert is_dataclass(mine) and is_dataclass(Bag)
    assert [(f.name, f.compare, f.repr) for f in fields(mine)] == [
        (f.name, f.compare, f.repr) for f in fields(theirs)
    ]
    assert repr(mine) == repr(theirs).replace("BagTwin", "Bag")
    assert replace(mine, name="b") == Bag("b", {"x": 1})
    assert replace(mine, name="b").lines == {"k": 2}
    assert asdict(mine) == asdict(theirs)
    assert Bag("a").items == {} and Bag("a").items is not Bag("a").items  # a new one each time
    assert Bag("a", lines={"k": 1}) == Bag("a")  # lines are not compared
    assert replace(Point(1), y=5) == Point(1, 5)
