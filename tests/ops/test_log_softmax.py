"""LOG_SOFTMAX int8: generated C bit-exact against TFLM over shapes, input scales and values."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import assert_bit_exact, int8_zero_points, refusal, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def log_softmax_model(shape, input_scale: float, input_zero_point: int, output=(16 / 256, 127)) -> bytes:
    b = ModelBuilder("log_softmax")
    x = b.input("x", shape, "int8", scale=input_scale, zero_point=input_zero_point)
    y = b.tensor("y", shape, "int8", scale=output[0], zero_point=output[1])
    b.operator("LOG_SOFTMAX", inputs=[x], outputs=[y])
    b.output(y)
    return b.build()


@settings(max_examples=5, deadline=None)
@given(shape=shapes(1, 4, max_side=12), log_scale=st.floats(-3.0, 0.5), zero_point=int8_zero_points,
       seed=st.integers(0, 99))
def test_log_softmax_is_bit_exact(shape, log_scale, zero_point, seed):
    assert_bit_exact(log_softmax_model(shape, 10**log_scale, zero_point), seed=seed)


def test_rows_of_every_spread_are_bit_exact():
    """Rows with one large value (most outputs at the floor), all equal, and spread over the whole int8 range."""
    rows = np.stack([np.full(32, -128), np.full(32, 5), np.arange(-128, 128, 8), np.r_[127, np.full(31, -128)],
                     np.random.default_rng(3).integers(-128, 128, 32)]).astype(np.int8)
    b = ModelBuilder("log_softmax_rows")  # one operator per input scale, side by side in one model (one build)
    scales = (0.01, 0.1, 0.5, 2.0)
    for k, scale in enumerate(scales):
        x = b.input(f"x{k}", rows.shape, "int8", scale=scale, zero_point=0)
        y = b.tensor(f"y{k}", rows.shape, "int8", scale=16 / 256, zero_point=127)
        b.operator("LOG_SOFTMAX", inputs=[x], outputs=[y])
        b.output(y)
    assert_bit_exact(b.build(), inputs=[rows] * len(scales))


def test_other_output_quantization_is_refused_as_tflm_does():
    message = refusal(log_softmax_model((1, 4), 0.1, 0, output=(1 / 256, -128)))
    assert "operator 0 (LOG_SOFTMAX)" in message and "requires 16/256 and 127" in message
