"""QUANTIZE (float32 -> int8, int8 -> int8 / uint8, uint8 -> int8): generated C bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def quantize_model(shape, in_dtype, in_q, out_dtype, out_q) -> bytes:
    b = ModelBuilder("quantize")
    x = b.input("x", shape, in_dtype, **({} if in_q is None else {"scale": in_q[0], "zero_point": in_q[1]}))
    y = b.tensor("y", shape, out_dtype, scale=out_q[0], zero_point=out_q[1])
    b.operator("QUANTIZE", inputs=[x], outputs=[y])
    b.output(y)
    return b.build()


def float_inputs(shape, scale, zero_point, seed) -> np.ndarray:
    """Values on the rounding ties (k + 1/2) * scale, around the zero point, out of range, and arbitrary."""
    rng = np.random.default_rng(seed)
    ties = (rng.integers(-300, 300, shape) + 0.5) * np.float32(scale)
    arbitrary = rng.normal(0.0, 100.0 * scale, shape)
    return np.where(rng.random(shape) < 0.5, ties, arbitrary).astype(np.float32)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(shape=shapes(1, 4, max_side=8), scale=scales, zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_float_to_int8_is_bit_exact(shape, scale, zero_point, seed):
    model = quantize_model(shape, "float32", None, "int8", (scale, zero_point))
    assert_bit_exact(model, inputs=[float_inputs(shape, scale, zero_point, seed)])


def test_special_floats_are_bit_exact():
    # Quotients beyond the int32 range are left out: TFLM converts them to int32 with undefined behaviour (INT32_MIN,
    # so -128, on x86; saturation, so 127 for large positives, on Arm). The kernel saturates as on Arm.
    x = np.array([0.0, -0.0, 2e9, -2e9, np.nan, 1e-30, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 127.5, -128.5], np.float32)
    assert_bit_exact(quantize_model(x.shape, "float32", None, "int8", (1.0, 0)), inputs=[x])


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(pair=st.sampled_from([("int8", "int8"), ("int8", "uint8"), ("uint8", "int8")]), shape=shapes(1, 3),
       in_scale=scales, out_scale=scales, in_zp=st.integers(-128, 255), out_zp=st.integers(-128, 255),
       seed=st.integers(0, 99))
def test_requantize_is_bit_exact(pair, shape, in_scale, out_scale, in_zp, out_zp, seed):
    in_dtype, out_dtype = pair
    in_zp = in_zp % 256 if in_dtype == "uint8" else in_zp - 128 * (in_zp > 127)
    out_zp = out_zp % 256 if out_dtype == "uint8" else out_zp - 128 * (out_zp > 127)
    assert_bit_exact(quantize_model(shape, in_dtype, (in_scale, in_zp), out_dtype, (out_scale, out_zp)), seed=seed)


def test_int8_uint8_shift_by_128_is_bit_exact():
    values = np.arange(-128, 128, dtype=np.int8)
    assert_bit_exact(quantize_model((256,), "int8", (0.1, -3), "uint8", (0.1, 125)), inputs=[values])


def test_float_to_uint8_is_refused():
    assert "float32 -> uint8 is not supported" in refusal(quantize_model((4,), "float32", None, "uint8", (0.1, 0)))
