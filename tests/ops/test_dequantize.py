"""DEQUANTIZE (int8 / uint8 -> float32): generated C bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def dequantize_model(shape, dtype, scale, zero_point) -> bytes:
    b = ModelBuilder("dequantize")
    x = b.input("x", shape, dtype, scale=scale, zero_point=zero_point)
    y = b.tensor("y", shape, "float32")
    b.operator("DEQUANTIZE", inputs=[x], outputs=[y])
    b.output(y)
    return b.build()


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(shape=shapes(1, 4), scale=scales, zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_int8_is_bit_exact(shape, scale, zero_point, seed):
    assert_bit_exact(dequantize_model(shape, "int8", scale, zero_point), seed=seed)


@settings(max_examples=10, deadline=None)
@given(scale=st.floats(min_value=1e-30, max_value=1e30), zero_point=st.integers(0, 255))
def test_every_uint8_value_is_bit_exact(scale, zero_point):
    values = np.arange(256, dtype=np.uint8)
    assert_bit_exact(dequantize_model((256,), "uint8", scale, zero_point), inputs=[values])


def test_unquantized_input_is_refused():
    b = ModelBuilder("dequantize")
    x = b.input("x", (4,), "int8")
    y = b.tensor("y", (4,), "float32")
    b.operator("DEQUANTIZE", inputs=[x], outputs=[y])
    b.output(y)
    assert "is not quantized" in refusal(b.build())
