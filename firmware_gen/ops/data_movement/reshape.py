"""RESHAPE, SQUEEZE and EXPAND_DIMS: views. The output shares its input's storage; no code runs."""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.operands import operand, require_same_elements, unsupported


class ViewKernel:
    is_alias = True

    def __init__(self, opcode: str, inputs: set[int]) -> None:
        self.opcode = opcode
        self.inputs = inputs

    def check(self, graph: Graph, op: Operator) -> None:
        if len(op.inputs) not in self.inputs or len(op.outputs) != 1:
            raise unsupported(graph, op, f"has {len(op.inputs)} inputs and {len(op.outputs)} outputs")
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        if source.dtype is not output.dtype:
            raise unsupported(graph, op, f"{source.describe()} and {output.describe()} differ in type")
        if source.is_constant:
            raise unsupported(graph, op, f"a view of the constant {source.describe()} is not supported")
        require_same_elements(graph, op, source, output)

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        raise AssertionError(f"{op.describe()} is a view and has no kernel call")


KERNELS = [ViewKernel("RESHAPE", {1, 2}), ViewKernel("SQUEEZE", {1}), ViewKernel("EXPAND_DIMS", {2})]
