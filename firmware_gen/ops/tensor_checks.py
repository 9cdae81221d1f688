"""Checks shared by the int8 operator modules: the error names the operator and the tensor at fault."""

from __future__ import annotations

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.fixedpoint import INT_RANGES, activation_range
from firmware_gen.ops.operands import unsupported

__all__ = ["fused_activation_range", "int8_per_tensor", "unsupported"]


def int8_per_tensor(graph: Graph, op: Operator, index: int, role: str) -> Tensor:
    """The tensor, after checking it is int8 with one scale and a zero point in the int8 range."""
    if index < 0:
        raise unsupported(graph, op, f"{role} is missing")
    tensor = graph.tensors[index]
    if tensor.dtype is not DType.INT8:
        raise unsupported(graph, op, f"{role} {tensor.describe()} is {tensor.dtype}; only int8 is supported")
    q = tensor.quantization
    if q is None or q.per_channel:
        kind = "no quantization" if q is None else "per-channel quantization"
        raise unsupported(graph, op, f"{role} {tensor.describe()} has {kind}; per-tensor int8 is required")
    lo, hi = INT_RANGES["int8"]
    if not lo <= q.zero_point <= hi or not q.scale > 0.0:
        raise unsupported(graph, op, f"{role} {tensor.describe()} has scale {q.scale} and zero point "
                                     f"{q.zero_point}; a positive scale and an int8 zero point are required")
    return tensor


def fused_activation_range(graph: Graph, op: Operator, output: Tensor) -> tuple[int, int]:
    """Clamp bounds of the operator's fused activation on its int8 output."""
    activation = op.options.get("activation", "NONE")
    try:
        return activation_range(activation, output.quantization.scale, output.quantization.zero_point)
    except UnsupportedModelError as error:
        raise unsupported(graph, op, str(error)) from None
