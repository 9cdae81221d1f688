"""CONCATENATION of int8 tensors along one axis.

Values are copied unchanged, so every input must have the output's scale and zero point (the TFLite converter
arranges that; TFLM refuses the model otherwise, and so does this module).
"""

from __future__ import annotations

import math

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.operands import (
    moved_element_bytes,
    moved_function,
    operand,
    per_tensor_quantization,
    resolve_axis,
    unsupported,
)


class ConcatenationKernel:
    opcode = "CONCATENATION"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        if not op.inputs or len(op.outputs) != 1:
            raise unsupported(graph, op, "needs at least one input and exactly one output")
        output = graph.tensors[op.outputs[0]]
        moved_element_bytes(graph, op, output, *(operand(graph, op, p) for p in range(len(op.inputs))))
        activation = op.options.get("activation", "NONE")
        if activation != "NONE":
            raise unsupported(graph, op, f"fused activation {activation} is not supported (TFLM refuses it too)")
        rank = len(output.shape)
        axis = resolve_axis(graph, op, int(op.options.get("axis", 0)), rank)
        out_q = per_tensor_quantization(graph, op, output)
        total = 0
        for position in range(len(op.inputs)):
            source = operand(graph, op, position)
            in_q = per_tensor_quantization(graph, op, source)
            if (in_q.scale, in_q.zero_point) != (out_q.scale, out_q.zero_point):
                raise unsupported(graph, op, f"{source.describe()} is quantized (scale {in_q.scale:.9g}, zero point "
                                             f"{in_q.zero_point}) unlike the output (scale {out_q.scale:.9g}, zero "
                                             f"point {out_q.zero_point}); requantizing inputs is not supported")
            if len(source.shape) != rank or any(source.shape[d] != output.shape[d] for d in range(rank) if d != axis):
                raise unsupported(graph, op, f"{source.describe()} does not fit {output.describe()} "
                                             f"along axis {axis}")
            total += source.shape[axis]
        if total != output.shape[axis]:
            raise unsupported(graph, op, f"the inputs add up to {total} along axis {axis}, "
                                         f"{output.describe()} has {output.shape[axis]}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        output = graph.tensors[op.outputs[0]]
        axis = resolve_axis(graph, op, int(op.options.get("axis", 0)), len(output.shape))
        element_bytes = output.dtype.itemsize  # fg_concatenation_s16 copies rows of bytes
        row_sizes = [math.prod(operand(graph, op, p).shape[axis:]) * element_bytes for p in range(len(op.inputs))]
        return KernelCall(
            function=moved_function("fg_concatenation_s8", element_bytes), params_type="fg_concatenation_params",
            params={"num_inputs": len(op.inputs), "outer": math.prod(output.shape[:axis]),
                    "row_sizes": TableRef("row_sizes")},
            inputs=list(op.inputs), outputs=[op.outputs[0]],
            tables=[ConstTable("row_sizes", "int32_t", np.array(row_sizes, dtype=np.int32))],
            variadic_inputs=True)


KERNELS = [ConcatenationKernel()]
