"""REVERSE_V2 (negative strides) and BROADCAST_TO (zero strides) of int8 or int16 tensors: strided gathers
(fg_transpose_s8, or its _s16 form on bytes), up to 5 dimensions as in TFLM."""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.data_movement.transpose import strided_gather
from firmware_gen.ops.support.layout import row_major_strides
from firmware_gen.ops.support.operands import (
    constant_ints,
    moved_element_bytes,
    operand,
    require_arity,
    resolve_axis,
    unsupported,
)

MAX_RANK = 5


def _check_moved_pair(graph: Graph, op: Operator) -> None:
    require_arity(graph, op, {2})
    source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
    moved_element_bytes(graph, op, source, output)
    if len(output.shape) > MAX_RANK:
        raise unsupported(graph, op, f"{output.describe()} has more than {MAX_RANK} dimensions")


class ReverseKernel:
    opcode = "REVERSE_V2"
    is_alias = False

    def _axes(self, graph: Graph, op: Operator) -> set[int]:
        rank = len(operand(graph, op, 0).shape)
        axes = [resolve_axis(graph, op, int(a), rank) for a in constant_ints(graph, op, 1, "axis").ravel()]
        if len(set(axes)) != len(axes):
            raise unsupported(graph, op, f"axis {axes} names an axis twice")
        if axes and sorted(axes) != list(range(min(axes), max(axes) + 1)):
            raise unsupported(graph, op, f"axis {axes}: axes that are not contiguous (TFLM refuses them too)")
        return set(axes)

    def check(self, graph: Graph, op: Operator) -> None:
        _check_moved_pair(graph, op)
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        if output.shape != source.shape:
            raise unsupported(graph, op, f"{output.describe()} should have shape {list(source.shape)}")
        self._axes(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        shape = operand(graph, op, 0).shape
        strides = row_major_strides(shape)
        axes = self._axes(graph, op)
        walk = [(n, -s if d in axes else s) for d, (n, s) in enumerate(zip(shape, strides, strict=True))]
        offset = sum((n - 1) * s for d, (n, s) in enumerate(zip(shape, strides, strict=True)) if d in axes)
        return strided_gather(walk, offset, op.inputs[0], op.outputs[0], operand(graph, op, 0).dtype.itemsize)


class BroadcastToKernel:
    opcode = "BROADCAST_TO"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        _check_moved_pair(graph, op)
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        target = tuple(int(d) for d in constant_ints(graph, op, 1, "shape").ravel())
        if target != tuple(output.shape):
            raise unsupported(graph, op, f"shape {list(target)} differs from {output.describe()}")
        padded = (1,) * (len(target) - len(source.shape)) + tuple(source.shape)
        if len(padded) != len(target) or any(n not in (1, t) for n, t in zip(padded, target, strict=True)):
            raise unsupported(graph, op, f"{source.describe()} does not broadcast to shape {list(target)}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        padded = (1,) * (len(output.shape) - len(source.shape)) + tuple(source.shape)
        strides = row_major_strides(padded)
        walk = [(t, s if n == t else 0) for n, t, s in zip(padded, output.shape, strides, strict=True)]
        return strided_gather(walk, 0, op.inputs[0], op.outputs[0], source.dtype.itemsize)


KERNELS = [ReverseKernel(), BroadcastToKernel()]
