"""DEPTH_TO_SPACE and SPACE_TO_DEPTH int8: generated C bit-exact against TFLM."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, refusal

from firmware_gen.modelgen.writer import ModelBuilder

EXAMPLES = MAX_EXAMPLES // 3


def block_model(opcode, input_shape, output_shape, block) -> bytes:
    b = ModelBuilder(opcode.lower())
    x = b.input("x", input_shape, "int8", scale=0.05, zero_point=-7)
    y = b.tensor("y", output_shape, "int8", scale=0.05, zero_point=-7)
    b.operator(opcode, inputs=[x], outputs=[y], options={"block_size": block})
    b.output(y)
    return b.build()


@settings(max_examples=EXAMPLES, deadline=None)
@given(n=st.integers(1, 2), h=st.integers(1, 3), w=st.integers(1, 3), c=st.integers(1, 3), block=st.integers(1, 3),
       seed=st.integers(0, 99))
def test_depth_to_space_is_bit_exact(n, h, w, c, block, seed):
    model = block_model("DEPTH_TO_SPACE", (n, h, w, c * block * block), (n, h * block, w * block, c), block)
    assert_bit_exact(model, seed=seed)


@settings(max_examples=EXAMPLES, deadline=None)
@given(n=st.integers(1, 2), h=st.integers(1, 3), w=st.integers(1, 3), c=st.integers(1, 3), block=st.integers(1, 3),
       seed=st.integers(0, 99))
def test_space_to_depth_is_bit_exact(n, h, w, c, block, seed):
    model = block_model("SPACE_TO_DEPTH", (n, h * block, w * block, c), (n, h, w, c * block * block), block)
    assert_bit_exact(model, seed=seed)


def test_a_block_size_that_does_not_divide_is_refused():
    message = refusal(block_model("SPACE_TO_DEPTH", (1, 3, 4, 1), (1, 1, 2, 4), 2))
    assert "operator 0" in message and "block_size=2" in message
