"""L2_NORMALIZATION on int8 tensors (last dimension), as TFLite Micro's reference kernel computes it.

TFLM takes ranks up to 4 and no fused activation, and writes raw values in 1/128 units whatever the output tensor's
quantization says (converters give it scale 1/128, zero point 0); we do the same.
"""

from __future__ import annotations

import math

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.overlap import OutputOverlap
from firmware_gen.ops.support.operands import operand, require_arity, require_dtype, unsupported
from firmware_gen.ops.support.tensor_checks import int8_per_tensor

MAX_RANK = 4


class L2NormalizationKernel:
    opcode = "L2_NORMALIZATION"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {1})
        source = int8_per_tensor(graph, op, op.inputs[0], "input")
        result = graph.tensors[op.outputs[0]]
        require_dtype(graph, op, result, (DType.INT8,))
        if not 1 <= len(source.shape) <= MAX_RANK:
            raise unsupported(graph, op, f"input {source.describe()} has rank {len(source.shape)}; TFLM takes 1 to "
                                         f"{MAX_RANK}")
        if tuple(result.shape) != tuple(source.shape):
            raise unsupported(graph, op, f"output {result.describe()} should have the input's shape")
        activation = op.options.get("activation", "NONE")
        if activation != "NONE":
            raise unsupported(graph, op, f"option activation={activation} is not supported (TFLM takes NONE only)")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 2 * operand(graph, op, 0).num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        self.check(graph, op)
        source = operand(graph, op, 0)
        depth = source.shape[-1]
        params = {"rows": math.prod(source.shape[:-1]), "depth": depth,
                  "input_zero_point": source.quantization.zero_point}
        return KernelCall("fg_l2_normalization_s8", "fg_l2_normalization_params", params, inputs=[op.inputs[0]],
                          outputs=[op.outputs[0]])

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        """Row by row, each row read whole before it is written: in place."""
        return [OutputOverlap(op.inputs[0], op.outputs[0], operand(graph, op, 0).nbytes)]


KERNELS = [L2NormalizationKernel()]
