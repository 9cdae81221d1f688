"""What SOFTMAX and LOGISTIC share: one int8 input, one int8 output of the same shape, per-tensor
quantization, an output fixed by TFLite at zero point -128 (scale 1/256), and fixed-point input scaling
whose validity range TFLite expresses as an input radius."""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor

OUTPUT_ZERO_POINT = -128


def float32(value: float) -> float:
    """A scale or option as the C++ kernels see it: a float32 widened to double."""
    return float(np.float32(value))


def _require_int8_per_tensor(op: Operator, tensor: Tensor, role: str) -> None:
    if tensor.dtype is not DType.INT8:
        raise UnsupportedModelError(f"{op.describe()}: {role} {tensor.describe()} is {tensor.dtype}; "
                                    f"only int8 is supported")
    if tensor.quantization is None or not tensor.quantization.scales:
        raise UnsupportedModelError(f"{op.describe()}: {role} {tensor.describe()} has no quantization parameters")
    if tensor.quantization.per_channel:
        raise UnsupportedModelError(f"{op.describe()}: {role} {tensor.describe()} is quantized per channel; "
                                    f"only per-tensor quantization is supported")


def int8_input_output(graph: Graph, op: Operator) -> tuple[Tensor, Tensor]:
    """The checked (input, output) pair; the output's zero point must be -128, as TFLite requires."""
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0] < 0:
        raise UnsupportedModelError(f"{op.describe()}: expected one input and one output, got "
                                    f"{len(op.inputs)} and {len(op.outputs)}")
    source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    _require_int8_per_tensor(op, source, "input")
    _require_int8_per_tensor(op, result, "output")
    if tuple(source.shape) != tuple(result.shape):
        raise UnsupportedModelError(f"{op.describe()}: output {result.describe()} does not have the shape of "
                                    f"input {source.describe()}")
    if result.quantization.zero_point != OUTPUT_ZERO_POINT:
        raise UnsupportedModelError(f"{op.describe()}: output {result.describe()} has zero point "
                                    f"{result.quantization.zero_point}; TFLite requires {OUTPUT_ZERO_POINT}")
    return source, result


def input_radius(integer_bits: int, left_shift: int, total_signed_bits: int = 31) -> int:
    """TFLite's CalculateInputRadius: the largest |input| whose rescaled value still fits the fixed-point
    format with `integer_bits` integer bits."""
    limit = ((1 << integer_bits) - 1) * (1 << (total_signed_bits - integer_bits)) / (1 << left_shift)
    return int(math.floor(limit))
