"""Single-operator models checked end to end against TFLM.

A one-operator .tflite is written with ModelBuilder and handed to validate_model: firmware-gen generates and
builds it for the host, runs it and compares every produced tensor with TFLM's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from firmware_gen.check.host_validation import validate_model
from firmware_gen.modelgen.writer import ModelBuilder


def single_op_model(opcode: str, shape: Sequence[int], input_scale: float, input_zero_point: int,
                    output_scale: float = 1.0 / 256.0, output_zero_point: int = -128,
                    options: dict | None = None) -> bytes:
    builder = ModelBuilder(opcode.lower())
    x = builder.input("x", shape, "int8", scale=input_scale, zero_point=input_zero_point)
    y = builder.tensor("y", shape, "int8", scale=output_scale, zero_point=output_zero_point)
    builder.operator(opcode, inputs=[x], outputs=[y], options=options or {})
    builder.output(y)
    return builder.build()


def assert_bit_exact(model: bytes, x: np.ndarray, sanitize: bool = False) -> None:
    report = validate_model(model, inputs=[x], sanitize=sanitize)
    assert report.tensors_compared == 1 and report.outputs_compared == 1
    assert report.bit_exact, report.mismatches
