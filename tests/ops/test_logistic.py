"""LOGISTIC int8: parameters and C kernel bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from single_op_harness import assert_bit_exact, single_op_model

from firmware_gen.check.oracle import run_tflm
from firmware_gen.errors import UnsupportedModelError, UserError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import REGISTRY
from firmware_gen.ops.activation.logistic import logistic_scaling

LOGISTIC = REGISTRY["LOGISTIC"]
VALUES = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)


@pytest.mark.parametrize("input_scale, zero_point", [(0.001, 0), (0.01, -3), (1 / 32, 0), (0.05, 17), (0.1, -128),
                                                     (0.2, 127), (0.5, 0), (1.0, 10), (8.0, 0), (3e-8, 0)])
def test_every_input_value_is_bit_exact(input_scale, zero_point):
    assert_bit_exact(single_op_model("LOGISTIC", VALUES.shape, input_scale, zero_point), VALUES, sanitize=True)


def test_output_scale_is_not_checked_by_tflm_nor_by_us():
    assert_bit_exact(single_op_model("LOGISTIC", VALUES.shape, 0.05, 0, output_scale=0.01), VALUES)


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=4), log_scale=st.floats(-3.5, 1),
       zero_point=st.integers(-128, 127), seed=st.integers(0, 2**31))
def test_random_shapes_and_quantization_are_bit_exact(shape, log_scale, zero_point, seed):
    x = np.random.default_rng(seed).integers(-128, 128, size=shape).astype(np.int8)
    assert_bit_exact(single_op_model("LOGISTIC", shape, 10**log_scale, zero_point), x)


def test_parameters_follow_tflite_prepare():
    # 1/16 * 2^27 = 2^23 = 0.5 * 2^24: multiplier 2^30, shift 24, radius floor(15 * 2^27 / 2^24) = 120.
    assert logistic_scaling(1 / 16) == (1 << 30, 24, 120)
    with pytest.raises(ValueError):
        logistic_scaling(2.0**-30)


def _graph(output_zero_point=-128, dtype="int8", input_scale=0.1, per_channel=False):
    builder = ModelBuilder("logistic")
    scale = [input_scale, input_scale] if per_channel else input_scale
    x = builder.input("logits", (1, 2), dtype, scale=scale, zero_point=0)
    y = builder.tensor("gates", (1, 2), dtype, scale=1 / 256, zero_point=output_zero_point)
    builder.operator("LOGISTIC", inputs=[x], outputs=[y])
    builder.output(y)
    data = builder.build()
    return data, read_model(data)


@pytest.mark.parametrize("change, words", [
    ({"output_zero_point": 0}, "zero point"),
    ({"dtype": "uint8"}, "uint8"),
    ({"per_channel": True}, "per channel"),
    ({"input_scale": 2.0**-30}, "2^-28"),
])
def test_unsupported_logistic_is_refused_naming_op_and_tensor(change, words):
    _, graph = _graph(**change)
    with pytest.raises(UnsupportedModelError, match="operator 0") as error:
        LOGISTIC.check(graph, graph.operators[0])
    assert words in str(error.value)
    assert "'logits'" in str(error.value) or "'gates'" in str(error.value)


def test_tflm_refuses_what_we_refuse():
    data, graph = _graph(output_zero_point=0)
    with pytest.raises(UserError):
        run_tflm(data, [np.zeros((1, 2), np.int8)], len(graph.tensors))
