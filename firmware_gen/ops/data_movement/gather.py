"""GATHER (along an axis, with batch dimensions) and GATHER_ND of int8 tensors by int32 indices, constant or
computed at run time. Constant indices are checked against the bounds here; the kernels write zeros for an
index out of bounds at run time (TFLM stops with an error there) rather than read outside the input."""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.layout import MAX_RANK, padded, row_major_strides
from firmware_gen.ops.support.operands import operand, require_arity, require_dtype, resolve_axis, unsupported


def _operands(graph: Graph, op: Operator) -> tuple[Tensor, Tensor, Tensor]:
    require_arity(graph, op, {2})
    source, indices, output = operand(graph, op, 0), operand(graph, op, 1), graph.tensors[op.outputs[0]]
    require_dtype(graph, op, source, (DType.INT8,))
    require_dtype(graph, op, indices, (DType.INT32,))
    require_dtype(graph, op, output, (DType.INT8,))
    return source, indices, output


def _require_shape(graph: Graph, op: Operator, output: Tensor, expected: tuple[int, ...]) -> None:
    if tuple(output.shape) != tuple(expected):
        raise unsupported(graph, op, f"{output.describe()} should have shape {list(expected)}")


class GatherKernel:
    opcode = "GATHER"
    is_alias = False

    def _geometry(self, graph: Graph, op: Operator) -> tuple[int, int]:
        """(axis, batch_dims), both resolved to non-negative values."""
        source, indices, _ = _operands(graph, op)
        axis = resolve_axis(graph, op, int(op.options.get("axis", 0)), len(source.shape))
        batch_dims = int(op.options.get("batch_dims", 0))
        batch_dims += len(indices.shape) if batch_dims < 0 else 0
        if not 0 <= batch_dims <= min(axis, len(indices.shape)):
            raise unsupported(graph, op, f"option batch_dims = {op.options.get('batch_dims')} does not fit axis "
                                         f"{axis} and {indices.describe()}")
        if source.shape[:batch_dims] != indices.shape[:batch_dims]:
            raise unsupported(graph, op, f"option batch_dims = {batch_dims}: {source.describe()} and "
                                         f"{indices.describe()} differ in their batch dimensions")
        return axis, batch_dims

    def check(self, graph: Graph, op: Operator) -> None:
        source, indices, output = _operands(graph, op)
        axis, batch_dims = self._geometry(graph, op)
        _require_shape(graph, op, output, (*source.shape[:axis], *indices.shape[batch_dims:],
                                           *source.shape[axis + 1:]))
        if indices.is_constant and ((indices.data < 0) | (indices.data >= source.shape[axis])).any():
            raise unsupported(graph, op, f"{indices.describe()} holds an index outside axis {axis} "
                                         f"(size {source.shape[axis]})")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, indices, _ = _operands(graph, op)
        axis, batch_dims = self._geometry(graph, op)
        return KernelCall(function="fg_gather_s8", params_type="fg_gather_params",
                          params={"batches": math.prod(source.shape[:batch_dims]),
                                  "outer": math.prod(source.shape[batch_dims:axis]),
                                  "axis_size": source.shape[axis], "inner": math.prod(source.shape[axis + 1:]),
                                  "num_indices": math.prod(indices.shape[batch_dims:])},
                          inputs=[op.inputs[0], op.inputs[1]], outputs=[op.outputs[0]])


def _gather_nd_offsets(source: Tensor, indices: Tensor, op: Operator) -> KernelCall:
    """Constant indices: every slice's input offset computed here (-1 for a row outside the bounds, zeros as the
    run-time kernel writes), so the kernel only copies."""
    depth = indices.shape[-1]
    rows = np.asarray(indices.data, dtype=np.int64).reshape(-1, depth)
    inside = ((rows >= 0) & (rows < np.asarray(source.shape[:depth]))).all(axis=1)
    offsets = np.where(inside, rows @ np.asarray(row_major_strides(source.shape)[:depth], dtype=np.int64), -1)
    return KernelCall(function="fg_gather_nd_offsets_s8", params_type="fg_gather_nd_offsets_params",
                      params={"num_slices": len(rows), "slice_size": math.prod(source.shape[depth:]),
                              "offsets": TableRef("offsets")},
                      inputs=[op.inputs[0]], outputs=[op.outputs[0]],
                      tables=[ConstTable("offsets", "int32_t", offsets.astype(np.int32))],
                      variant="constant indices, slice offsets computed at generation time")


class GatherNdKernel:
    opcode = "GATHER_ND"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        source, indices, output = _operands(graph, op)
        depth = indices.shape[-1] if indices.shape else 0
        if not indices.shape or not 1 <= depth <= min(len(source.shape), MAX_RANK):
            raise unsupported(graph, op, f"{indices.describe()}: index depth {depth} does not fit "
                                         f"{source.describe()}")
        _require_shape(graph, op, output, (*indices.shape[:-1], *source.shape[depth:]))
        if indices.is_constant and ((indices.data < 0) | (indices.data >= np.asarray(source.shape[:depth]))).any():
            raise unsupported(graph, op, f"{indices.describe()} holds an index outside {source.describe()}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, indices, _ = _operands(graph, op)
        depth = indices.shape[-1]
        strides = row_major_strides(source.shape)
        if indices.is_constant:
            return _gather_nd_offsets(source, indices, op)
        return KernelCall(function="fg_gather_nd_s8", params_type="fg_gather_nd_params",
                          params={"num_slices": math.prod(indices.shape[:-1]), "index_depth": depth,
                                  "slice_size": math.prod(source.shape[depth:]),
                                  "dims": padded(source.shape[:depth]), "strides": padded(strides[:depth])},
                          inputs=[op.inputs[0], op.inputs[1]], outputs=[op.outputs[0]])


KERNELS = [GatherKernel(), GatherNdKernel()]
