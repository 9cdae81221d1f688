"""BATCH_MATMUL int8 (adj_x, adj_y, broadcast batch dimensions, constant or variable rhs): generated C bit-exact
against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales

from firmware_gen.modelgen.writer import ModelBuilder

EXAMPLES = MAX_EXAMPLES // 2


def matmul_model(lhs_shape, rhs_shape, out_shape, adj_x, adj_y, quant, rhs_constant=None, dtype="int8") -> bytes:
    (lhs_scale, lhs_zp), (rhs_scale, rhs_zp), (out_scale, out_zp) = quant
    b = ModelBuilder("batch_matmul")
    lhs = b.input("lhs", lhs_shape, dtype, scale=lhs_scale, zero_point=lhs_zp)
    if rhs_constant is None:
        rhs = b.input("rhs", rhs_shape, dtype, scale=rhs_scale, zero_point=rhs_zp)
    else:
        rhs = b.constant("rhs", rhs_constant, scale=rhs_scale, zero_point=rhs_zp)
    y = b.tensor("y", out_shape, dtype, scale=out_scale, zero_point=out_zp)
    b.operator("BATCH_MATMUL", inputs=[lhs, rhs], outputs=[y], options={"adj_x": adj_x, "adj_y": adj_y})
    b.output(y)
    return b.build()


@st.composite
def matmul_cases(draw):
    rank = draw(st.integers(2, 5))
    batch = [draw(st.integers(1, 3)) for _ in range(rank - 2)]
    lhs_batch = [d if draw(st.booleans()) else 1 for d in batch]
    rhs_batch = [d if draw(st.booleans()) else 1 for d in batch]
    rhs_batch = rhs_batch[draw(st.integers(0, len(rhs_batch))):]  # rhs may have a lower rank
    out_batch = [max(a, b) for a, b in zip(lhs_batch, [1] * (len(lhs_batch) - len(rhs_batch)) + rhs_batch,
                                           strict=True)]
    m, n, k = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 8))
    adj_x, adj_y = draw(st.booleans()), draw(st.booleans())
    lhs_shape = (*lhs_batch, *((k, m) if adj_x else (m, k)))
    rhs_shape = (*rhs_batch, *((n, k) if adj_y else (k, n)))
    lhs_scale, rhs_scale = draw(scales), draw(scales)
    out_scale = lhs_scale * rhs_scale * float(np.sqrt(k)) * 128 * 2.0 ** draw(st.integers(-3, 2))
    quant = ((lhs_scale, draw(int8_zero_points)), (rhs_scale, draw(int8_zero_points)),
             (out_scale, draw(int8_zero_points)))
    return lhs_shape, rhs_shape, (*out_batch, m, n), adj_x, adj_y, quant


@settings(max_examples=EXAMPLES, deadline=None)
@given(case=matmul_cases(), constant_rhs=st.booleans(), seed=st.integers(0, 99))
def test_batch_matmul_is_bit_exact(case, constant_rhs, seed):
    lhs_shape, rhs_shape, out_shape, adj_x, adj_y, quant = case
    rhs = np.random.default_rng(seed).integers(-128, 128, rhs_shape).astype(np.int8) if constant_rhs else None
    assert_bit_exact(matmul_model(lhs_shape, rhs_shape, out_shape, adj_x, adj_y, quant, rhs), seed=seed)


def test_depth_contiguous_operands_take_the_dot4_path_bit_exact():
    # lhs [m, k] and adj_y rhs [n, k]: the path of four columns per dot product, zero points applied after; 6 columns
    # leave a tail of 2, the batch dimensions broadcast.
    quant = ((0.05, 7), (0.03, -9), (0.4, 3))
    assert_bit_exact(matmul_model((2, 1, 5, 7), (1, 3, 6, 7), (2, 3, 5, 6), False, True, quant), seed=5)


def test_batch_dimensions_that_do_not_broadcast_are_refused():
    quant = ((0.1, 0), (0.1, 0), (0.5, 0))
    message = refusal(matmul_model((2, 3, 4), (3, 4, 5), (3, 3, 5), False, False, quant))
    assert "operator 0" in message and "do not broadcast" in message
