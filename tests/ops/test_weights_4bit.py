"""4-bit weights (INT4) on CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: generated C bit-exact against TFLM (whose
PyPI interpreter runs each of them with 4-bit weights), over geometries whose channel runs start and end inside a
byte, per-channel and per-tensor scales; and the refusals (one line each)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_convolution import CHANNEL_AXIS, conv_model
from test_fully_connected import fc_model
from validated import MAX_EXAMPLES, assert_bit_exact, int8_zero_points, refusal, scales
from weighted import ACTIVATIONS, Weights, weights

from firmware_gen.check.model_summary import summarize
from firmware_gen.errors import ModelFormatError, UnsupportedModelError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.nibbles import pack_int4, unpack_int4
from firmware_gen.ops.geometry import window_2d

from conftest import REPO, run_cli

AI_EDGE_MODEL = REPO / "tests" / "fixtures" / "ai_edge_quantizer" / "w4a8_cnn.tflite"


@st.composite
def conv_cases(draw, opcode):
    in_h, in_w = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    in_c = draw(st.sampled_from([1, 2, 3, 4, 5, 8, 20]))  # 8, 20: whole groups of four depthwise channels
    filter_h, filter_w = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    options = {"padding": draw(st.sampled_from(["SAME", "VALID"])), "activation": draw(ACTIVATIONS),
               "stride_h": draw(st.integers(1, 3)), "stride_w": draw(st.integers(1, 3)),
               "dilation_h": draw(st.integers(1, 2)), "dilation_w": draw(st.integers(1, 2))}
    window = window_2d(options["padding"], (in_h, in_w), (filter_h, filter_w),
                       (options["stride_h"], options["stride_w"]), (options["dilation_h"], options["dilation_w"]))
    assume(window.out_h >= 1 and window.out_w >= 1)
    input_scale = draw(scales)
    if opcode == "CONV_2D":
        shape, taps = (draw(st.integers(1, 5)), filter_h, filter_w, in_c), filter_h * filter_w * in_c
    else:
        options["depth_multiplier"] = draw(st.integers(1, 3))
        shape, taps = (1, filter_h, filter_w, in_c * options["depth_multiplier"]), filter_h * filter_w
    w = draw(weights(shape, CHANNEL_AXIS[opcode], input_scale, taps, int4=True))
    return (draw(st.integers(1, 2)), in_h, in_w, in_c), w, input_scale, options


@pytest.mark.parametrize("opcode", sorted(CHANNEL_AXIS))
@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(data=st.data(), input_zp=int8_zero_points, output_zp=int8_zero_points, seed=st.integers(0, 99))
def test_convolutions_with_4bit_weights_are_bit_exact(opcode, data, input_zp, output_zp, seed):
    input_shape, w, input_scale, options = data.draw(conv_cases(opcode))
    assert_bit_exact(conv_model(opcode, input_shape, w, input_scale, input_zp, output_zp, options), seed=seed)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(data=st.data(), input_zp=int8_zero_points, output_zp=int8_zero_points, activation=ACTIVATIONS,
       seed=st.integers(0, 99))
def test_fully_connected_with_4bit_weights_is_bit_exact(data, input_zp, output_zp, activation, seed):
    accum_depth, out_depth, batches = data.draw(st.integers(1, 41)), data.draw(st.integers(1, 19)), \
        data.draw(st.integers(1, 3))
    input_scale = data.draw(scales)
    w = data.draw(weights((out_depth, accum_depth), 0, input_scale, accum_depth, int4=True, per_channel=False))
    assert_bit_exact(fc_model((batches, accum_depth), w, input_scale, input_zp, output_zp, activation), seed=seed)


def test_nibbles_follow_tflite_layout():
    assert pack_int4(np.array([1, -1, -8])) == bytes([0xF1, 0x08])  # element 2i low, odd count padded with 0
    values = np.arange(-8, 8).repeat(3)[:47]
    assert (unpack_int4(pack_int4(values), 47) == values).all()


def _fc4(per_channel: bool = False, zero_point: int = 0) -> ModelBuilder:
    b = ModelBuilder("fc4")
    x = b.input("x", (1, 3), "int8", 0.1, 0)
    scales = [0.01, 0.02] if per_channel else 0.01
    w = b.constant("w", np.array([[1, -2, 3], [-8, 7, 0]], np.int8), scales, [zero_point] * (2 if per_channel else 1),
                   int4=True)
    y = b.tensor("y", (1, 2), "int8", 0.05, 0)
    b.operator("FULLY_CONNECTED", [x, w], [y])
    b.output(y)
    return b


def test_inspect_counts_4bit_weights_as_packed_bytes():
    assert summarize(read_model(_fc4().build())).weight_bytes == 3  # six 4-bit weights


def test_4bit_refusals_exit_2_in_one_line(tmp_path):
    path = tmp_path / "fc4.tflite"
    path.write_bytes(_fc4(per_channel=True).build())
    done = run_cli("validate", str(path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "per-channel scales, which TensorFlow Lite Micro refuses" in done.stderr


def test_per_channel_4bit_fully_connected_is_refused_as_tflm_refuses_it():
    assert "per-channel scales, which TensorFlow Lite Micro refuses" in refusal(_fc4(per_channel=True).build())


def test_4bit_weights_with_a_zero_point_are_refused():
    with pytest.raises(UnsupportedModelError, match="zero point 3; 4-bit weights must be symmetric"):
        read_model(_fc4(zero_point=3).build())


def test_4bit_buffer_of_the_wrong_size_is_refused():
    b = _fc4()
    b.tensors[1].data += b"\0"
    with pytest.raises(ModelFormatError, match=r"needs 3 bytes of data \(two 4-bit values per byte\), its buffer "
                                               r"holds 4"):
        read_model(b.build())


def test_4bit_activations_are_refused():
    b = ModelBuilder("act4")
    x = b.input("x", (1, 4), "int4", 0.1, 0)
    y = b.tensor("y", (1, 4), "int8", 0.1, 0)
    b.operator("QUANTIZE", [x], [y])
    b.output(y)
    with pytest.raises(UnsupportedModelError, match="is a 4-bit activation"):
        read_model(b.build())


def test_4bit_weights_of_another_operator_are_refused_naming_those_that_take_them():
    b = ModelBuilder("mul4")
    x = b.input("x", (1, 4), "int8", 0.1, 0)
    w = b.constant("w", np.array([[1, 2, 3, 4]], np.int8), 0.1, int4=True)
    y = b.tensor("y", (1, 4), "int8", 0.1, 0)
    b.operator("MUL", [x, w], [y])
    b.output(y)
    assert "int4 only as the weights of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED" in refusal(b.build())


def test_4bit_weights_with_int16_activations_are_refused():
    w = Weights(np.ones((2, 3), np.int8), [0.01], None, 0.1, int4=True)
    message = refusal(fc_model((1, 3), w, 0.1, 0, 0, dtype="int16"))
    assert "4-bit weights with int16 activations are not supported" in message


@pytest.mark.parametrize("in_c", [65, 71])  # windows of 585 and 639 taps: past FG_CONV_GATHER_TAPS, row by row
def test_conv2d_of_a_window_too_large_to_gather_is_bit_exact(in_c):
    rng = np.random.default_rng(in_c)
    w = Weights(rng.integers(-8, 8, (5, 3, 3, in_c)).astype(np.int8), [0.02], None, 2.0, int4=True)
    options = {"padding": "SAME", "stride_h": 1, "stride_w": 2, "dilation_h": 1, "dilation_w": 1, "activation": "NONE"}
    assert_bit_exact(conv_model("CONV_2D", (1, 3, 4, in_c), w, 0.05, 7, -3, options), seed=1)


def test_ai_edge_quantizer_w4a8_model_is_bit_exact():
    """ai-edge-quantizer's 4-bit CONV_2D (per channel) and FULLY_CONNECTED (per tensor), written by
    scripts/export_ai_edge_int4_model.py."""
    model = AI_EDGE_MODEL.read_bytes()
    graph = read_model(model)
    int4 = {op.opcode for op in graph.operators for i in op.inputs if i >= 0 and graph.tensors[i].dtype.label == "int4"}
    assert int4 == {"CONV_2D", "FULLY_CONNECTED"}
    assert_bit_exact(model, seed=2)
