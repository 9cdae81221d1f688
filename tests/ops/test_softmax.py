"""SOFTMAX int8: parameters and C kernel bit-exact against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from single_op_harness import assert_bit_exact, single_op_model

from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.oracle import run_tflm
from firmware_gen.errors import UnsupportedModelError, UserError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import REGISTRY
from firmware_gen.ops.softmax.softmax import softmax_scaling

from conftest import SHARED_MODELS_DIR

SOFTMAX = REGISTRY["SOFTMAX"]
VALUES = np.arange(-128, 128, dtype=np.int8)


def every_difference_rows() -> np.ndarray:
    """Rows pairing each int8 value with the extremes, with itself, and with its mirror image."""
    return np.concatenate([
        np.stack([VALUES, np.full(256, 127, np.int8), np.full(256, -128, np.int8)], axis=1),
        np.stack([VALUES, VALUES, VALUES], axis=1),
        np.stack([VALUES, np.zeros(256, np.int8), (-1 - VALUES.astype(np.int16)).astype(np.int8)], axis=1),
    ])


@pytest.mark.parametrize("input_scale, beta", [(0.01, 1.0), (1 / 16, 1.0), (0.1, 1.0), (0.25, 0.5), (1.0, 1.0),
                                               (4.0, 1.0), (0.003, 2.0)])
def test_every_input_value_is_bit_exact(input_scale, beta):
    rows = every_difference_rows()
    assert_bit_exact(single_op_model("SOFTMAX", rows.shape, input_scale, 5, options={"beta": beta}), rows,
                     sanitize=True)
    whole_range = np.stack([VALUES, VALUES[::-1]])
    assert_bit_exact(single_op_model("SOFTMAX", whole_range.shape, input_scale, -7, options={"beta": beta}),
                     whole_range)


@st.composite
def softmax_cases(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=rank - 1, max_size=rank - 1))) + (draw(st.integers(1, 40)),)
    input_scale = 10 ** draw(st.floats(-3, 1))
    zero_point = draw(st.integers(-128, 127))
    beta = draw(st.sampled_from([1.0, 0.5, 2.0, 0.1, 1.7]))
    seed = draw(st.integers(0, 2**31))
    return shape, input_scale, zero_point, beta, seed


@settings(max_examples=30, deadline=None)
@given(softmax_cases())
def test_random_shapes_scales_and_betas_are_bit_exact(case):
    shape, input_scale, zero_point, beta, seed = case
    rng = np.random.default_rng(seed)
    # Narrow value ranges too, so that rows have close values (the interesting part of softmax).
    low = int(rng.integers(-128, 128))
    high = int(rng.integers(low, 128))
    x = rng.integers(low, high, size=shape, endpoint=True).astype(np.int8)
    assert_bit_exact(single_op_model("SOFTMAX", shape, input_scale, zero_point, options={"beta": beta}), x)


def test_parameters_follow_tflite_prepare():
    # beta * scale * 2^26 = 2^22: multiplier 2^30 (0.5 in Q31), shift 23, radius floor(31 * 2^26 / 2^23).
    assert softmax_scaling(1.0, 1 / 16) == (1 << 30, 23, -248)
    # The real multiplier is capped at 2^31 - 1.
    assert softmax_scaling(1.0, 100.0) == ((1 << 31) - 1, 31, 0)
    with pytest.raises(ValueError):
        softmax_scaling(1.0, 2.0**-27)


def _graph(output_scale=1 / 256, output_zero_point=-128, output_dtype="int8", input_dtype="int8", beta=1.0):
    builder = ModelBuilder("softmax")
    x = builder.input("logits", (1, 10), input_dtype, scale=0.1, zero_point=0)
    y = builder.tensor("probabilities", (1, 10), output_dtype, scale=output_scale, zero_point=output_zero_point)
    builder.operator("SOFTMAX", inputs=[x], outputs=[y], options={"beta": beta})
    builder.output(y)
    data = builder.build()
    return data, read_model(data)


@pytest.mark.parametrize("change, words", [
    ({"output_scale": 1 / 128}, "scale"),
    ({"output_zero_point": 0}, "zero point"),
    ({"output_dtype": "int16", "output_zero_point": 0, "output_scale": 1 / 65536}, "-32768"),
    ({"output_dtype": "int16", "output_zero_point": -32768, "output_scale": 1 / 32768}, "1/65536"),
    ({"input_dtype": "uint8", "output_dtype": "uint8"}, "uint8"),
    ({"beta": 1e-9}, "beta"),
])
def test_unsupported_softmax_is_refused_naming_op_and_tensor(change, words):
    _, graph = _graph(**change)
    with pytest.raises(UnsupportedModelError, match="operator 0") as error:
        SOFTMAX.check(graph, graph.operators[0])
    assert words in str(error.value)
    assert "'logits'" in str(error.value) or "'probabilities'" in str(error.value)


@pytest.mark.parametrize("change", [{"output_scale": 1 / 128}, {"output_zero_point": 0},
                                    {"output_dtype": "int16", "output_zero_point": 0, "output_scale": 1 / 65536},
                                    {"output_dtype": "int16", "output_zero_point": -32768, "output_scale": 1 / 32768}])
def test_tflm_refuses_what_we_refuse(change):
    data, graph = _graph(**change)
    with pytest.raises(UserError):
        run_tflm(data, [np.zeros((1, 10), np.int8)], len(graph.tensors))


@pytest.mark.parametrize("name", ["person_detect", "vww_96_int8", "kws_ref_model", "pretrainedResnet_quant",
                                  "micro_speech_quantized"])
def test_real_model_softmax_is_bit_exact(name):
    path = SHARED_MODELS_DIR / f"{name}.tflite"
    if not path.exists():
        pytest.skip(f"{path} is not here (the shared reference models are optional)")
    data = path.read_bytes()
    graph = read_model(data, name)
    op = graph.operators[-1]
    assert op.opcode == "SOFTMAX"
    source = graph.tensors[op.inputs[0]]
    scale, zero_point, beta = source.quantization.scale, source.quantization.zero_point, op.options["beta"]
    # The whole model, on random inputs...
    report = validate_model(data, seed=1)
    assert report.bit_exact, report.mismatches
    # ... and every difference under this model's quantization.
    rows = every_difference_rows()
    assert_bit_exact(single_op_model("SOFTMAX", rows.shape, scale, zero_point, options={"beta": beta}), rows)
