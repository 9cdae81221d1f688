"""CONV_2D and DEPTHWISE_CONV_2D int8: generated C bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from isolate import operators_of
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales
from weighted import ACTIVATIONS, Weights, add_weights, for_activation, weights

from firmware_gen.check.host_validation import validate_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops.geometry import window_2d

from conftest import shared_model

# Filter layouts: CONV_2D [out_c, h, w, in_c] quantized along 0, DEPTHWISE [1, h, w, out_c] along 3.
CHANNEL_AXIS = {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 3}


def conv_model(opcode, input_shape, w: Weights, input_scale, input_zp, output_zp, options,
               output_shape=None, dtype="int8") -> bytes:
    axis = CHANNEL_AXIS[opcode]
    filter_hw = w.values.shape[1:3]
    if output_shape is None:
        window = window_2d(options["padding"], input_shape[1:3], filter_hw,
                           (options["stride_h"], options["stride_w"]), (options["dilation_h"], options["dilation_w"]))
        output_shape = (input_shape[0], window.out_h, window.out_w, w.values.shape[axis])
    if dtype == "int8":
        w = for_activation(w, options.get("activation", "NONE"))
    b = ModelBuilder(opcode.lower())
    x = b.input("x", input_shape, dtype, scale=input_scale, zero_point=input_zp)
    weights_index, bias_index = add_weights(b, "conv", w, input_scale, axis)
    y = b.tensor("y", output_shape, dtype, scale=w.output_scale, zero_point=output_zp)
    inputs = [x, weights_index] + ([bias_index] if bias_index >= 0 else [])
    b.operator(opcode, inputs=inputs, outputs=[y], options=options)
    b.output(y)
    return b.build()


@st.composite
def conv_cases(draw, opcode):
    batches = draw(st.integers(1, 2))
    in_h, in_w, in_c = draw(st.integers(1, 8)), draw(st.integers(1, 8)), draw(st.integers(1, 4))
    filter_h, filter_w = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    options = {
        "padding": draw(st.sampled_from(["SAME", "VALID"])),
        "stride_h": draw(st.integers(1, 3)), "stride_w": draw(st.integers(1, 3)),
        "dilation_h": draw(st.integers(1, 3)), "dilation_w": draw(st.integers(1, 3)),
        "activation": draw(ACTIVATIONS),
    }
    window = window_2d(options["padding"], (in_h, in_w), (filter_h, filter_w),
                       (options["stride_h"], options["stride_w"]), (options["dilation_h"], options["dilation_w"]))
    assume(window.out_h >= 1 and window.out_w >= 1)
    input_scale = draw(scales)
    if opcode == "CONV_2D":
        shape = (draw(st.integers(1, 5)), filter_h, filter_w, in_c)
        taps = filter_h * filter_w * in_c
    else:
        options["depth_multiplier"] = draw(st.integers(1, 3))
        shape = (1, filter_h, filter_w, in_c * options["depth_multiplier"])
        taps = filter_h * filter_w
    w = draw(weights(shape, CHANNEL_AXIS[opcode], input_scale, taps))
    return (batches, in_h, in_w, in_c), w, input_scale, options


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(case=conv_cases("CONV_2D"), input_zp=int8_zero_points, output_zp=int8_zero_points, seed=st.integers(0, 99))
def test_conv2d_is_bit_exact(case, input_zp, output_zp, seed):
    input_shape, w, input_scale, options = case
    assert_bit_exact(conv_model("CONV_2D", input_shape, w, input_scale, input_zp, output_zp, options), seed=seed)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(case=conv_cases("DEPTHWISE_CONV_2D"), input_zp=int8_zero_points, output_zp=int8_zero_points,
       seed=st.integers(0, 99))
def test_depthwise_conv2d_is_bit_exact(case, input_zp, output_zp, seed):
    input_shape, w, input_scale, options = case
    model = conv_model("DEPTHWISE_CONV_2D", input_shape, w, input_scale, input_zp, output_zp, options)
    assert_bit_exact(model, seed=seed)


def _options(**overrides):
    return {"padding": "SAME", "stride_h": 1, "stride_w": 1, "dilation_h": 1, "dilation_w": 1, **overrides}


def test_grouped_convolution_is_refused():
    w = Weights(np.ones((4, 3, 3, 2), np.int8), [0.01], None, 0.1)
    message = refusal(conv_model("CONV_2D", (1, 5, 5, 4), w, 0.1, 0, 0, _options()))
    assert "grouped convolution is not supported" in message


def test_depth_multiplier_must_match_the_filter():
    w = Weights(np.ones((1, 3, 3, 6), np.int8), [0.01], None, 0.1)
    message = refusal(conv_model("DEPTHWISE_CONV_2D", (1, 5, 5, 3), w, 0.1, 0, 0, _options(depth_multiplier=3),
                                 output_shape=(1, 5, 5, 6)))
    assert "depth_multiplier 3 needs 9" in message


def test_wrong_output_shape_is_refused():
    w = Weights(np.ones((2, 3, 3, 1), np.int8), [0.01], None, 0.1)
    message = refusal(conv_model("CONV_2D", (1, 6, 6, 1), w, 0.1, 0, 0, _options(padding="VALID", stride_h=2),
                                 output_shape=(1, 4, 4, 2)))
    assert "should be [1, 2, 4, 2]" in message


@pytest.mark.parametrize("name", ["kws_ref_model", "micro_speech_quantized"])
def test_real_model_layers_alone_on_random_inputs(name):
    cases = operators_of(shared_model(name), set(CHANNEL_AXIS))
    assert cases
    for label, model in cases:
        report = validate_model(model, seed=7)
        assert report.bit_exact, (label, report.mismatches)
