"""LOGISTIC (sigmoid), int8 -> int8 elementwise (output zero point -128, read as scale 1/256); the int16 form is
in ops/activations_16x8.py.

Parameters are those of TFLite Micro's LogisticPrepare: input_scale * 2^27 split by frexp into a Q31
multiplier and a shift that bring (input - zero_point) to Q4.27, and the input radius beyond which the
output saturates. TFLite checks the output zero point but not its scale; neither do we.
"""

from __future__ import annotations

import math

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.activations_16x8 import LOGISTIC_16X8, has_int16_input
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.fixedpoint import round_half_away
from firmware_gen.ops.overlap import OutputOverlap
from firmware_gen.ops.unary_s8 import float32, input_radius, int8_input_output

INPUT_INTEGER_BITS = 4


def logistic_scaling(input_scale: float) -> tuple[int, int, int]:
    """(input_multiplier, input_left_shift, input_range_radius) as TFLite computes them, or ValueError for
    input scales below 2^-28, where TFLite's radius computation shifts by a negative amount."""
    fraction, left_shift = math.frexp(float32(input_scale) * (1 << (31 - INPUT_INTEGER_BITS)))
    if left_shift < 0:
        raise ValueError(f"input scale {input_scale:g} is below 2^-28")
    multiplier = round_half_away(fraction * (1 << 31))
    return multiplier, left_shift, input_radius(INPUT_INTEGER_BITS, left_shift)


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
        source = graph.tensors[op.inputs[0]]
        multiplier, left_shift, radius = logistic_scaling(source.quantization.scale)
        return KernelCall(
            function="fg_logistic_s8",
            params_type="fg_logistic_params",
            params={
                "size": source.num_elements,
                "input_zero_point": int(source.quantization.zero_point),
                "input_range_radius": int(radius),
                "input_multiplier": int(multiplier),
                "input_left_shift": int(left_shift),
            },
            inputs=[op.inputs[0]],
            outputs=[op.outputs[0]],
        )

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return LOGISTIC_16X8.output_overlap(graph, op) if has_int16_input(graph, op) else []


KERNELS = [LogisticKernel()]
