"""CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and FULLY_CONNECTED 16x8 (int16 activations, int8 weights):
bit-exact against TFLM, with the int64 bias TFLite's converter writes, the int32 one it may write, or none; and the
refusals."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_convolution import conv_cases, conv_model
from test_fully_connected import fc_cases, fc_model
from test_transpose_conv import transpose_conv_cases, transpose_conv_model
from validated import MAX_EXAMPLES, assert_bit_exact, refusal
from weighted import ACTIVATIONS, Weights, weights

BIAS_DTYPES = st.sampled_from([np.int64, np.int32])


def _widened(w: Weights, bias_dtype) -> Weights:
    """The bias of a 16x8 layer: 256 times the int8 one (inputs are 256 times larger), as int64 or int32."""
    bias = None if w.bias is None else (w.bias.astype(np.int64) * 256).astype(bias_dtype)
    return Weights(w.values, w.scales, bias, w.output_scale)


@settings(max_examples=MAX_EXAMPLES // 2, deadline=None)
@given(opcode=st.sampled_from(["CONV_2D", "DEPTHWISE_CONV_2D"]), data=st.data(), bias_dtype=BIAS_DTYPES,
       seed=st.integers(0, 99))
def test_convolutions_16x8_are_bit_exact(opcode, data, bias_dtype, seed):
    input_shape, w, input_scale, options = data.draw(conv_cases(opcode))
    if opcode == "DEPTHWISE_CONV_2D":
        bias_dtype = np.int64  # TFLM's 16x8 depthwise reads int64 only (test_int32_bias_of_a_16x8_depthwise...)
    model = conv_model(opcode, input_shape, _widened(w, bias_dtype), input_scale, 0, 0, options, dtype="int16")
    assert_bit_exact(model, seed=seed)


@settings(max_examples=MAX_EXAMPLES // 4, deadline=None)
@given(data=st.data(), seed=st.integers(0, 99))
def test_conv_16x8_interleaved_groups_are_bit_exact(data, seed):
    """Groups of eight output channels (interleaved weights) then four and one; filter rows or columns summed in
    int32 runs of at most 256 products (in_c 90: rows of 270), windows partly or wholly in the padding."""
    shape = (1, data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)), data.draw(st.sampled_from([1, 3, 90])))
    fh, fw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    options = {"padding": "SAME", "stride_h": data.draw(st.integers(1, 2)), "stride_w": data.draw(st.integers(1, 2)),
               "dilation_h": data.draw(st.integers(1, 3)), "dilation_w": data.draw(st.integers(1, 3)),
               "activation": "NONE"}
    w = data.draw(weights((data.draw(st.integers(8, 13)), fh, fw, shape[3]), 0, 0.01, fh * fw * shape[3]))
    assert_bit_exact(conv_model("CONV_2D", shape, _widened(w, np.int64), 0.01, 0, 0, options, dtype="int16"),
                     seed=seed)


@settings(max_examples=MAX_EXAMPLES // 4, deadline=None)
@given(data=st.data(), seed=st.integers(0, 99))
def test_depthwise_3x3_16x8_is_bit_exact(data, seed):
    """The 3x3 path (constant filter, depth multiplier 1: interior windows summed in registers) beside the border
    pixels' general one."""
    side = st.integers(5, 8)
    shape = (data.draw(st.integers(1, 2)), data.draw(side), data.draw(side), data.draw(st.integers(1, 5)))
    options = {"padding": data.draw(st.sampled_from(["SAME", "VALID"])), "stride_h": data.draw(st.integers(1, 2)),
               "stride_w": data.draw(st.integers(1, 2)), "dilation_h": data.draw(st.integers(1, 2)),
               "dilation_w": data.draw(st.integers(1, 2)), "activation": data.draw(ACTIVATIONS),
               "depth_multiplier": 1}
    w = data.draw(weights((1, 3, 3, shape[3]), 3, 0.01, 9))
    model = conv_model("DEPTHWISE_CONV_2D", shape, _widened(w, np.int64), 0.01, 0, 0, options, dtype="int16")
    assert_bit_exact(model, seed=seed)


@settings(max_examples=MAX_EXAMPLES // 2, deadline=None)
@given(case=fc_cases(), activation=ACTIVATIONS, bias_dtype=BIAS_DTYPES, seed=st.integers(0, 99))
def test_fully_connected_16x8_is_bit_exact(case, activation, bias_dtype, seed):
    input_shape, w, input_scale, keep_num_dims = case
    model = fc_model(input_shape, _widened(w, bias_dtype), input_scale, 0, 0, activation, keep_num_dims,
                     dtype="int16")
    assert_bit_exact(model, seed=seed)


@settings(max_examples=MAX_EXAMPLES // 3, deadline=None)
@given(case=transpose_conv_cases(), seed=st.integers(0, 99))
def test_transpose_conv_16x8_is_bit_exact(case, seed):
    """With an int64 bias or none: TFLM's 16x8 TRANSPOSE_CONV reads int64 only, as its depthwise."""
    input_shape, output_shape, w, input_scale, options = case
    model = transpose_conv_model(input_shape, output_shape, _widened(w, np.int64), input_scale, 0, 0, options,
                                 dtype="int16")
    assert_bit_exact(model, seed=seed)


def test_fully_connected_16x8_interleaved_groups_over_long_rows():
    """Eight-channel groups (interleaved weights), then four and one; rows longer than the 256-product int32 runs,
    inputs at the int16 extremes."""
    rng = np.random.default_rng(3)
    w = Weights(rng.integers(-128, 128, (13, 600)).astype(np.int8), [0.01], rng.integers(-9, 9, 13) << 20, 40.0)
    inputs = [np.where(rng.random((2, 600)) < 0.5, -32768, 32767).astype(np.int16)]
    assert_bit_exact(fc_model((2, 600), w, 0.01, 0, 0, dtype="int16"), inputs=inputs)


def _fc_weights() -> Weights:
    return Weights(np.ones((3, 4), np.int8), [0.01], np.zeros(3, np.int64), 0.05)


def test_a_nonzero_int16_zero_point_is_refused():
    message = refusal(fc_model((1, 4), _fc_weights(), 0.01, 5, 0, dtype="int16"))
    assert "zero point 5; int16 activations must have zero point 0" in message
    assert "\n" not in message


def test_int16_weights_are_refused():
    w = Weights(np.ones((3, 4), np.int16), [0.01], None, 0.05)
    message = refusal(fc_model((1, 4), w, 0.01, 0, 0, dtype="int16"))
    assert "weights" in message and "int16; only int8 is supported" in message


def test_an_int64_bias_on_int8_activations_is_refused():
    assert "need an int32 bias" in refusal(fc_model((1, 4), _fc_weights(), 0.01, 0, 0))


def test_an_int32_bias_of_a_16x8_depthwise_is_refused():
    w = Weights(np.ones((1, 1, 1, 2), np.int8), [0.01], np.zeros(2, np.int32), 0.05)
    options = {"padding": "SAME", "stride_h": 1, "stride_w": 1, "dilation_h": 1, "dilation_w": 1}
    model = conv_model("DEPTHWISE_CONV_2D", (1, 2, 2, 2), w, 0.01, 0, 0, options, dtype="int16")
    assert "reads an int64 bias only" in refusal(model)


def test_an_int32_bias_of_a_16x8_transpose_conv_is_refused():
    w = Weights(np.ones((2, 2, 2, 1), np.int8), [0.01], np.zeros(2, np.int32), 0.05)
    model = transpose_conv_model((1, 2, 2, 1), (1, 4, 4, 2), w, 0.01, 0, 0,
                                 {"padding": "SAME", "stride_h": 2, "stride_w": 2}, dtype="int16")
    message = refusal(model)
    assert "operator 0" in message and "TRANSPOSE_CONV reads an int64 bias only" in message
