"""Constant folding, the graph pass before lowering: an operator whose result is known at generation time becomes
a constant tensor and never runs on the device.

What folds, and why only that:
- SHAPE and ZEROS_LIKE, whatever their input: their results depend on static shapes only.
- Data movement of constants: RESHAPE, SQUEEZE, EXPAND_DIMS (the data reshaped), and TRANSPOSE, CONCATENATION,
  PACK, SPLIT, SPLIT_V, UNPACK, SLICE, STRIDED_SLICE, REVERSE_V2, BROADCAST_TO, GATHER, GATHER_ND, MIRROR_PAD and
  FILL, whose lowered kernel call is computed with numpy as the kernel computes it (ops/call_emulation.py). Values
  are moved, not changed, so the result is exact by construction, for int8 and for the int32 shape arithmetic
  converters emit alike.
- Arithmetic (ADD, MUL, convolutions, requantizations...) does not fold: an int8 result would need a numpy twin
  of each kernel's fixed-point rounding, and a twin that drifts by one LSB would break bit-exactness unseen.
- An operator that writes a graph output does not fold: the output must be written into the caller's buffer.

Folded operators leave the graph; the others keep their index (the file's numbering, which messages and
model.c quote), so `Graph.operators[i].index` may skip numbers after this pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import DType, Graph, Operator, Quantization, Tensor
from firmware_gen.ops.call_emulation import EMULATIONS

SHAPE_ONLY = {"SHAPE", "ZEROS_LIKE"}
VIEWS = {"RESHAPE", "SQUEEZE", "EXPAND_DIMS"}
MOVEMENT = {"TRANSPOSE", "CONCATENATION", "PACK", "SPLIT", "SPLIT_V", "UNPACK", "SLICE", "STRIDED_SLICE",
            "REVERSE_V2", "BROADCAST_TO", "GATHER", "GATHER_ND", "MIRROR_PAD", "FILL"}
# Inputs that carry the values moved (the others are constant parameters: axes, indices, begin...).
_DATA_INPUTS = {"SPLIT": (1,), "FILL": (1,)}
_UNIT = Quantization(scales=(1.0,), zero_points=(0,))


def _as_int8(tensor: Tensor) -> Tensor:
    """The tensor as the int8 kernels see it, to check and lower an operator that moves other element types."""
    return replace(tensor, dtype=DType.INT8, quantization=tensor.quantization or _UNIT)


def _moved(graph: Graph, op: Operator, kernels: Mapping) -> list[np.ndarray] | None:
    kernel = kernels.get(op.opcode)
    if kernel is None:
        return None
    data_positions = range(len(op.inputs)) if op.opcode in {"PACK", "CONCATENATION"} else _DATA_INPUTS.get(
        op.opcode, (0,))
    tensors = list(graph.tensors)
    for index in [op.inputs[p] for p in data_positions if p < len(op.inputs)] + list(op.outputs):
        if index >= 0:
            tensors[index] = _as_int8(tensors[index])
    typed = replace(graph, tensors=tensors)
    try:
        kernel.check(typed, op)
        call = kernel.lower(typed, op)
    except UnsupportedModelError:
        return None  # left for the operator check to refuse, with its own message
    values = EMULATIONS[call.function](call, [graph.tensors[i].data if i >= 0 else None for i in call.inputs])
    return values


def _folded(graph: Graph, op: Operator, kernels: Mapping) -> list[np.ndarray] | None:
    """The values of op's outputs when they are known at generation time, else None."""
    if not op.outputs or set(op.outputs) & set(graph.outputs):
        return None
    if op.opcode in SHAPE_ONLY | VIEWS and (len(op.outputs) != 1 or not op.inputs or op.inputs[0] < 0
                                             or (op.opcode in SHAPE_ONLY and len(op.inputs) != 1)):
        return None  # malformed: left for the operator check to refuse
    outputs = [graph.tensors[i] for i in op.outputs]
    if op.opcode == "SHAPE":
        source = graph.tensors[op.inputs[0]]
        return [np.array(source.shape, dtype=np.int64)] if outputs[0].dtype in (DType.INT32, DType.INT64) else None
    if op.opcode == "ZEROS_LIKE":
        return [np.zeros(outputs[0].shape)]
    if any(i >= 0 and not graph.tensors[i].is_constant for i in op.inputs):
        return None
    if op.opcode in VIEWS:
        source = graph.tensors[op.inputs[0]]
        same = source.dtype is outputs[0].dtype and source.num_elements == outputs[0].num_elements
        return [source.data] if same else None
    return _moved(graph, op, kernels) if op.opcode in MOVEMENT else None


def fold_constants(graph: Graph, kernels: Mapping) -> Graph:
    """The graph with every foldable operator (see the module's docstring) replaced by constant outputs; the graph
    itself when nothing folds. `kernels`: the operator registry (opcode -> OpKernel)."""
    work = replace(graph, tensors=list(graph.tensors))
    kept = []
    for op in graph.operators:
        values = _folded(work, op, kernels)
        if values is None:
            kept.append(op)
            continue
        for index, value in zip(op.outputs, values, strict=True):
            tensor = work.tensors[index]
            data = np.asarray(value).astype(tensor.dtype.numpy_type).reshape(tensor.shape)
            work.tensors[index] = replace(tensor, data=data)
    if len(kept) == len(graph.operators):
        return graph
    return replace(work, operators=kept)
