"""GATHER (any axis, batch_dims, constant or run-time indices) and GATHER_ND of int8 by int32 indices,
bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import CASES, FEW_EXAMPLES, assert_cases_bit_exact, movement_model
from validated import assert_bit_exact, refusal, shapes

from firmware_gen.modelgen.writer import ModelBuilder


@st.composite
def gather_models(draw):
    shape = draw(shapes(1, 4, max_side=4))
    axis = draw(st.integers(0, len(shape) - 1))
    batch_dims = draw(st.integers(0, axis))
    count = draw(st.integers(1, 4))
    batches = shape[:batch_dims]
    indices = np.array(draw(st.lists(st.integers(0, shape[axis] - 1), min_size=count * int(np.prod(batches)),
                                     max_size=count * int(np.prod(batches))))).reshape(*batches, count)
    out = shape[:axis] + (count,) + shape[axis + 1:]
    return movement_model("GATHER", [shape], [out], [indices], {"axis": axis, "batch_dims": batch_dims})


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(gather_models(), min_size=CASES, max_size=CASES))
def test_gather_is_bit_exact(models):
    assert_cases_bit_exact(models)


def test_gather_with_indices_computed_at_run_time_is_bit_exact():
    b = ModelBuilder("gather")
    x = b.input("x", (5, 3), "int8", scale=0.1, zero_point=2)
    i = b.input("i", (4,), "int32")
    y = b.tensor("y", (4, 3), "int8", scale=0.1, zero_point=2)
    b.operator("GATHER", [x, i], [y], {"axis": 0})
    b.output(y)
    assert_bit_exact(b.build(), inputs=[np.arange(15, dtype=np.int8).reshape(5, 3), np.array([4, 0, 2, 2], np.int32)])


@st.composite
def gather_nd_models(draw):
    shape = draw(shapes(1, 4, max_side=4))
    depth = draw(st.integers(1, len(shape)))
    rows = draw(st.integers(1, 4))
    indices = np.array([[draw(st.integers(0, n - 1)) for n in shape[:depth]] for _ in range(rows)])
    return movement_model("GATHER_ND", [shape], [(rows, *shape[depth:])], [indices])


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(gather_nd_models(), min_size=CASES, max_size=CASES))
def test_gather_nd_is_bit_exact(models):
    assert_cases_bit_exact(models)


def test_constant_index_out_of_bounds_is_refused():
    assert "holds an index outside axis 0" in refusal(movement_model("GATHER", [(3, 2)], [(1, 2)], [[3]]))
