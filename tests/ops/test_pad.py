"""PAD / PADV2 int8: generated C bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def pad_model(shape, paddings, scale, zero_point, pad_value=None, out_shape=None) -> bytes:
    b = ModelBuilder("pad")
    x = b.input("x", shape, "int8", scale=scale, zero_point=zero_point)
    inputs = [x, b.constant("paddings", np.array(paddings, np.int32).reshape(len(shape), 2))]
    if pad_value is not None:
        inputs.append(b.constant("value", np.array([pad_value], np.int8), scale=scale, zero_point=zero_point))
    if out_shape is None:
        out_shape = [n + before + after for n, (before, after) in zip(shape, paddings, strict=True)]
    y = b.tensor("y", out_shape, "int8", scale=scale, zero_point=zero_point)
    b.operator("PAD" if pad_value is None else "PADV2", inputs=inputs, outputs=[y])
    b.output(y)
    return b.build()


@st.composite
def pad_cases(draw):
    shape = draw(shapes(1, 5))
    paddings = [draw(st.tuples(st.integers(0, 3), st.integers(0, 3))) for _ in shape]
    return shape, paddings


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(case=pad_cases(), scale=scales, zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_pad_is_bit_exact(case, scale, zero_point, seed):
    shape, paddings = case
    assert_bit_exact(pad_model(shape, paddings, scale, zero_point), seed=seed)


@settings(max_examples=8, deadline=None)
@given(case=pad_cases(), zero_point=int8_zero_points, value=int8_zero_points)
def test_padv2_is_bit_exact(case, zero_point, value):
    shape, paddings = case
    assert_bit_exact(pad_model(shape, paddings, 0.05, zero_point, pad_value=value))


def test_wrong_output_shape_is_refused():
    message = refusal(pad_model((1, 4, 4, 3), [(0, 0), (1, 1), (1, 1), (0, 0)], 0.1, 0, out_shape=(1, 6, 6, 4)))
    assert "should have shape [1, 6, 6, 3]" in message
