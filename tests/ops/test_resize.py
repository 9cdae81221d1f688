"""RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR int8 (align_corners, half_pixel_centers): generated C bit-exact
against TFLM."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales

from firmware_gen.modelgen.writer import ModelBuilder

EXAMPLES = MAX_EXAMPLES // 2


def resize_model(opcode, input_shape, size, scale, zero_point, options) -> bytes:
    b = ModelBuilder(opcode.lower())
    x = b.input("x", input_shape, "int8", scale=scale, zero_point=zero_point)
    s = b.constant("size", np.array(size, np.int32))
    y = b.tensor("y", (input_shape[0], *size, input_shape[3]), "int8", scale=scale, zero_point=zero_point)
    b.operator(opcode, inputs=[x, s], outputs=[y], options=options)
    b.output(y)
    return b.build()


@st.composite
def resize_cases(draw):
    input_shape = (draw(st.integers(1, 2)), draw(st.integers(1, 6)), draw(st.integers(1, 6)), draw(st.integers(1, 3)))
    size = [draw(st.integers(1, 13)), draw(st.integers(1, 13))]
    options = {"align_corners": draw(st.booleans()), "half_pixel_centers": draw(st.booleans())}
    return input_shape, size, options


@settings(max_examples=EXAMPLES, deadline=None)
@given(case=resize_cases(), scale=scales, zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_resize_nearest_neighbor_is_bit_exact(case, scale, zero_point, seed):
    input_shape, size, options = case
    assert_bit_exact(resize_model("RESIZE_NEAREST_NEIGHBOR", input_shape, size, scale, zero_point, options),
                     seed=seed)


@settings(max_examples=EXAMPLES, deadline=None)
@given(case=resize_cases(), scale=scales, zero_point=int8_zero_points, seed=st.integers(0, 99))
def test_resize_bilinear_is_bit_exact(case, scale, zero_point, seed):
    input_shape, size, options = case
    assume(not (options["align_corners"] and options["half_pixel_centers"]))
    assert_bit_exact(resize_model("RESIZE_BILINEAR", input_shape, size, scale, zero_point, options), seed=seed)


def test_bilinear_with_both_corner_options_is_refused():
    model = resize_model("RESIZE_BILINEAR", (1, 2, 2, 1), [4, 4], 0.1, 0,
                         {"align_corners": True, "half_pixel_centers": True})
    message = refusal(model)
    assert "operator 0" in message and "align_corners=True" in message
