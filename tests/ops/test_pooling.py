"""AVERAGE_POOL_2D and MAX_POOL_2D (int8): lowering checks and bit-exactness against TFLM."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from isolate import operators_of

from firmware_gen.check.host_validation import validate_model
from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import REGISTRY
from firmware_gen.ops.geometry import window_2d

from conftest import shared_model

POOLS = ["AVERAGE_POOL_2D", "MAX_POOL_2D"]
ACTIVATIONS = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]


def pool_model(opcode: str, shape: tuple[int, int, int, int], options: dict, scale: float = 0.05,
               zero_point: int = 0, output_quant: tuple[float, int] | None = None, dtype: str = "int8") -> bytes:
    """One pooling operator; the output shape follows from the window (TFLite's rules)."""
    window = window_2d(options["padding"], shape[1:3], (options["filter_h"], options["filter_w"]),
                       (options["stride_h"], options["stride_w"]))
    out_scale, out_zero_point = output_quant or (scale, zero_point)
    builder = ModelBuilder(opcode.lower())
    x = builder.input("x", shape, dtype, scale=scale, zero_point=zero_point)
    y = builder.tensor("y", (shape[0], window.out_h, window.out_w, shape[3]), dtype, scale=out_scale,
                       zero_point=out_zero_point)
    builder.operator(opcode, inputs=[x], outputs=[y], options=options)
    builder.output(y)
    return builder.build()


def assert_bit_exact(model: bytes, seed: int = 0) -> None:
    report = validate_model(model, seed=seed, sanitize=True)
    assert report.bit_exact, report.mismatches
    assert report.tensors_compared == 1


@st.composite
def pool_cases(draw: st.DrawFn) -> dict:
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 12)), draw(st.integers(1, 12)), draw(st.integers(1, 8)))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    options = {
        "padding": padding,
        "filter_h": draw(st.integers(1, 6)),
        "filter_w": draw(st.integers(1, 6)),
        "stride_h": draw(st.integers(1, 4)),
        "stride_w": draw(st.integers(1, 4)),
        "activation": draw(st.sampled_from(ACTIVATIONS)),
    }
    if padding == "VALID":
        assume(options["filter_h"] <= shape[1] and options["filter_w"] <= shape[2])
    return {
        "shape": shape,
        "options": options,
        "scale": float(np.float32(2.0 ** draw(st.floats(min_value=-10.0, max_value=0.0)))),
        "zero_point": draw(st.integers(-128, 127)),
    }


@pytest.mark.parametrize("opcode", POOLS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=pool_cases(), seed=st.integers(0, 2**16))
def test_bit_exact_with_tflm(opcode: str, case: dict, seed: int) -> None:
    assert_bit_exact(pool_model(opcode, **case), seed=seed)


@pytest.mark.parametrize("opcode", POOLS)
@pytest.mark.parametrize("shape, window", [
    ((1, 8, 8, 64), (8, 8, 8, 8, "VALID")),  # global average (ResNet)
    ((1, 5, 7, 3), (3, 3, 2, 2, "SAME")),  # padded borders: fewer elements per window
    ((1, 4, 4, 2), (6, 6, 1, 1, "SAME")),  # window larger than the input
    ((2, 9, 6, 5), (2, 3, 3, 2, "VALID")),  # rectangular window, leftover rows
])
def test_window_shapes(opcode: str, shape: tuple, window: tuple) -> None:
    filter_h, filter_w, stride_h, stride_w, padding = window
    options = {"padding": padding, "filter_h": filter_h, "filter_w": filter_w, "stride_h": stride_h,
               "stride_w": stride_w, "activation": "RELU6"}
    assert_bit_exact(pool_model(opcode, shape, options, scale=0.03, zero_point=-20))


@pytest.mark.parametrize("opcode", POOLS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=pool_cases(), seed=st.integers(0, 2**16))
def test_int16_bit_exact_with_tflm(opcode: str, case: dict, seed: int) -> None:
    assert_bit_exact(pool_model(opcode, **{**case, "zero_point": 0}, dtype="int16"), seed=seed)


def test_average_rounds_half_away_from_zero() -> None:
    # Windows of 2 elements: sums of -3 and 3 average to -2 and 2 (TFLM), not -1 and 1 (floor / to even).
    options = {"padding": "VALID", "filter_h": 1, "filter_w": 2, "stride_h": 1, "stride_w": 2, "activation": "NONE"}
    model = pool_model("AVERAGE_POOL_2D", (1, 1, 8, 1), options)
    x = np.array([-1, -2, 1, 2, -1, 0, 1, 0], dtype=np.int8).reshape(1, 1, 8, 1)
    report = validate_model(model, inputs=[x], sanitize=True)
    assert report.bit_exact, report.mismatches


def test_macs_count_window_elements() -> None:
    options = {"padding": "VALID", "filter_h": 3, "filter_w": 2, "stride_h": 1, "stride_w": 1, "activation": "NONE"}
    graph = read_model(pool_model("MAX_POOL_2D", (1, 5, 5, 4), options))
    assert REGISTRY["MAX_POOL_2D"].macs(graph, graph.operators[0]) == 3 * 4 * 4 * 3 * 2


@pytest.mark.parametrize("opcode", POOLS)
def test_rejects_requantizing_pool(opcode: str) -> None:
    options = {"padding": "SAME", "filter_h": 2, "filter_w": 2, "stride_h": 2, "stride_w": 2, "activation": "NONE"}
    graph = read_model(pool_model(opcode, (1, 4, 4, 2), options, scale=0.05, zero_point=0, output_quant=(0.1, 0)))
    with pytest.raises(UnsupportedModelError, match=r"operator 0 .*must share their quantization"):
        REGISTRY[opcode].check(graph, graph.operators[0])


def test_rejects_float_input_naming_it() -> None:
    builder = ModelBuilder("float_pool")
    x = builder.input("x", (1, 4, 4, 2), "float32")
    y = builder.tensor("y", (1, 2, 2, 2), "float32")
    builder.operator("MAX_POOL_2D", inputs=[x], outputs=[y],
                     options={"padding": "VALID", "filter_h": 2, "filter_w": 2, "stride_h": 2, "stride_w": 2})
    builder.output(y)
    graph = read_model(builder.build())
    with pytest.raises(UnsupportedModelError, match=r"operator 0 \(MAX_POOL_2D\): input tensor 0 'x'.*float32"):
        REGISTRY["MAX_POOL_2D"].check(graph, graph.operators[0])


@pytest.mark.parametrize("model_name", ["pretrainedResnet_quant", "person_detect", "vww_96_int8", "kws_ref_model"])
def test_real_model_pools(model_name: str) -> None:
    cases = operators_of(shared_model(model_name), set(POOLS))
    assert cases
    for label, model in cases:
        report = validate_model(model, seed=2)
        assert report.bit_exact, (label, report.mismatches)
