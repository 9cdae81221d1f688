"""The seeded 16x8 DS-CNN of modelgen: every tensor bit-exact with TFLM on the host, and what it is made of."""

from __future__ import annotations

from firmware_gen.check.host_validation import validate_model
from firmware_gen.frontend.ir import DType
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.ds_cnn_16x8 import ds_cnn_16x8


def test_ds_cnn_16x8_is_bit_exact_on_the_host():
    report = validate_model(ds_cnn_16x8(seed=1), seed=3, sanitize=True)
    assert report.bit_exact, report.mismatches
    assert report.tensors_compared >= 8


def test_ds_cnn_16x8_is_a_16x8_model():
    graph = read_model(ds_cnn_16x8())
    assert {op.opcode for op in graph.operators} >= {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D",
                                                    "FULLY_CONNECTED", "SOFTMAX"}
    activations = {t.dtype for t in graph.activation_tensors}
    assert activations == {DType.INT16}
    biases = [graph.tensors[op.inputs[2]] for op in graph.operators if len(op.inputs) > 2 and op.inputs[2] >= 0]
    assert biases and all(b.dtype is DType.INT64 for b in biases)
    weighted = [op for op in graph.operators if op.opcode in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")]
    assert all(graph.tensors[op.inputs[1]].dtype is DType.INT8 for op in weighted)
