"""LOGISTIC (sigmoid), int8 -> int8 elementwise (output zero point -128, read as scale 1/256): one table lookup per
element; the int16 form is in ops/activation/activations_16x8.py.

The output depends only on the input byte, so the compiler computes the 256 outputs at generation time with TFLite
Micro's arithmetic (activation_tables.logistic_table: LogisticPrepare's Q4.27 input scaling and radius, gemmlowp's
fixed-point logistic) and the device runs `fg_lookup_s8`. TFLite checks the output zero point but not its scale;
neither do we.
"""

from __future__ import annotations

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.activation.activation_tables import logistic_scaling, logistic_table
from firmware_gen.ops.activation.activations_16x8 import LOGISTIC_16X8, has_int16_input
from firmware_gen.ops.activation.lookup import lookup_call
from firmware_gen.ops.activation.unary_s8 import int8_input_output
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap

__all__ = ["KERNELS", "logistic_scaling"]


class LogisticKernel:
    opcode = "LOGISTIC"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        if has_int16_input(graph, op):
            LOGISTIC_16X8.check(graph, op)
            return
        source, _ = int8_input_output(graph, op)
        try:
            logistic_scaling(source.quantization.scale)
        except ValueError as error:
            raise UnsupportedModelError(f"{op.describe()}: input {source.describe()}: {error}") from None

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.inputs[0]].num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        if has_int16_input(graph, op):
            return LOGISTIC_16X8.lower(graph, op)
        source, result = int8_input_output(graph, op)
        table = logistic_table((float(source.quantization.scale), int(source.quantization.zero_point)),
                               (float(result.quantization.scale), int(result.quantization.zero_point)))
        return lookup_call(op, source.num_elements, table)

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        if has_int16_input(graph, op):
            return LOGISTIC_16X8.output_overlap(graph, op)
        return elementwise_overlap(graph, op)


KERNELS = [LogisticKernel()]
