"""GATHER and GATHER_ND (any axis, batch_dims, constant or run-time indices) of int8 by int32 indices, bit-exact
against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import CASES, FEW_EXAMPLES, assert_cases_bit_exact, movement_model
from validated import assert_bit_exact, refusal, shapes

from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.call_emulation import EMULATIONS
from firmware_gen.ops.data_movement.gather import GatherNdKernel


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


def test_gather_nd_with_indices_computed_at_run_time_is_bit_exact():
    """The run-time kernel on slices of 1, 3, 7 (words, a halfword, a byte), 16 and 20 (memcpy) bytes."""
    b = ModelBuilder("gather_nd")
    inputs = []
    for n, (shape, depth) in enumerate([((3, 4), 2), ((2, 5, 3), 2), ((4, 7), 1), ((2, 2, 16), 2), ((3, 20), 1)]):
        rng = np.random.default_rng(n)
        x = b.input(f"x{n}", shape, "int8", scale=0.1, zero_point=2)
        i = b.input(f"i{n}", (5, depth), "int32")
        y = b.tensor(f"y{n}", (5, *shape[depth:]), "int8", scale=0.1, zero_point=2)
        b.operator("GATHER_ND", [x, i], [y])
        b.output(y)
        inputs += [rng.integers(-128, 128, shape, dtype=np.int8),
                   np.stack([rng.integers(0, size, 5) for size in shape[:depth]], axis=1).astype(np.int32)]
    assert_bit_exact(b.build(), inputs=inputs)


def test_constant_index_out_of_bounds_is_refused():
    assert "holds an index outside axis 0" in refusal(movement_model("GATHER", [(3, 2)], [(1, 2)], [[3]]))


def test_constant_index_outside_is_lowered_to_a_zeroed_slice():
    """The check refuses such a model; lowered anyway, the row's offset is -1 and its slice zeros, as the run-time
    kernel writes them."""
    graph = read_model(movement_model("GATHER_ND", [(3, 2)], [(2, 2)], [[[1], [3]]]))
    call = GatherNdKernel().lower(graph, graph.operators[0])
    assert call.function == "fg_gather_nd_offsets_s8" and call.tables[0].values.tolist() == [2, -1]
    assert EMULATIONS[call.function](call, [np.arange(6, dtype=np.int8)])[0].tolist() == [2, 3, 0, 0]
