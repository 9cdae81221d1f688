"""PRELU in 16x8 models (int16 input and output, int8 constant alpha, as TFLM's BroadcastPrelu4DSlow reads them):
bit-exact against TFLM over shapes, alpha shapes and scales, on every int16 input; a non-constant alpha refused."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from rounding_cases import ALL_INT16, scale_pairs
from test_prelu import alpha_shapes
from validated import assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def prelu_16x8(shape, alpha_shape, in_scale, alpha_q, out_scale, alpha_data=None) -> bytes:
    b = ModelBuilder("prelu_16x8")
    x = b.input("x", shape, "int16", scale=in_scale)
    if alpha_data is None:
        alpha = b.input("alpha", alpha_shape, "int8", scale=alpha_q[0], zero_point=alpha_q[1])
    else:
        alpha = b.constant("alpha", alpha_data, scale=alpha_q[0], zero_point=alpha_q[1])
    y = b.tensor("y", shape, "int16", scale=out_scale)
    b.operator("PRELU", inputs=[x, alpha], outputs=[y])
    b.output(y)
    return b.build()


@settings(max_examples=5, deadline=None)
@given(data=st.data(), shape=shapes(1, 4), io_scales=scale_pairs(-8, 8), alpha_q=st.tuples(scales, int8_zero_points),
       seed=st.integers(0, 99))
def test_prelu_16x8_is_bit_exact(data, shape, io_scales, alpha_q, seed):
    alpha_shape = data.draw(alpha_shapes(shape))
    alpha = np.random.default_rng(seed).integers(-128, 128, size=alpha_shape, dtype=np.int8)
    assert_bit_exact(prelu_16x8(shape, alpha_shape, *io_scales[:1], alpha_q, io_scales[1], alpha), seed=seed)


def test_every_int16_input_against_every_alpha_byte():
    # 65,536 inputs over 256 channels: each channel's alpha one int8 value, each sees 256 inputs across the range.
    x = ALL_INT16.reshape(1, 256, 256)
    alpha = np.arange(-128, 128, dtype=np.int8)
    assert_bit_exact(prelu_16x8(x.shape, (256,), 0.003, (0.01, 5), 0.0021, alpha), [x])


def test_a_non_constant_alpha_is_refused():
    message = refusal(prelu_16x8((1, 4, 8), (8,), 0.01, (0.01, 0), 0.01))
    assert "operator 0 (PRELU)" in message and "not a constant" in message
