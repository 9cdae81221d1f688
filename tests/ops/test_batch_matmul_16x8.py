"""BATCH_MATMUL on int16 (16x8 models: int16 operands and output, zero points 0, int64 sums): generated C bit-exact
against TFLM over shapes, adjoints, broadcast batches and constant operands, and where the sums leave int32; the
int16 x int8 pairing TFLM does not run is refused."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_batch_matmul import matmul_cases, matmul_model
from validated import MAX_EXAMPLES, assert_bit_exact, refusal

from firmware_gen.modelgen.writer import ModelBuilder


def int16_quantization(quant):
    """The int8 case's scales, zero points 0 and the output scale widened for int16 sums."""
    (lhs_scale, _), (rhs_scale, _), (out_scale, _) = quant
    return (lhs_scale, 0), (rhs_scale, 0), (out_scale * 256, 0)


@settings(max_examples=MAX_EXAMPLES // 3, deadline=None)
@given(case=matmul_cases(), constant_rhs=st.booleans(), seed=st.integers(0, 99))
def test_int16_batch_matmul_is_bit_exact(case, constant_rhs, seed):
    lhs_shape, rhs_shape, out_shape, adj_x, adj_y, quant = case
    rng = np.random.default_rng(seed)
    rhs = rng.integers(-32768, 32768, rhs_shape).astype(np.int16) if constant_rhs else None
    model = matmul_model(lhs_shape, rhs_shape, out_shape, adj_x, adj_y, int16_quantization(quant), rhs, "int16")
    assert_bit_exact(model, seed=seed)


def test_sums_beyond_int32_are_bit_exact():
    # 96 products of -32768 * -32768 = 2^30 sum to 96 * 2^30, far beyond int32; TFLM sums them in int64.
    depth = 96
    lhs = np.full((1, 2, depth), -32768, np.int16)
    lhs[0, 1, ::3] = 32767
    rhs = np.full((1, depth, 3), -32768, np.int16)
    rhs[0, ::5, 1] = 12345
    quant = ((1.0, 0), (1.0, 0), (2.0**27, 0))
    assert_bit_exact(matmul_model(lhs.shape, rhs.shape, (1, 2, 3), False, False, quant, dtype="int16"), [lhs, rhs])


def test_int16_lhs_with_int8_rhs_is_refused():
    b = ModelBuilder("batch_matmul")
    lhs = b.input("lhs", (2, 4), "int16", scale=0.01)
    rhs = b.constant("rhs", np.ones((4, 3), np.int8), scale=0.02)
    y = b.tensor("y", (2, 3), "int16", scale=0.05)
    b.operator("BATCH_MATMUL", inputs=[lhs, rhs], outputs=[y])
    b.output(y)
    message = refusal(b.build())
    assert "operator 0" in message and "must share one type" in message
