"""L2_NORMALIZATION int8 (ranks 1 to 4, any input zero point, in place): generated C bit-exact against TFLM; TFLM's
refusals (a fused activation) refused the same way."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder

EXAMPLES = MAX_EXAMPLES // 2


def l2_model(shape, scale, zero_point, activation="NONE") -> bytes:
    b = ModelBuilder("l2_normalization")
    x = b.input("x", shape, "int8", scale=scale, zero_point=zero_point)
    y = b.tensor("y", shape, "int8", scale=1 / 128, zero_point=0)
    b.operator("L2_NORMALIZATION", inputs=[x], outputs=[y], options={"activation": activation})
    b.output(y)
    return b.build()


@settings(max_examples=EXAMPLES, deadline=None)
@given(shape=shapes(1, 4, max_side=9), scale=scales, zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_l2_normalization_is_bit_exact(shape, scale, zero_point, seed):
    assert_bit_exact(l2_model(shape, scale, zero_point), seed=seed)


def test_a_constant_row_equal_to_the_zero_point_is_bit_exact():
    x = np.full((2, 5), 9, np.int8)
    x[1] = np.arange(5)
    assert_bit_exact(l2_model((2, 5), 0.1, 9), inputs=[x])


def test_a_fused_activation_is_refused():
    message = refusal(l2_model((1, 4), 0.1, 0, activation="RELU"))
    assert "operator 0" in message and "activation=RELU" in message
