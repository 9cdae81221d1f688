"""TRANSPOSE_CONV int8 (with and without bias, per-tensor and per-channel weights): generated C bit-exact against
TFLM, whose kernel accumulates in an int32 scratch buffer that ours does without."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales
from weighted import ACTIVATIONS, Weights, add_weights, for_activation, weights

from firmware_gen.modelgen.writer import ModelBuilder

EXAMPLES = MAX_EXAMPLES // 2


def transpose_conv_model(input_shape, output_shape, w: Weights, input_scale, input_zp, output_zp, options,
                         shape_operand=None, dtype="int8") -> bytes:
    if dtype == "int8":
        w = for_activation(w, options.get("activation", "NONE"))
    b = ModelBuilder("transpose_conv")
    x = b.input("x", input_shape, dtype, scale=input_scale, zero_point=input_zp)
    shape = b.constant("output_shape", np.array(shape_operand or output_shape, np.int32))
    weights_index, bias_index = add_weights(b, "tconv", w, input_scale, 0)
    y = b.tensor("y", output_shape, dtype, scale=w.output_scale, zero_point=output_zp)
    inputs = [shape, weights_index, x] + ([bias_index] if bias_index >= 0 else [])
    b.operator("TRANSPOSE_CONV", inputs=inputs, outputs=[y], options=options)
    b.output(y)
    return b.build()


@st.composite
def transpose_conv_cases(draw):
    batches, in_h, in_w, in_c = draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 5)), \
        draw(st.integers(1, 4))
    filter_h, filter_w, out_c = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    options = {"padding": draw(st.sampled_from(["SAME", "VALID"])), "stride_h": draw(st.integers(1, 3)),
               "stride_w": draw(st.integers(1, 3)), "activation": draw(ACTIVATIONS)}
    # The output size the converter writes: the inverse of a CONV_2D's ComputeOutSize.
    sizes = []
    for size, taps, stride in ((in_h, filter_h, options["stride_h"]), (in_w, filter_w, options["stride_w"])):
        sizes.append(size * stride if options["padding"] == "SAME" else (size - 1) * stride + taps)
    input_scale = draw(scales)
    w = draw(weights((out_c, filter_h, filter_w, in_c), 0, input_scale, filter_h * filter_w * in_c))
    return (batches, in_h, in_w, in_c), (batches, *sizes, out_c), w, input_scale, options


@settings(max_examples=EXAMPLES, deadline=None)
@given(case=transpose_conv_cases(), input_zp=int8_zero_points, output_zp=int8_zero_points, seed=st.integers(0, 99))
def test_transpose_conv_is_bit_exact(case, input_zp, output_zp, seed):
    input_shape, output_shape, w, input_scale, options = case
    model = transpose_conv_model(input_shape, output_shape, w, input_scale, input_zp, output_zp, options)
    assert_bit_exact(model, seed=seed)


def _case():
    rng = np.random.default_rng(1)
    w = Weights(rng.integers(-127, 127, (3, 3, 3, 2)).astype(np.int8), [0.02], None, 0.5)
    return (1, 4, 4, 2), (1, 8, 8, 3), w


def test_a_contradicting_output_shape_operand_is_refused():
    input_shape, output_shape, w = _case()
    model = transpose_conv_model(input_shape, output_shape, w, 0.1, 0, 0, {"padding": "SAME", "stride_h": 2,
                                                                            "stride_w": 2}, shape_operand=[1, 9, 8, 3])
    assert "output shape operand [1, 9, 8, 3] differs" in refusal(model)


def test_a_zero_stride_is_refused_naming_the_option():
    input_shape, output_shape, w = _case()
    model = transpose_conv_model(input_shape, output_shape, w, 0.1, 0, 0, {"padding": "SAME", "stride_h": 0,
                                                                            "stride_w": 2})
    message = refusal(model)
    assert "operator 0" in message and "stride_h=0" in message
