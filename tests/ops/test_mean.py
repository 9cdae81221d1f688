"""MEAN int8 over constant axes: generated C bit-exact against TFLM (its QuantizedMeanOrSum)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.mean import mean_multiplier


def mean_model(shape, axes, keep_dims, in_q, out_q, out_shape=None) -> bytes:
    rank = len(shape)
    reduced = {a % rank for a in axes}
    if out_shape is None:
        out_shape = [1 if d in reduced else n for d, n in enumerate(shape) if keep_dims or d not in reduced]
    b = ModelBuilder("mean")
    x = b.input("x", shape, "int8", scale=in_q[0], zero_point=in_q[1])
    a = b.constant("axes", np.array(axes, np.int32))
    y = b.tensor("y", out_shape, "int8", scale=out_q[0], zero_point=out_q[1])
    b.operator("MEAN", inputs=[x, a], outputs=[y], options={"keep_dims": keep_dims})
    b.output(y)
    return b.build()


@st.composite
def mean_cases(draw):
    """Shapes up to rank 4 and one or two distinct axes (TFLM's limit), written positive or negative, maybe twice."""
    shape = draw(shapes(1, 4, max_side=7))
    rank = len(shape)
    distinct = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=min(2, rank), unique=True))
    axes = [a - rank if draw(st.booleans()) else a for a in distinct]
    if draw(st.booleans()):
        axes.append(axes[0])
    return shape, axes


quantizations = st.tuples(scales, int8_zero_points)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(case=mean_cases(), keep_dims=st.booleans(), in_q=quantizations, out_q=quantizations, seed=st.integers(0, 99))
def test_mean_is_bit_exact(case, keep_dims, in_q, out_q, seed):
    shape, axes = case
    assert_bit_exact(mean_model(shape, axes, keep_dims, in_q, out_q), seed=seed)


@settings(max_examples=10, deadline=None)
@given(case=mean_cases(), keep_dims=st.booleans(), q=quantizations, seed=st.integers(0, 99))
def test_mean_with_equal_quantization_is_bit_exact(case, keep_dims, q, seed):
    shape, axes = case
    assert_bit_exact(mean_model(shape, axes, keep_dims, q, q), seed=seed)


def test_global_average_of_extremes_is_bit_exact():
    shape = (1, 7, 9, 4)
    for value in (-128, 127):
        x = np.full(shape, value, np.int8)
        assert_bit_exact(mean_model(shape, [1, 2], True, (0.02, -128), (0.015, 5)), inputs=[x])


def test_folded_multiplier_matches_tflm_rule():
    # 1.0 = 2^30 * 2^(1-31); folding 1/3 shifts by floor(log2 3) = 1.
    assert mean_multiplier(1.0, 3) == ((2**30 << 1) // 3, 0)
    assert mean_multiplier(1.0, 1) == (2**30, 1)


def test_wrong_output_shape_is_refused():
    message = refusal(mean_model((1, 4, 4, 3), [1, 2], True, (0.1, 0), (0.1, 0), out_shape=(1, 1, 4, 3)))
    assert "should have shape [1, 1, 1, 3]" in message
