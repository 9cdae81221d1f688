"""GATHER (any axis, batch_dims, constant or run-time indices) and GATHER_ND of int8 by int32 indices,
bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import FEW_EXAMPLES, movement_model
from validated import assert_bit_exact, refusal, shapes

from firmware_gen.modelgen.writer import ModelBuilder


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(shape=shapes(1, 4, max_side=4), data=st.data())
def test_gather_is_bit_exact(shape, data):
    axis = data.draw(st.integers(0, len(shape) - 1))
    batch_dims = data.draw(st.integers(0, axis))
    count = data.draw(st.integers(1, 4))
    indices = np.array(data.draw(st.lists(st.integers(0, shape[axis] - 1), min_size=count * int(
        np.prod(shape[:batch_dims])), max_size=count * int(np.prod(shape[:batch_dims]))))).reshape(
        *shape[:batch_dims], count)
    out = shape[:axis] + (count,) + shape[axis + 1:]
    assert_bit_exact(movement_model("GATHER", [shape], [out], [indices], {"axis": axis, "batch_dims": batch_dims}))


def test_gather_with_indices_computed_at_run_time_is_bit_exact():
    b = ModelBuilder("gather")
    x = b.input("x", (5, 3), "int8", scale=0.1, zero_point=2)
    i = b.input("i", (4,), "int32")
    y = b.tensor("y", (4, 3), "int8", scale=0.1, zero_point=2)
    b.operator("GATHER", [x, i], [y], {"axis": 0})
    b.output(y)
    assert_bit_exact(b.build(), inputs=[np.arange(15, dtype=np.int8).reshape(5, 3), np.array([4, 0, 2, 2], np.int32)])


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(shape=shapes(1, 4, max_side=4), data=st.data())
def test_gather_nd_is_bit_exact(shape, data):
    depth = data.draw(st.integers(1, len(shape)))
    rows = data.draw(st.integers(1, 4))
    indices = np.array([[data.draw(st.integers(0, n - 1)) for n in shape[:depth]] for _ in range(rows)])
    assert_bit_exact(movement_model("GATHER_ND", [shape], [(rows, *shape[depth:])], [indices]))


def test_constant_index_out_of_bounds_is_refused():
    assert "holds an index outside axis 0" in refusal(movement_model("GATHER", [(3, 2)], [(1, 2)], [[3]]))
