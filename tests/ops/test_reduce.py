"""MEAN, SUM, REDUCE_MAX, REDUCE_MIN over any constant axes and ARG_MAX / ARG_MIN along one (int8): bit-exact
against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder

EXAMPLES_PER_OPCODE = 6


def reduce_model(opcode: str, shape: tuple[int, ...], axes: list[int], keep_dims: bool, in_q: tuple[float, int],
                 out_q: tuple[float, int]) -> bytes:
    rank = len(shape)
    reduced = {a % rank for a in axes}
    out_shape = [1 if d in reduced else n for d, n in enumerate(shape) if keep_dims or d not in reduced]
    builder = ModelBuilder(opcode.lower())
    x = builder.input("x", shape, "int8", scale=in_q[0], zero_point=in_q[1])
    a = builder.constant("axes", np.array(axes, np.int32))
    y = builder.tensor("y", out_shape, "int8", scale=out_q[0], zero_point=out_q[1])
    builder.operator(opcode, inputs=[x, a], outputs=[y], options={"keep_dims": keep_dims})
    builder.output(y)
    return builder.build()


def arg_model(opcode: str, shape: tuple[int, ...], axis: int, output_type: str = "int32") -> bytes:
    builder = ModelBuilder(opcode.lower())
    x = builder.input("x", shape, "int8", scale=0.1, zero_point=-3)
    a = builder.constant("axis", np.array([axis], np.int32))
    y = builder.tensor("y", [n for d, n in enumerate(shape) if d != axis % len(shape)], output_type)
    builder.operator(opcode, inputs=[x, a], outputs=[y], options={"output_type": output_type})
    builder.output(y)
    return builder.build()


@st.composite
def axes_of(draw: st.DrawFn, shape: tuple[int, ...]) -> list[int]:
    """Any non-empty set of axes, each maybe written negative, maybe repeated."""
    rank = len(shape)
    distinct = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = [a - rank if draw(st.booleans()) else a for a in distinct]
    return axes + axes[:1] if draw(st.booleans()) else axes


quantizations = st.tuples(scales, int8_zero_points)


@pytest.mark.parametrize("opcode", ["MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN"])
@settings(max_examples=EXAMPLES_PER_OPCODE, deadline=None)
@given(data=st.data(), keep_dims=st.booleans(), in_q=quantizations, out_q=quantizations, seed=st.integers(0, 99))
def test_reductions_over_any_axes_are_bit_exact(opcode, data, keep_dims, in_q, out_q, seed):
    shape = data.draw(shapes(1, 5, max_side=5))
    axes = data.draw(axes_of(shape))
    if opcode.startswith("REDUCE_"):
        out_q = in_q  # TFLM requires it
    elif opcode == "SUM":  # an output scale that holds the sums
        count = int(np.prod([shape[a] for a in {a % len(shape) for a in axes}]))
        out_q = (float(np.float32(out_q[0] * count)), out_q[1])
    assert_bit_exact(reduce_model(opcode, shape, axes, keep_dims, in_q, out_q), seed=seed)


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
@settings(max_examples=EXAMPLES_PER_OPCODE, deadline=None)
@given(data=st.data(), few_values=st.booleans(), seed=st.integers(0, 99))
def test_arg_max_min_are_bit_exact(opcode, data, few_values, seed):
    shape = data.draw(shapes(1, 5, max_side=6))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    rng = np.random.default_rng(seed)
    # Few distinct values make ties, where the first index must win.
    x = rng.integers(-2, 2, shape) if few_values else rng.integers(-128, 128, shape)
    assert_bit_exact(arg_model(opcode, shape, axis), inputs=[x.astype(np.int8)])


def test_reduce_max_with_requantization_is_refused():
    message = refusal(reduce_model("REDUCE_MAX", (2, 3), [1], False, (0.1, 0), (0.2, 0)))
    assert "operator 0" in message and "TFLM requires them equal" in message


def test_arg_max_to_int64_is_refused():
    message = refusal(arg_model("ARG_MAX", (2, 3), 1, output_type="int64"))
    assert "operator 0" in message and "only int32" in message
