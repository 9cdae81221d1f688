"""MEAN int8 over constant axes, and MEAN and SUM int16 (16x8): generated C bit-exact against TFLM (its
QuantizedMeanOrSum)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from movement_models import assert_cases_bit_exact
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.reduction.mean import mean_multiplier


def mean_model(shape, axes, keep_dims, in_q, out_q, out_shape=None, dtype="int8", opcode="MEAN") -> bytes:
    rank = len(shape)
    reduced = {a % rank for a in axes}
    if out_shape is None:
        out_shape = [1 if d in reduced else n for d, n in enumerate(shape) if keep_dims or d not in reduced]
    b = ModelBuilder(opcode.lower())
    x = b.input("x", shape, dtype, scale=in_q[0], zero_point=in_q[1])
    a = b.constant("axes", np.array(axes, np.int32))
    y = b.tensor("y", out_shape, dtype, scale=out_q[0], zero_point=out_q[1])
    b.operator(opcode, inputs=[x, a], outputs=[y], options={"keep_dims": keep_dims})
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


@st.composite
def cases_16x8(draw) -> list[bytes]:
    """A MEAN, a MEAN with equal quantization and a SUM on int16 (zero points 0), output scales near the result's
    range."""
    shape, axes = draw(mean_cases())
    keep_dims, scale = draw(st.booleans()), draw(scales)
    count = math.prod(shape[d] for d in {a % len(shape) for a in axes})
    factor = 2.0 ** draw(st.floats(min_value=-2.0, max_value=2.0))
    return [mean_model(shape, axes, keep_dims, (scale, 0), (scale * factor, 0), dtype="int16"),
            mean_model(shape, axes, keep_dims, (scale, 0), (scale, 0), dtype="int16"),
            mean_model(shape, axes, keep_dims, (scale, 0), (scale * count * factor, 0), dtype="int16", opcode="SUM")]


@settings(max_examples=max(MAX_EXAMPLES // 5, 1), deadline=None)
@given(models=cases_16x8(), seed=st.integers(0, 99))
def test_16x8_mean_and_sum_are_bit_exact(models, seed):
    assert_cases_bit_exact(models, seed=seed)


def test_16x8_global_average_of_extremes_is_bit_exact():
    shape = (1, 7, 9, 4)
    for value in (-32768, 32767):
        x = np.full(shape, value, np.int16)
        assert_bit_exact(mean_model(shape, [1, 2], True, (2.0**-12, 0), (2.0**-13, 0), dtype="int16"), inputs=[x])


@pytest.mark.parametrize("dtypes", [("int16", "int8"), ("int8", "int16")])
def test_16x8_mixed_types_are_refused(dtypes):
    b = ModelBuilder("mixed")
    x = b.input("x", (2, 3), dtypes[0], scale=0.1)
    y = b.tensor("y", (2,), dtypes[1], scale=0.1)
    b.operator("MEAN", inputs=[x, b.constant("axes", np.array([1], np.int32))], outputs=[y])
    b.output(y)
    assert "the activations must share one type" in refusal(b.build())


def test_16x8_nonzero_zero_point_and_reduce_max_are_refused():
    message = refusal(mean_model((2, 3), [1], False, (0.1, 5), (0.1, 0), dtype="int16"))
    assert "input" in message and "zero point 5; int16 activations must have zero point 0" in message
    message = refusal(mean_model((2, 3), [1], False, (0.1, 0), (0.1, 0), dtype="int16", opcode="REDUCE_MAX"))
    assert "has type int16; supported: int8" in message


def test_folded_multiplier_matches_tflm_rule():
    # 1.0 = 2^30 * 2^(1-31); folding 1/3 shifts by floor(log2 3) = 1.
    assert mean_multiplier(1.0, 3) == ((2**30 << 1) // 3, 0)
    assert mean_multiplier(1.0, 1) == (2**30, 1)


def test_wrong_output_shape_is_refused():
    message = refusal(mean_model((1, 4, 4, 3), [1, 2], True, (0.1, 0), (0.1, 0), out_shape=(1, 1, 4, 3)))
    assert "should have shape [1, 1, 1, 3]" in message
