"""ARG_MAX and ARG_MIN of int8 along one constant axis, int32 output, as TFLM's arg_min_max.cc (raw int8
comparison, the first index of the extreme wins)."""

from __future__ import annotations

import math

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.operands import (
    constant_ints,
    operand,
    require_arity,
    require_dtype,
    resolve_axis,
    unsupported,
)


class ArgMaxKernel:
    is_alias = False

    def __init__(self, opcode: str, flip: int) -> None:
        self.opcode = opcode
        self.flip = flip  # -1 for ARG_MIN (runtime_c/include/fg/arg_max.h)

    def _operands(self, graph: Graph, op: Operator) -> tuple[Tensor, int, Tensor]:
        require_arity(graph, op, {2})
        source, result = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        require_dtype(graph, op, source, (DType.INT8,))
        if result.dtype is not DType.INT32:
            raise unsupported(graph, op, f"output {result.describe()} is {result.dtype}; TFLM supports only int32 "
                                         "indices")
        axes = constant_ints(graph, op, 1, "axis").ravel()
        if axes.size != 1:
            raise unsupported(graph, op, f"axis holds {axes.size} values; exactly one is needed")
        axis = resolve_axis(graph, op, int(axes[0]), len(source.shape))
        expected = tuple(n for d, n in enumerate(source.shape) if d != axis)
        if tuple(result.shape) != expected:
            raise unsupported(graph, op, f"output {result.describe()} should have shape {list(expected)}")
        if source.shape[axis] == 0:
            raise unsupported(graph, op, f"{source.describe()} is empty along axis {axis}")
        return source, axis, result

    def check(self, graph: Graph, op: Operator) -> None:
        self._operands(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return operand(graph, op, 0).num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, axis, _ = self._operands(graph, op)
        params = {"outer": math.prod(source.shape[:axis]), "axis_size": source.shape[axis],
                  "inner": math.prod(source.shape[axis + 1:]), "flip": self.flip}
        return KernelCall("fg_arg_max_s8", "fg_arg_max_params", params, inputs=[op.inputs[0]], outputs=[op.outputs[0]])


KERNELS = [ArgMaxKernel("ARG_MAX", 0), ArgMaxKernel("ARG_MIN", -1)]
