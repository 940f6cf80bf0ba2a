"""The box's events and effects are ``@value`` classes: frozen values as a frozen dataclass
would make them (what the box relies on), declared without compiling code per class."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError, dataclass

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
    ("args", "kwargs", "says"),
    [
        ((), {}, "missing required argument: 'x'"),
        ((1, 2, "a", 4), {}, "takes 3 positional arguments but 4 were given"),
        ((1,), {"z": 1}, "unexpected keyword argument 'z'"),
        ((1,), {"x": 1}, "multiple values for argument 'x'"),
    ],
)
def test_a_wrong_construction_is_a_type_error_that_names_it(args, kwargs, says):
    with pytest.raises(TypeError, match=says):
        Point(*args, **kwargs)


def test_the_box_events_and_effects_are_values():
    assert events.Pressed("green") == events.Pressed(button="green", long=False, remote=False)
    assert repr(events.Pressed("green")) == "Pressed(button='green', long=False, remote=False)"
    assert {events.Tapped("04AB"), events.Tapped("04AB")} == {events.Tapped("04AB")}
    assert effects.__name__ and any(isinstance(v, type) for v in vars(effects).values())
