"""LOG_SOFTMAX over the last dimension, int8 -> int8 (output scale 16/256, zero point 127, as TFLite requires).

Parameters are those of TFLite Micro's LogSoftmax Prepare: input_scale * 2^26 as a Q31 multiplier and left shift
(PreprocessSoftmaxScaling with beta 1), the inverse of that scaling as a second multiplier, and diff_min. A
difference to the row maximum is one of 256 values, so its Q5.26 form and its exp() in Q12.19 are computed here with
TFLM's arithmetic and looked up by the kernel (2 KiB of tables; on a Cortex-M3, rows of 16: 92 instead of 384
instructions per element, the rest mostly the logarithm of each row).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.activation.unary_s8 import float32
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap
from firmware_gen.ops.softmax.softmax import softmax_scaling
from firmware_gen.ops.support.fixedpoint import (
    multiply_by_quantized_multiplier,
    quantize_multiplier_smaller_than_one_exp,
)
from firmware_gen.ops.support.fixedpoint_math import exp_on_negative_values, rescale
from firmware_gen.ops.support.operands import unsupported
from firmware_gen.ops.support.tensor_checks import int8_per_tensor

OUTPUT_SCALE = float(np.float32(16.0 / 256.0))
OUTPUT_ZERO_POINT = 127
SCALED_DIFF_INTEGER_BITS = 5
ACCUMULATION_INTEGER_BITS = 12


def log_softmax_scaling(input_scale: float) -> dict[str, int]:
    """The kernel's scaling parameters, or ValueError where TFLite's Prepare fails a check."""
    multiplier, left_shift, diff_min = softmax_scaling(1.0, input_scale)
    if left_shift == 0:  # TFLite computes 1 << 31 in an int
        raise ValueError(f"input scale {input_scale:g} is below 2^-25")
    reverse = (1 << (31 - left_shift)) / multiplier
    if not reverse < 1.0:
        raise ValueError(f"input scale {input_scale:g} gives a reverse scaling of {reverse:g}, not below 1")
    divisor, shift = quantize_multiplier_smaller_than_one_exp(reverse)
    return {"input_multiplier": multiplier, "input_left_shift": left_shift, "reverse_scaling_divisor": divisor,
            "reverse_scaling_shift": shift, "diff_min": diff_min}


def difference_tables(scaling: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(d in Q5.26, exp(d) in Q12.19 or 0 below diff_min) for d = 0, -1, ..., -255, as TFLM computes them."""
    diff_q5 = [multiply_by_quantized_multiplier(-k, scaling["input_multiplier"], scaling["input_left_shift"])
               for k in range(256)]
    exp_q12 = [rescale(exp_on_negative_values(q5, SCALED_DIFF_INTEGER_BITS), 0, ACCUMULATION_INTEGER_BITS)
               if -k >= scaling["diff_min"] else 0 for k, q5 in enumerate(diff_q5)]
    return np.array(diff_q5, dtype=np.int32), np.array(exp_q12, dtype=np.int32)


class LogSoftmaxKernel:
    opcode = "LOG_SOFTMAX"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        self.lower(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.inputs[0]].num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        if len(op.inputs) != 1 or len(op.outputs) != 1:
            raise unsupported(graph, op, "expected one input and one output")
        source = int8_per_tensor(graph, op, op.inputs[0], "input")
        result = int8_per_tensor(graph, op, op.outputs[0], "output")
        if not source.shape or tuple(source.shape) != tuple(result.shape):
            raise unsupported(graph, op, f"output {result.describe()} must have the shape of input "
                                         f"{source.describe()}, of at least one dimension")
        q = result.quantization
        if float32(q.scale) != OUTPUT_SCALE or q.zero_point != OUTPUT_ZERO_POINT:
            raise unsupported(graph, op, f"output {result.describe()} has scale {q.scale:g} and zero point "
                                         f"{q.zero_point}; TFLite requires 16/256 and {OUTPUT_ZERO_POINT}")
        try:
            scaling = log_softmax_scaling(source.quantization.scale)
        except ValueError as error:
            raise unsupported(graph, op, f"input {source.describe()}: {error}") from None
        depth = int(source.shape[-1])
        diff_q5, exp_q12 = difference_tables(scaling)
        params = {"rows": source.num_elements // depth if depth else 0, "depth": depth,
                  **{key: scaling[key] for key in ("reverse_scaling_divisor", "reverse_scaling_shift", "diff_min")},
                  "diff_q5": TableRef("diff_q5"), "exp_q12": TableRef("exp_q12")}
        return KernelCall("fg_log_softmax_s8", "fg_log_softmax_params", params, inputs=[op.inputs[0]],
                          outputs=[op.outputs[0]], tables=[ConstTable("diff_q5", "int32_t", diff_q5),
                                                           ConstTable("exp_q12", "int32_t", exp_q12)])

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return elementwise_overlap(graph, op)


KERNELS = [LogSoftmaxKernel()]
