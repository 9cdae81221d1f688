"""Checks shared by the quantized operator modules: the error names the operator and the tensor at fault."""

from __future__ import annotations

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.support.fixedpoint import INT_RANGES, activation_range
from firmware_gen.ops.support.operands import unsupported

__all__ = ["activation_per_tensor", "fused_activation_range", "int8_per_tensor", "same_activation_dtype",
           "unsupported"]


def int8_per_tensor(graph: Graph, op: Operator, index: int, role: str) -> Tensor:
    """The tensor, after checking it is int8 with one scale and a zero point in the int8 range."""
    return _per_tensor(graph, op, index, role, (DType.INT8,))


def activation_per_tensor(graph: Graph, op: Operator, index: int, role: str) -> Tensor:
    """An activation of an operator that has a 16x8 form: int8 as int8_per_tensor, or int16 with one scale and
    zero point 0 (TFLite's symmetric int16 quantization)."""
    return _per_tensor(graph, op, index, role, (DType.INT8, DType.INT16))


def _per_tensor(graph: Graph, op: Operator, index: int, role: str, dtypes: tuple[DType, ...]) -> Tensor:
    if index < 0:
        raise unsupported(graph, op, f"{role} is missing")
    tensor = graph.tensors[index]
    if tensor.dtype not in dtypes:
        names = " or ".join(str(d) for d in dtypes)
        raise unsupported(graph, op, f"{role} {tensor.describe()} is {tensor.dtype}; only {names} is supported")
    q = tensor.quantization
    if q is None or q.per_channel:
        kind = "no quantization" if q is None else "per-channel quantization"
        raise unsupported(graph, op, f"{role} {tensor.describe()} has {kind}; per-tensor {tensor.dtype} is required")
    if tensor.dtype is DType.INT16 and q.zero_point != 0:
        raise unsupported(graph, op, f"{role} {tensor.describe()} has zero point {q.zero_point}; int16 activations "
                                     f"must have zero point 0")
    lo, hi = INT_RANGES[str(tensor.dtype)]
    if not lo <= q.zero_point <= hi or not q.scale > 0.0:
        raise unsupported(graph, op, f"{role} {tensor.describe()} has scale {q.scale} and zero point "
                                     f"{q.zero_point}; a positive scale and an {tensor.dtype} zero point are required")
    return tensor


def same_activation_dtype(graph: Graph, op: Operator, first: Tensor, *others: Tensor) -> DType:
    """The common dtype of an operator's activations (int8 or 16x8: no mixing)."""
    for other in others:
        if other.dtype is not first.dtype:
            raise unsupported(graph, op, f"{other.describe()} is {other.dtype} but {first.describe()} is "
                                         f"{first.dtype}; the activations must share one type")
    return first.dtype


def fused_activation_range(graph: Graph, op: Operator, output: Tensor) -> tuple[int, int]:
    """Clamp bounds of the operator's fused activation on its int8 or int16 output."""
    activation = op.options.get("activation", "NONE")
    try:
        return activation_range(activation, output.quantization.scale, output.quantization.zero_point,
                                str(output.dtype))
    except UnsupportedModelError as error:
        raise unsupported(graph, op, str(error)) from None
