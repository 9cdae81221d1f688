"""Checks and accessors shared by operator modules: dtypes, per-tensor quantization, constant operands.

Every failure is an UnsupportedModelError naming the model, the operator and the tensor at fault.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import DType, Graph, Operator, Quantization, Tensor


def unsupported(graph: Graph, op: Operator, message: str) -> UnsupportedModelError:
    return UnsupportedModelError(f"{graph.name}: {op.describe()}: {message}")


def require_arity(graph: Graph, op: Operator, inputs: Collection[int], outputs: int = 1) -> None:
    """The operator has one of the allowed input counts and exactly `outputs` outputs."""
    if len(op.inputs) not in inputs or len(op.outputs) != outputs:
        raise unsupported(graph, op, f"expects {'/'.join(map(str, sorted(inputs)))} inputs and {outputs} output(s), "
                                     f"has {len(op.inputs)} and {len(op.outputs)}")


def operand(graph: Graph, op: Operator, position: int) -> Tensor:
    index = op.inputs[position]
    if index < 0:
        raise unsupported(graph, op, f"input {position} is missing")
    return graph.tensors[index]


def require_dtype(graph: Graph, op: Operator, tensor: Tensor, allowed: Collection[DType]) -> None:
    if tensor.dtype not in allowed:
        names = ", ".join(sorted(str(d) for d in allowed))
        raise unsupported(graph, op, f"{tensor.describe()} has type {tensor.dtype}; supported: {names}")


# Element types the data-movement kernels move (int16: 16x8 models), by their byte size.
MOVED_DTYPES = (DType.INT8, DType.INT16)


def moved_element_bytes(graph: Graph, op: Operator, *tensors: Tensor) -> int:
    """The element size of a data-movement operator's tensors, after checking they are int8 or int16, one type.
    Its _s16 entry point runs the _s8 kernel on bytes, with every size and stride counted in bytes."""
    for tensor in tensors:
        require_dtype(graph, op, tensor, MOVED_DTYPES)
        if tensor.dtype is not tensors[0].dtype:
            raise unsupported(graph, op, f"{tensor.describe()} is {tensor.dtype} but {tensors[0].describe()} is "
                                         f"{tensors[0].dtype}")
    return tensors[0].dtype.itemsize


def moved_function(name: str, element_bytes: int) -> str:
    """fg_transpose_s8 -> fg_transpose_s16 for two-byte elements."""
    return name if element_bytes == 1 else name.replace("_s8", "_s16")


def per_tensor_quantization(graph: Graph, op: Operator, tensor: Tensor) -> Quantization:
    q = tensor.quantization
    if q is None or not q.scales:
        raise unsupported(graph, op, f"{tensor.describe()} is not quantized")
    if q.per_channel:
        raise unsupported(graph, op, f"{tensor.describe()} is quantized per channel; this operator needs "
                                     "per-tensor quantization")
    if not q.scale > 0.0:
        raise unsupported(graph, op, f"{tensor.describe()} has a non-positive scale {q.scale}")
    return q


def constant_ints(graph: Graph, op: Operator, position: int, what: str) -> np.ndarray:
    """The contents of a constant integer operand (axes, paddings, permutation...) as int64."""
    tensor = operand(graph, op, position)
    if not tensor.is_constant:
        raise unsupported(graph, op, f"the {what} ({tensor.describe()}) must be a constant tensor")
    require_dtype(graph, op, tensor, (DType.INT32, DType.INT64))
    return np.asarray(tensor.data, dtype=np.int64)


def resolve_axis(graph: Graph, op: Operator, axis: int, rank: int) -> int:
    """A possibly negative axis as an index into a shape of `rank` dimensions."""
    if not -rank <= axis < max(rank, 1):
        raise unsupported(graph, op, f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def require_same_elements(graph: Graph, op: Operator, a: Tensor, b: Tensor) -> None:
    if a.num_elements != b.num_elements:
        raise unsupported(graph, op, f"{a.describe()} and {b.describe()} hold different element counts "
                                     f"({a.num_elements} and {b.num_elements})")
