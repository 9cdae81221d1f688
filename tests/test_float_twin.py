"""modelgen.float_twin: the float model an int8 graph quantizes, for `validate --reference`. It runs in LiteRT,
computes what the int8 graph approximates, drops QUANTIZE/DEQUANTIZE, and dequantizes the constants it was not
given in float."""

from __future__ import annotations

import numpy as np
import pytest

from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images
from firmware_gen.modelgen.float_twin import float_twin
from firmware_gen.modelgen.writer import ModelBuilder

litert = pytest.importorskip("ai_edge_litert.interpreter")


def _interpreter(model: bytes):
    interpreter = litert.Interpreter(
        model_content=model, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    return interpreter


def _run(model: bytes, x: np.ndarray) -> np.ndarray:
    interpreter = _interpreter(model)
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"])


def test_a_float_in_float_out_graph_and_its_twin_agree() -> None:
    graph = CalibratedBuilder("float_io", seed=2)
    x = graph.input("input", calibration_images(graph.rng, 8, 8, 8, 3), dtype="float32")
    x = graph.quantize(x, name="quantized")
    x = graph.conv2d(x, 6, kernel=3, name="conv")
    x = graph.depthwise_conv2d(x, kernel=3, stride=2, name="depthwise")
    x = graph.mean(x, axes=(1, 2), keep_dims=False, name="mean")
    x = graph.fully_connected(x, 5, name="fc")
    graph.output(graph.dequantize(graph.softmax(x, name="probabilities"), name="output"))
    quantized, twin = graph.build(), graph.build_float_twin()

    details = _interpreter(twin)
    assert [d["dtype"] for d in details.get_input_details() + details.get_output_details()] == [np.float32] * 2
    operators = {op["op_name"] for op in details._get_ops_details()}
    assert not operators & {"QUANTIZE", "DEQUANTIZE"} and "CONV_2D" in operators
    sample = calibration_images(np.random.default_rng(9), 1, 8, 8, 3).astype(np.float32)
    expected, approximated = _run(twin, sample), _run(quantized, sample)
    assert expected.shape == approximated.shape == (1, 5)
    assert np.max(np.abs(expected - approximated)) < 0.1 and abs(float(expected.sum()) - 1) < 1e-5


def test_constants_without_float_values_are_dequantized_per_channel() -> None:
    model = ModelBuilder("per_channel")
    x = model.input("x", (1, 1, 1, 2), "int8", scale=0.5, zero_point=3)
    weights = np.array([[[[1, -2]]], [[[3, 4]]], [[[-5, 6]]]], np.int8)  # (3 outputs, 1, 1, 2 inputs)
    w = model.constant("w", weights, scale=[0.25, 0.5, 1.0], zero_point=0, axis=0)
    b = model.constant("b", np.array([4, 8, -2], np.int32), scale=[0.125, 0.25, 0.5], zero_point=0)
    y = model.tensor("y", (1, 1, 1, 3), "int8", scale=0.1, zero_point=0)
    model.operator("CONV_2D", [x, w, b], [y], {"padding": "VALID"})
    model.output(y)
    interpreter = _interpreter(float_twin(model))
    tensors = {d["name"]: interpreter.get_tensor(d["index"]) for d in interpreter.get_tensor_details()
               if d["name"] in ("w", "b")}
    np.testing.assert_allclose(tensors["w"], weights * np.array([0.25, 0.5, 1.0]).reshape(3, 1, 1, 1))
    np.testing.assert_allclose(tensors["b"], [0.5, 2.0, -1.0])
    out = _run(float_twin(model), np.array([[[[2.0, -1.0]]]], np.float32))
    np.testing.assert_allclose(out.ravel(), [0.25 * (2 + 2) + 0.5, 0.5 * (6 - 4) + 2.0, 1.0 * (-10 - 6) - 1.0])
