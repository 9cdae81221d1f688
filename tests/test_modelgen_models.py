"""Synthetic models (MobileNetV1 and the zoo): well formed, plausibly quantized, and run by TFLM."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from firmware_gen.check.oracle import OracleResult, run_tflm
from firmware_gen.frontend.ir import DType, Graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.calibrated import CalibratedBuilder
from firmware_gen.modelgen.float_reference import fit_int8
from firmware_gen.modelgen.mobilenet import mobilenet_v1
from firmware_gen.modelgen.movement_options import MOVEMENT_OPTION_WRITERS
from firmware_gen.modelgen.writer import OPTION_WRITERS
from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS


def _random_inputs(graph: Graph, rng: np.random.Generator) -> list[np.ndarray]:
    inputs = []
    for index in graph.inputs:
        tensor = graph.tensors[index]
        if tensor.dtype is DType.FLOAT32:
            inputs.append(rng.uniform(-1.0, 1.0, tensor.shape).astype(np.float32))
        else:
            inputs.append(rng.integers(-128, 128, tensor.shape, dtype=np.int8))
    return inputs


def _run_a_few(data: bytes, count: int = 3) -> tuple[Graph, list[OracleResult]]:
    graph = read_model(data)
    rng = np.random.default_rng(123)
    return graph, [run_tflm(data, _random_inputs(graph, rng), len(graph.tensors)) for _ in range(count)]


@pytest.fixture(scope="module")
def mobilenet() -> bytes:
    return mobilenet_v1()


def test_mobilenet_has_the_person_detect_topology_and_size(mobilenet: bytes) -> None:
    graph = read_model(mobilenet)
    opcodes = Counter(op.opcode for op in graph.operators)
    assert opcodes == {"CONV_2D": 15, "DEPTHWISE_CONV_2D": 13, "AVERAGE_POOL_2D": 1, "RESHAPE": 1, "SOFTMAX": 1}
    assert graph.tensors[graph.inputs[0]].shape == (1, 96, 96, 3)
    assert graph.tensors[graph.outputs[0]].shape == (1, 2)
    parameters = [graph.tensors[i] for op in graph.operators if "CONV" in op.opcode for i in op.inputs[1:]]
    assert 215_000 < sum(t.nbytes for t in parameters) < 223_000  # person_detect: 218928
    for op in graph.operators:
        if "CONV" not in op.opcode:
            continue
        weights, bias = graph.tensors[op.inputs[1]], graph.tensors[op.inputs[2]]
        channels = graph.tensors[op.outputs[0]].shape[3]
        assert weights.dtype is DType.INT8 and bias.dtype is DType.INT32
        assert len(weights.quantization.scales) == channels and set(weights.quantization.zero_points) == {0}
        assert weights.quantization.axis == (3 if op.opcode == "DEPTHWISE_CONV_2D" else 0)
        assert np.abs(weights.data).max() == 127  # symmetric, each channel's largest weight at full scale
        assert op.options["activation"] == ("NONE" if op is graph.operators[-3] else "RELU6")


def test_mobilenet_runs_in_tflm_with_varied_outputs_and_healthy_activations(mobilenet: bytes) -> None:
    graph, results = _run_a_few(mobilenet)
    outputs = [r.outputs[0].tobytes() for r in results]
    assert len(set(outputs)) > 1, "the classifier ignores its input"
    for tensor in graph.activation_tensors:
        if tensor.num_elements < 64:  # the classifier tail has too few values to judge
            continue
        values = results[-1].tensors[tensor.index].astype(np.int32)
        assert values.max() - values.min() >= 64, f"{tensor.describe()} uses only {values.min()}..{values.max()}"
        assert len(np.unique(values)) >= 48, f"{tensor.describe()} collapsed to a few levels"
        assert np.mean(values == 127) < 0.05, f"{tensor.describe()} saturates"


def test_mobilenet_is_seeded(mobilenet: bytes) -> None:
    assert mobilenet_v1() == mobilenet
    assert mobilenet_v1(seed=1) != mobilenet


def test_mobilenet_scales_with_its_arguments() -> None:
    graph = read_model(mobilenet_v1(alpha=0.5, input_size=64, channels=1, num_classes=5))
    assert graph.tensors[graph.inputs[0]].shape == (1, 64, 64, 1)
    assert graph.tensors[graph.outputs[0]].shape == (1, 5)
    assert graph.tensors[graph.operators[-5].outputs[0]].shape == (1, 2, 2, 512)


@pytest.mark.parametrize("name", sorted(SYNTHETIC_MODELS))
def test_zoo_model_runs_in_tflm_and_depends_on_its_input(name: str) -> None:
    graph, results = _run_a_few(SYNTHETIC_MODELS[name]())
    assert graph.name
    outputs = [r.outputs[0] for r in results]
    assert all(o.shape == graph.tensors[graph.outputs[0]].shape for o in outputs)
    assert len({o.tobytes() for o in outputs}) > 1


def test_every_op_touches_all_supported_operators() -> None:
    graph = read_model(SYNTHETIC_MODELS["every_op"]())
    # PADV2 is an extra beyond the 17 operators every_op is made to cover.
    # data movement (issue 15): covered by modelgen/data_movement.py
    assert {op.opcode for op in graph.operators} == set(OPTION_WRITERS) - {"PADV2"} - set(MOVEMENT_OPTION_WRITERS)
    assert graph.tensors[graph.inputs[0]].dtype is DType.FLOAT32
    assert graph.tensors[graph.outputs[0]].dtype is DType.FLOAT32


def test_calibration_keeps_zero_exact() -> None:
    scale, zero_point = fit_int8(np.array([0.5, 3.0]))
    assert zero_point == -128 and scale == pytest.approx(3.0 / 255, rel=1e-6)
    scale, zero_point = fit_int8(np.array([-1.0, 1.0]))
    assert -1 <= zero_point <= 0


def test_concatenation_needs_one_quantization() -> None:
    graph = CalibratedBuilder("concat")
    a = graph.input("a", np.linspace(-1, 1, 8).reshape(2, 4))
    b = graph.input("b", np.linspace(0, 3, 8).reshape(2, 4))
    with pytest.raises(ValueError, match="share"):
        graph.concatenate([a, b], axis=1)
