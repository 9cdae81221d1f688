"""ABS and RSQRT (int8, TFLM's integer formulas tabulated at generation time): bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def unary_model(opcode: str, shape: tuple[int, ...], in_q: tuple[float, int], out_q: tuple[float, int],
                out_dtype: str = "int8") -> bytes:
    builder = ModelBuilder(opcode.lower())
    x = builder.input("x", shape, "int8", scale=in_q[0], zero_point=in_q[1])
    y = builder.tensor("y", shape, out_dtype, scale=out_q[0], zero_point=out_q[1])
    builder.operator(opcode, inputs=[x], outputs=[y])
    builder.output(y)
    return builder.build()


def every_byte(shape: tuple[int, ...], low: int, seed: int) -> np.ndarray:
    """Inputs >= low, covering each allowed byte value when the tensor is large enough."""
    rng = np.random.default_rng(seed)
    values = np.concatenate([np.arange(low, 128), rng.integers(low, 128, int(np.prod(shape)))])
    return values[: int(np.prod(shape))].reshape(shape).astype(np.int8)


quantizations = st.tuples(scales, int8_zero_points)
# A last dimension of 256 so that every input byte is looked up in each example.
covering_shapes = shapes(0, 3, max_side=3).map(lambda leading: (*leading, 256))
EXAMPLES = 10


@settings(max_examples=EXAMPLES, deadline=None)
@given(shape=covering_shapes, in_q=quantizations, out_q=quantizations, same_scale=st.booleans(),
       seed=st.integers(0, 99))
def test_abs_is_bit_exact(shape, in_q, out_q, same_scale, seed):
    out_q = (in_q[0], out_q[1]) if same_scale else out_q
    assert_bit_exact(unary_model("ABS", shape, in_q, out_q), inputs=[every_byte(shape, -128, seed)])


@settings(max_examples=EXAMPLES, deadline=None)
@given(shape=covering_shapes, in_q=quantizations, out_scale=scales, out_zero_point=int8_zero_points,
       seed=st.integers(0, 99))
def test_rsqrt_of_non_negative_inputs_is_bit_exact(shape, in_q, out_scale, out_zero_point, seed):
    # TFLM fails the invocation on an input below the zero point (a negative real).
    assert_bit_exact(unary_model("RSQRT", shape, in_q, (out_scale, out_zero_point)),
                     inputs=[every_byte(shape, in_q[1], seed)])


@pytest.mark.parametrize("opcode", ["ABS", "RSQRT"])
def test_output_of_another_shape_is_refused(opcode):
    builder = ModelBuilder("bad")
    x = builder.input("x", (2, 3), "int8", scale=0.1, zero_point=0)
    y = builder.tensor("y", (3, 2), "int8", scale=0.1, zero_point=0)
    builder.operator(opcode, inputs=[x], outputs=[y])
    builder.output(y)
    assert "does not have the shape of input" in refusal(builder.build())
