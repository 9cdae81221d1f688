"""SOFTMAX over the last dimension, int8 -> int8 (output scale 1/256, zero point -128); the int16 form is in
ops/softmax_16x8.py.

Parameters are those of TFLite Micro's SoftmaxPrepare: beta * input_scale becomes a Q31 multiplier and a
left shift that bring input differences to Q5.26 (PreprocessSoftmaxScaling), and differences below
diff_min are treated as exp() = 0.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.activations_16x8 import has_int16_input
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.fixedpoint import quantize_multiplier_greater_than_one
from firmware_gen.ops.softmax_16x8 import SOFTMAX_16X8
from firmware_gen.ops.unary_s8 import float32, input_radius, int8_input_output

SCALED_DIFF_INTEGER_BITS = 5
OUTPUT_SCALE = float(np.float32(1.0 / 256.0))
# PreprocessSoftmaxScaling caps the real multiplier (double-rounding build of TFLite).
MAX_REAL_MULTIPLIER = float((1 << 31) - 1)


def softmax_scaling(beta: float, input_scale: float) -> tuple[int, int, int]:
    """(input_multiplier, input_left_shift, diff_min) as TFLite computes them, or ValueError when TFLite
    would refuse the model (a real multiplier not above one)."""
    real_multiplier = min(float32(beta) * float32(input_scale) * (1 << (31 - SCALED_DIFF_INTEGER_BITS)),
                          MAX_REAL_MULTIPLIER)
    if not real_multiplier > 1.0:
        raise ValueError(f"beta * input_scale * 2^26 = {real_multiplier:g} is not above 1")
    multiplier, left_shift = quantize_multiplier_greater_than_one(real_multiplier)
    return multiplier, left_shift, -input_radius(SCALED_DIFF_INTEGER_BITS, left_shift)


class SoftmaxKernel:
    opcode = "SOFTMAX"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        if has_int16_input(graph, op):
            SOFTMAX_16X8.check(graph, op)
            return
        source, result = int8_input_output(graph, op)
        if not source.shape:
            raise UnsupportedModelError(f"{op.describe()}: input {source.describe()} is a scalar; "
                                        f"SOFTMAX needs at least one dimension")
        if float32(result.quantization.scale) != OUTPUT_SCALE:
            raise UnsupportedModelError(f"{op.describe()}: output {result.describe()} has scale "
                                        f"{result.quantization.scale:g}; TFLite requires 1/256")
        try:
            softmax_scaling(op.options.get("beta", 1.0), source.quantization.scale)
        except ValueError as error:
            raise UnsupportedModelError(f"{op.describe()}: input {source.describe()}: {error} "
                                        f"(TFLite refuses this beta and input scale)") from None

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.inputs[0]].num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        if has_int16_input(graph, op):
            return SOFTMAX_16X8.lower(graph, op)
        source = graph.tensors[op.inputs[0]]
        multiplier, left_shift, diff_min = softmax_scaling(op.options.get("beta", 1.0), source.quantization.scale)
        depth = int(source.shape[-1])
        return KernelCall(
            function="fg_softmax_s8",
            params_type="fg_softmax_params",
            params={
                "rows": source.num_elements // depth if depth else 0,
                "depth": depth,
                "input_multiplier": int(multiplier),
                "input_left_shift": int(left_shift),
                "diff_min": int(diff_min),
            },
            inputs=[op.inputs[0]],
            outputs=[op.outputs[0]],
        )


KERNELS = [SoftmaxKernel()]
