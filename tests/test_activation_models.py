"""The synthetic model of the issue-15 activations: every one of them inside, bit-exact with TFLM on the host."""

from __future__ import annotations

from firmware_gen.check.host_validation import validate_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.mobilenet_v3 import mobilenet_v3_block

ACTIVATIONS = {"RELU", "RELU6", "LEAKY_RELU", "PRELU", "HARD_SWISH", "TANH", "ELU", "LOG_SOFTMAX"}


def test_mobilenet_v3_block_holds_every_activation_and_is_bit_exact() -> None:
    data = mobilenet_v3_block(seed=1)
    assert ACTIVATIONS <= {op.opcode for op in read_model(data).operators}
    report = validate_model(data, seed=2, sanitize=True)
    assert report.bit_exact, report.mismatches[:3]
    assert report.tensors_compared == len(read_model(data).operators)
