"""Free-form JSON fields refuse numbers other readers cannot hold (`checker.format.schema.base._bounded`).

`_bounded` has a one-loop path for flat objects (a receipt's `observed` is on every third line of an
agent log) beside the general walk; both must refuse exactly what `out_of_range` finds, with its
location in the message.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.format.schema.base import INT_MAX, INT_MIN, _bounded, out_of_range

scalars = st.one_of(
    st.none(), st.booleans(), st.text(max_size=4),
    st.integers(min_value=INT_MIN - 3, max_value=INT_MAX + 3),
    st.sampled_from([INT_MIN, INT_MAX, INT_MIN - 1, INT_MAX + 1, 1 << 200, -(1 << 200)]),
    st.floats(allow_nan=True, allow_infinity=True),
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=12)
flat_objects = st.dictionaries(st.text(max_size=3), scalars, max_size=6)


def _expected(value: Any) -> str | None:
    found = out_of_range(value)
    if found is None:
        return None
    where = ".".join(found[0])
    return f"{where}: {found[1]}" if where else found[1]


def _outcome(value: Any) -> str | None:
    try:
        assert _bounded(value) is value  # kept as written
    except ValueError as exc:
        return str(exc)
    return None


@given(flat_objects)
def test_flat_objects_are_refused_exactly_when_a_number_is_out_of_range(value: dict[str, Any]) -> None:
    assert _outcome(value) == _expected(value)


@given(json_values)
def test_any_value_is_refused_exactly_when_a_number_is_out_of_range(value: Any) -> None:
    assert _outcome(value) == _expected(value)


@pytest.mark.parametrize(("value", "message"), [
    ({"cells_changed": 4}, None),
    ({"cells_changed": "nonzero", "ok": True, "none": None, "x": 2.5}, None),
    ({"a": INT_MAX, "b": INT_MIN}, None),
    ({"a": 1, "b": INT_MAX + 1}, "b: integer out of range (integers must fit in 64 bits: -2^63 to 2^63-1)"),
    ({"a": INT_MIN - 1}, "a: integer out of range (integers must fit in 64 bits: -2^63 to 2^63-1)"),
    ({"a": math.inf}, "a: number out of range (it overflows a 64-bit float to infinity)"),
    ({"a": {"b": [0, -math.inf]}}, "a.b.1: number out of range (it overflows a 64-bit float to infinity)"),
    ({"a": True, "b": [1 << 64]}, "b.0: integer out of range (integers must fit in 64 bits: -2^63 to 2^63-1)"),
    (1 << 63, "integer out of range (integers must fit in 64 bits: -2^63 to 2^63-1)"),
])
def test_hand_picked_values(value: Any, message: str | None) -> None:
    assert _outcome(value) == message
