"""NEG of float32, as TFLM has it (TFLM has no int8 NEG, so an int8 one is refused): the TFLite converter leaves
a float NEG between DEQUANTIZE and QUANTIZE in a Keras LayerNormalization (-mean * inverse deviation + beta)."""

from __future__ import annotations

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap
from firmware_gen.ops.support.operands import operand, require_arity, unsupported


class NegKernel:
    opcode = "NEG"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {1})
        source, result = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        for tensor in (source, result):
            if tensor.dtype is not DType.FLOAT32:
                raise unsupported(graph, op, f"{tensor.describe()} has type {tensor.dtype}; TFLite Micro's NEG "
                                             f"(and so firmware-gen's) takes only float32")
        if tuple(source.shape) != tuple(result.shape):
            raise unsupported(graph, op, f"{result.describe()} does not have the shape of {source.describe()}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        return KernelCall("fg_neg_f32", "fg_neg_params", {"size": operand(graph, op, 0).num_elements},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]])

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return elementwise_overlap(graph, op)


KERNELS = [NegKernel()]
