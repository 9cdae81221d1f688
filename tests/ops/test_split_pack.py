"""SPLIT, SPLIT_V, UNPACK (one call, several outputs, each its own buffer) and PACK of int8, bit-exact against
TFLM."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import CASES, FEW_EXAMPLES, assert_cases_bit_exact, movement_model
from validated import refusal, shapes

from firmware_gen.check.host_validation import validate_model
from firmware_gen.driver.compiler import compile_graph
from firmware_gen.frontend.tflite_reader import read_model


def _with(shape, axis, size):
    return tuple(size if d == axis else n for d, n in enumerate(shape))


@st.composite
def split_models(draw, dtype="int8"):
    shape = draw(shapes(1, 4, max_side=4))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    if draw(st.booleans()):
        count = draw(st.integers(1, 3))
        shape = _with(shape, axis % len(shape), shape[axis] * count)
        parts = [_with(shape, axis % len(shape), shape[axis] // count)] * count
        return movement_model("SPLIT", [shape], parts, [axis], {"num_splits": count}, params_first=True, dtype=dtype)
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    shape = _with(shape, axis % len(shape), sum(sizes))
    written = [-1 if draw(st.booleans()) else sizes[0], *sizes[1:]]  # one size may be inferred
    return movement_model("SPLIT_V", [shape], [_with(shape, axis % len(shape), s) for s in sizes],
                          [written, axis], {"num_splits": len(sizes)}, dtype=dtype)


@st.composite
def unpack_pack_models(draw, dtype="int8"):
    shape = draw(shapes(1, 4, max_side=4))
    axis = draw(st.integers(0, len(shape) - 1))
    if draw(st.booleans()):
        parts = [shape[:axis] + shape[axis + 1:]] * shape[axis]
        return movement_model("UNPACK", [shape], parts, options={"num": shape[axis], "axis": axis}, dtype=dtype)
    count = draw(st.integers(1, 3))
    return movement_model("PACK", [shape] * count, [shape[:axis] + (count,) + shape[axis:]],
                          options={"values_count": count, "axis": axis}, dtype=dtype)


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(split_models(), min_size=CASES, max_size=CASES))
def test_split_and_split_v_are_bit_exact(models):
    assert_cases_bit_exact(models)


@settings(max_examples=FEW_EXAMPLES, deadline=None)
@given(models=st.lists(unpack_pack_models(), min_size=CASES, max_size=CASES))
def test_unpack_and_pack_are_bit_exact(models):
    assert_cases_bit_exact(models)


def test_every_output_of_a_split_has_its_own_buffer():
    graph = read_model(movement_model("SPLIT", [(2, 6)], [(2, 2)] * 3, [1], {"num_splits": 3}, params_first=True))
    compiled = compile_graph(graph)
    (step,) = compiled.steps
    assert step.call.variadic_outputs and len(step.outputs) == 3
    buffers = [compiled.plan.buffer_of(i) for i in graph.operators[0].outputs]
    spans = sorted((b.offset, b.end) for b in buffers)
    assert len({b.tensors for b in buffers}) == 3
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))


def test_uneven_split_is_refused():
    assert "does not split into 2 equal parts" in refusal(
        movement_model("SPLIT", [(2, 5)], [(2, 2), (2, 3)], [1], {"num_splits": 2}, params_first=True))


def test_split_through_the_packed_interface_is_bit_exact():
    model = movement_model("SPLIT", [(2, 6)], [(2, 2)] * 3, [1], {"num_splits": 3}, params_first=True)
    report = validate_model(model, interface="packed", sanitize=True)
    assert report.bit_exact, report.mismatches
