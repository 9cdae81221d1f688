"""MobileNetV2 from modelgen (issue 24's networks): keras' topology and widths, calibrated per-channel int8,
healthy in TFLM, bit-exact with TFLM on the host, and the full-size variants pass the compiler's checks."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from firmware_gen.check.host_validation import validate_model
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.oracle import run_tflm
from firmware_gen.driver.compiler import compile_graph
from firmware_gen.frontend.ir import DType, Graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.mobilenet_v2 import correct_pad, last_channels, make_divisible, mobilenet_v2
from firmware_gen.modelgen.zoo import small_mobilenet_v2

WEIGHTED = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
# keras.applications.MobileNetV2(alpha=1.0) has 3,538,984 parameters, 68,224 of them in its 52 batch norms (four
# per channel); folded, each channel keeps one bias: 3,538,984 - 68,224 + 17,056.
KERAS_FOLDED_PARAMETERS = 3_487_816


@pytest.fixture(scope="module")
def full_035_96() -> bytes:
    return mobilenet_v2(alpha=0.35, input_size=96)


def _projections(graph: Graph) -> list[int]:
    return [graph.tensors[op.outputs[0]].shape[3] for op in graph.operators
            if graph.tensors[op.outputs[0]].name.endswith("/project")]


def test_widths_are_rounded_as_keras_rounds_them() -> None:
    assert [make_divisible(32 * a) for a in (0.35, 0.5, 0.75, 1.0, 1.4)] == [16, 16, 24, 32, 48]
    assert [last_channels(a) for a in (0.35, 1.0, 1.3, 1.4)] == [1280, 1280, 1664, 1792]
    assert correct_pad((48, 48)) == [(0, 0), (0, 1), (0, 1), (0, 0)]
    assert correct_pad((7, 7)) == [(0, 0), (1, 1), (1, 1), (0, 0)]
    graph = read_model(mobilenet_v2(alpha=0.35, input_size=32, num_classes=5))
    assert _projections(graph) == [8, 8, 8, 16, 16, 16, 24, 24, 24, 24, 32, 32, 32, 56, 56, 56, 112]


def test_alpha_1_has_keras_parameter_count_and_topology() -> None:
    graph = read_model(mobilenet_v2(alpha=1.0, input_size=32))  # the parameters do not depend on the input size
    weighted = [op for op in graph.operators if op.opcode in WEIGHTED]
    assert sum(graph.tensors[i].num_elements for op in weighted for i in op.inputs[1:]) == KERAS_FOLDED_PARAMETERS
    assert _projections(graph) == [16, 24, 24, 32, 32, 32, 64, 64, 64, 64, 96, 96, 96, 160, 160, 160, 320]
    assert Counter(op.opcode for op in graph.operators) == {
        "CONV_2D": 35, "DEPTHWISE_CONV_2D": 17, "ADD": 10, "PAD": 4, "MEAN": 1, "FULLY_CONNECTED": 1, "SOFTMAX": 1}
    assert graph.tensors[graph.outputs[0]].shape == (1, 1000)


def test_quantization_is_per_channel_as_tflite_writes_it(full_035_96: bytes) -> None:
    graph = read_model(full_035_96)
    for op in graph.operators:
        if op.opcode not in WEIGHTED:
            continue
        weights, bias = graph.tensors[op.inputs[1]], graph.tensors[op.inputs[2]]
        assert weights.dtype is DType.INT8 and bias.dtype is DType.INT32
        assert set(weights.quantization.zero_points) == {0}
        assert np.abs(weights.data).max() == 127
        if op.opcode == "FULLY_CONNECTED":  # per-tensor
            assert len(weights.quantization.scales) == 1
            continue
        channels = graph.tensors[op.outputs[0]].shape[3]
        assert len(weights.quantization.scales) == channels
        assert weights.quantization.axis == (3 if op.opcode == "DEPTHWISE_CONV_2D" else 0)
        linear = graph.tensors[op.outputs[0]].name.endswith("/project")
        assert op.options["activation"] == ("NONE" if linear else "RELU6")


def test_activations_are_neither_saturated_nor_collapsed_in_tflm(full_035_96: bytes) -> None:
    graph = read_model(full_035_96)
    results = [run_tflm(full_035_96, random_inputs(graph, seed=seed), len(graph.tensors)) for seed in range(2)]
    assert results[0].outputs[0].tobytes() != results[1].outputs[0].tobytes()
    for tensor in graph.activation_tensors:
        if tensor.index in graph.outputs:  # the softmax over 1000 classes is mostly -128, as a real one is
            continue
        values = results[-1].tensors[tensor.index].astype(np.int32)
        assert values.max() - values.min() >= 128, f"{tensor.describe()} uses only {values.min()}..{values.max()}"
        assert len(np.unique(values)) >= 128, f"{tensor.describe()} collapsed to a few levels"
        assert np.mean(values == 127) < 0.02, f"{tensor.describe()} saturates"


def test_small_mobilenet_v2_is_bit_exact_on_the_host() -> None:
    data = small_mobilenet_v2()
    graph = read_model(data)
    assert {"PAD", "ADD"} <= {op.opcode for op in graph.operators}
    report = validate_model(data, seed=2, sanitize=True)
    assert report.bit_exact, report.format()
    # Every tensor but the padded ones: each PAD is folded into the depthwise reading it (ops/pad_folding.py).
    pads = [op.outputs[0] for op in graph.operators if op.opcode == "PAD"]
    assert report.folded_tensors == pads
    assert report.tensors_compared == len(graph.operators) - len(pads)


def test_full_035_96_is_bit_exact_on_the_host(full_035_96: bytes) -> None:
    report = validate_model(full_035_96, seed=3)
    assert report.bit_exact, report.format()
    assert report.tensors_compared + len(report.folded_tensors) == len(read_model(full_035_96).operators)


@pytest.mark.parametrize(("alpha", "size"), [(0.35, 160), (1.0, 160)])
def test_full_size_variants_compile(alpha: float, size: int) -> None:
    """compile_graph checks every plan it makes (no two live buffers overlap, each fits its pool)."""
    graph = read_model(mobilenet_v2(alpha=alpha, input_size=size))
    compiled = compile_graph(graph)
    tensors = compiled.graph.activation_tensors  # the padded tensors gone with their PADs (ops/pad_folding.py)
    assert max(t.nbytes for t in tensors) <= compiled.plan.pool_bytes <= sum(t.nbytes for t in tensors)


def test_it_is_seeded_and_checks_its_depth() -> None:
    assert small_mobilenet_v2() == small_mobilenet_v2()
    assert mobilenet_v2(input_size=32, blocks=2, seed=0) != mobilenet_v2(input_size=32, blocks=2, seed=1)
    with pytest.raises(ValueError, match="blocks must be 1..17"):
        mobilenet_v2(blocks=18)


def test_without_explicit_pad_the_stride_2_blocks_compute_the_same() -> None:
    """keras' ZeroPadding2D + VALID and TF-slim's SAME pad an even size alike: TFLM gives the same output."""
    padded = mobilenet_v2(input_size=32, num_classes=10, blocks=4, head_channels=32)
    same = mobilenet_v2(input_size=32, num_classes=10, blocks=4, head_channels=32, explicit_pad=False)
    graph, graph_same = read_model(padded), read_model(same)
    assert "PAD" not in {op.opcode for op in graph_same.operators}
    assert len(graph.operators) == len(graph_same.operators) + 2
    inputs = random_inputs(graph, seed=5)
    assert np.array_equal(run_tflm(padded, inputs, len(graph.tensors)).outputs[0],
                          run_tflm(same, inputs, len(graph_same.tensors)).outputs[0])
