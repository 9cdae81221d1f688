"""CAST between int8, int16 and int32 (the integer pairs TFLite Micro's CAST converts): a C static_cast per element,
quantization ignored as TFLM ignores it. Widening keeps the value; narrowing keeps the low bits."""

from __future__ import annotations

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.overlap import OutputOverlap
from firmware_gen.ops.support.operands import operand, require_arity, require_same_elements, unsupported

_SHORT = {DType.INT8: "s8", DType.INT16: "s16", DType.INT32: "s32"}


class CastKernel:
    opcode = "CAST"
    is_alias = False

    def function(self, graph: Graph, op: Operator) -> str:
        require_arity(graph, op, {1})
        source, result = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        if source.dtype not in _SHORT or result.dtype not in _SHORT or source.dtype is result.dtype:
            raise unsupported(graph, op, f"casting {source.describe()} to {result.describe()} ({source.dtype} -> "
                                         f"{result.dtype}) is not supported; supported: any two different of "
                                         f"{', '.join(str(d) for d in _SHORT)}")
        require_same_elements(graph, op, source, result)
        return f"fg_cast_{_SHORT[source.dtype]}_{_SHORT[result.dtype]}"

    def check(self, graph: Graph, op: Operator) -> None:
        self.function(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        return KernelCall(self.function(graph, op), "fg_cast_params",
                          {"size": operand(graph, op, 0).num_elements}, inputs=[op.inputs[0]], outputs=[op.outputs[0]])

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        """A narrowing (or same-width) cast walks forward: with the output starting d bytes after the input,
        writing element i must leave element i + 1 unread-over, d <= (i + 1) * (in_size - out_size) for every i,
        so d <= in_size - out_size: N = output bytes + in_size - out_size. A widening cast allows no overlap."""
        source, result = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        if source.is_constant or result.dtype.itemsize > source.dtype.itemsize:
            return []
        slack = source.dtype.itemsize - result.dtype.itemsize
        return [OutputOverlap(op.inputs[0], op.outputs[0], result.nbytes + slack)]


KERNELS = [CastKernel()]
