"""PACK of int8 or int16 tensors along a new axis: the CONCATENATION kernel, each input contributing one slab per
outer row. Values are copied unchanged (TFLM neither requantizes nor checks the scales)."""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.operands import moved_element_bytes, moved_function, operand, resolve_axis, unsupported


class PackKernel:
    opcode = "PACK"
    is_alias = False

    def _axis(self, graph: Graph, op: Operator) -> int:
        return resolve_axis(graph, op, int(op.options.get("axis", 0)), len(graph.tensors[op.outputs[0]].shape))

    def check(self, graph: Graph, op: Operator) -> None:
        if not op.inputs or len(op.outputs) != 1:
            raise unsupported(graph, op, "needs at least one input and exactly one output")
        output = graph.tensors[op.outputs[0]]
        moved_element_bytes(graph, op, output, *(operand(graph, op, p) for p in range(len(op.inputs))))
        axis = self._axis(graph, op)
        first = operand(graph, op, 0).shape
        expected = (*first[:axis], len(op.inputs), *first[axis:])
        if tuple(output.shape) != expected:
            raise unsupported(graph, op, f"{output.describe()} should have shape {list(expected)}")
        for position in range(len(op.inputs)):
            source = operand(graph, op, position)
            if source.shape != first:
                raise unsupported(graph, op, f"{source.describe()} differs in shape from the first input")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        output = graph.tensors[op.outputs[0]]
        axis = self._axis(graph, op)
        element_bytes = output.dtype.itemsize  # fg_concatenation_s16 copies slabs of bytes
        slab = math.prod(output.shape[axis + 1:]) * element_bytes
        return KernelCall(
            function=moved_function("fg_concatenation_s8", element_bytes), params_type="fg_concatenation_params",
            params={"num_inputs": len(op.inputs), "outer": math.prod(output.shape[:axis]),
                    "row_sizes": TableRef("row_sizes")},
            inputs=list(op.inputs), outputs=[op.outputs[0]],
            tables=[ConstTable("row_sizes", "int32_t", np.full(len(op.inputs), slab, dtype=np.int32))],
            variadic_inputs=True)


KERNELS = [PackKernel()]
