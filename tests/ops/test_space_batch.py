"""SPACE_TO_BATCH_ND (padding with raw 0, as TFLM, whatever the zero point) and BATCH_TO_SPACE_ND (crops), 3-D and
4-D int8: generated C bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal

from firmware_gen.modelgen.writer import ModelBuilder

EXAMPLES = MAX_EXAMPLES // 3


def space_batch_model(opcode, input_shape, output_shape, block, edges, zero_point) -> bytes:
    b = ModelBuilder(opcode.lower())
    x = b.input("x", input_shape, "int8", scale=0.05, zero_point=zero_point)
    blocks = b.constant("block", np.array(block, np.int32))
    edge = b.constant("edges", np.array(edges, np.int32).reshape(len(block), 2))
    y = b.tensor("y", output_shape, "int8", scale=0.05, zero_point=zero_point)
    b.operator(opcode, inputs=[x, blocks, edge], outputs=[y])
    b.output(y)
    return b.build()


@st.composite
def space_cases(draw):
    """(batch-side shape, space-side shape, block, paddings = crops): SPACE_TO_BATCH_ND maps space to batch."""
    spatial = draw(st.integers(1, 2))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    block = [draw(st.integers(1, 3)) for _ in range(spatial)]
    small = [draw(st.integers(1, 3)) for _ in range(spatial)]
    edges = []
    for b, s in zip(block, small, strict=True):
        total = draw(st.integers(0, b * s - 1))
        before = draw(st.integers(0, total))
        edges += [before, total - before]
    space = (n, *[b * s - edges[2 * i] - edges[2 * i + 1] for i, (b, s) in enumerate(zip(block, small,
                                                                                          strict=True))], c)
    batch = (n * int(np.prod(block)), *small, c)
    return batch, space, block, edges


@settings(max_examples=EXAMPLES, deadline=None)
@given(case=space_cases(), zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_space_to_batch_nd_is_bit_exact(case, zero_point, seed):
    batch, space, block, paddings = case
    assert_bit_exact(space_batch_model("SPACE_TO_BATCH_ND", space, batch, block, paddings, zero_point), seed=seed)


@settings(max_examples=EXAMPLES, deadline=None)
@given(case=space_cases(), zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_batch_to_space_nd_is_bit_exact(case, zero_point, seed):
    batch, space, block, crops = case
    assert_bit_exact(space_batch_model("BATCH_TO_SPACE_ND", batch, space, block, crops, zero_point), seed=seed)


def test_paddings_that_do_not_divide_are_refused():
    message = refusal(space_batch_model("SPACE_TO_BATCH_ND", (1, 3, 4, 1), (4, 2, 2, 1), [2, 2], [0, 0, 0, 0], 0))
    assert "operator 0" in message and "paddings [0, 0, 0, 0]" in message
