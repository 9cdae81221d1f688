"""PRELU int8: generated C bit-exact against TFLM, alpha per channel, per element or shared, constant or not."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def prelu_model(shape, alpha_shape, source, alpha_q, result, alpha_data=None) -> bytes:
    b = ModelBuilder("prelu")
    x = b.input("x", shape, "int8", scale=source[0], zero_point=source[1])
    if alpha_data is None:
        alpha = b.input("alpha", alpha_shape, "int8", scale=alpha_q[0], zero_point=alpha_q[1])
    else:
        alpha = b.constant("alpha", alpha_data, scale=alpha_q[0], zero_point=alpha_q[1])
    y = b.tensor("y", shape, "int8", scale=result[0], zero_point=result[1])
    b.operator("PRELU", inputs=[x, alpha], outputs=[y])
    b.output(y)
    return b.build()


@st.composite
def alpha_shapes(draw, shape):
    """Per channel (the converter's case), the full shape, or a trailing part with some axes broadcast."""
    kind = draw(st.sampled_from(["channel", "full", "trailing"]))
    if kind == "channel":
        return (shape[-1],)
    if kind == "full":
        return tuple(shape)
    tail = shape[-draw(st.integers(1, len(shape))):]
    return tuple(d if draw(st.booleans()) else 1 for d in tail)


@settings(max_examples=5, deadline=None)
@given(data=st.data(), shape=shapes(1, 4), source=st.tuples(scales, int8_zero_points),
       alpha_q=st.tuples(scales, int8_zero_points), result=st.tuples(scales, int8_zero_points),
       constant=st.booleans(), seed=st.integers(0, 99))
def test_prelu_is_bit_exact(data, shape, source, alpha_q, result, constant, seed):
    alpha_shape = data.draw(alpha_shapes(shape))
    rng = np.random.default_rng(seed)
    alpha = rng.integers(-128, 128, size=alpha_shape, dtype=np.int8) if constant else None
    assert_bit_exact(prelu_model(shape, alpha_shape, source, alpha_q, result, alpha), seed=seed)


def test_five_dimensions_are_refused_as_tflm_does():
    message = refusal(prelu_model((1, 2, 2, 2, 3), (3,), (0.1, 0), (0.01, 0), (0.1, 0), np.ones(3, np.int8)))
    assert "operator 0 (PRELU)" in message and "5 dimensions" in message


def test_tabulated_non_negative_branch_is_bit_exact():
    # 2048 outputs take the path that tabulates the non-negative branch per input byte; every input byte occurs.
    alpha = (np.arange(16, dtype=np.int8) - 8)
    assert_bit_exact(prelu_model((1, 8, 16, 16), (16,), (0.05, 3), (0.02, -4), (0.03, 1), alpha), seed=3)
