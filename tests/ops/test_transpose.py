"""TRANSPOSE int8, any permutation up to rank 5: generated C bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, refusal, shapes

from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.support.layout import coalesce


def transpose_model(shape, perm, out_shape=None) -> bytes:
    b = ModelBuilder("transpose")
    x = b.input("x", shape, "int8", scale=0.1, zero_point=0)
    p = b.constant("perm", np.array(perm, np.int32))
    y = b.tensor("y", out_shape or [shape[i] for i in perm], "int8", scale=0.1, zero_point=0)
    b.operator("TRANSPOSE", inputs=[x, p], outputs=[y])
    b.output(y)
    return b.build()


@st.composite
def transpose_cases(draw, max_rank):
    shape = draw(shapes(1, max_rank, max_side=5))
    return shape, draw(st.permutations(range(len(shape))))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(case=transpose_cases(max_rank=5), seed=st.integers(0, 99))
def test_transpose_is_bit_exact(case, seed):
    shape, perm = case
    assert_bit_exact(transpose_model(shape, perm), seed=seed)


def test_adjacent_dimensions_are_merged():
    # NHWC -> NCHW of a [1, 4, 5, 3] tensor walks [3 x 20] with strides [1, 3] once unit dimensions are dropped.
    strides = [60, 15, 3, 1]
    shape = [1, 4, 5, 3]
    assert coalesce([(shape[p], strides[p]) for p in (0, 3, 1, 2)]) == [(3, 1), (20, 3)]


def test_rank_6_is_refused():
    assert "more than 5 dimensions" in refusal(transpose_model((1, 2, 1, 2, 1, 2), [5, 4, 3, 2, 1, 0]))


def test_a_non_permutation_is_refused():
    assert "is not a permutation" in refusal(transpose_model((2, 3, 4), [0, 1, 1], out_shape=[2, 3, 3]))
