"""CONCATENATION int8 along any axis: generated C (a variadic call) bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales, shapes

from firmware_gen.modelgen.writer import ModelBuilder


def concat_model(shapes_in, axis, quantizations, constant_input=None, activation="NONE") -> bytes:
    rank = len(shapes_in[0])
    positive = axis % rank
    out_shape = list(shapes_in[0])
    out_shape[positive] = sum(s[positive] for s in shapes_in)
    b = ModelBuilder("concatenation")
    inputs = []
    for i, (shape, (scale, zero_point)) in enumerate(zip(shapes_in, quantizations, strict=True)):
        if i == constant_input:
            data = np.arange(np.prod(shape), dtype=np.int64).reshape(shape) % 256 - 128
            inputs.append(b.constant(f"c{i}", data.astype(np.int8), scale=scale, zero_point=zero_point))
        else:
            inputs.append(b.input(f"x{i}", shape, "int8", scale=scale, zero_point=zero_point))
    y = b.tensor("y", out_shape, "int8", scale=quantizations[0][0], zero_point=quantizations[0][1])
    b.operator("CONCATENATION", inputs=inputs, outputs=[y], options={"axis": axis, "activation": activation})
    b.output(y)
    return b.build()


@st.composite
def concat_cases(draw):
    base = draw(shapes(1, 4, max_side=5))
    rank = len(base)
    axis = draw(st.integers(-rank, rank - 1))
    count = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 4), min_size=count, max_size=count))
    shapes_in = [tuple(size if d == axis % rank else n for d, n in enumerate(base)) for size in sizes]
    return shapes_in, axis


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(case=concat_cases(), scale=scales, zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_concatenation_is_bit_exact(case, scale, zero_point, seed):
    shapes_in, axis = case
    assert_bit_exact(concat_model(shapes_in, axis, [(scale, zero_point)] * len(shapes_in)), seed=seed)


def test_constant_input_is_bit_exact():
    shapes_in = [(1, 3, 2), (1, 3, 5), (1, 3, 1)]
    assert_bit_exact(concat_model(shapes_in, -1, [(0.1, 2)] * 3, constant_input=1))


def test_differing_quantization_is_refused():
    # TFLM refuses such a model too: nothing requantizes concatenation inputs.
    message = refusal(concat_model([(2, 3), (2, 4)], 1, [(0.1, 2), (0.5, -7)]))
    assert "requantizing inputs is not supported" in message


def test_fused_activation_is_refused():
    message = refusal(concat_model([(2, 3), (2, 3)], 0, [(0.1, 0)] * 2, activation="RELU"))
    assert "fused activation RELU" in message
