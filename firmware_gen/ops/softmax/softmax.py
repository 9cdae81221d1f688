"""SOFTMAX over the last dimension, int8 -> int8 (output scale 1/256, zero point -128) or int8 -> int16 (output
scale 1/65536 within 0.1 %, zero point -32768: the same arithmetic rounded to 16 fractional bits); the int16 -> int16
form is in ops/softmax/softmax_16x8.py.

Parameters are those of TFLite Micro's SoftmaxPrepare: beta * input_scale becomes a Q31 multiplier and a
left shift that bring input differences to Q5.26 (PreprocessSoftmaxScaling), and differences below
diff_min are treated as exp() = 0.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.activation.activations_16x8 import has_int16_input
from firmware_gen.ops.activation.unary_s8 import float32, input_radius, int8_input_output
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.softmax.softmax_16x8 import SOFTMAX_16X8
from firmware_gen.ops.support.fixedpoint import quantize_multiplier_greater_than_one
from firmware_gen.ops.support.tensor_checks import int8_per_tensor, unsupported

SCALED_DIFF_INTEGER_BITS = 5
OUTPUT_SCALE = float(np.float32(1.0 / 256.0))
INT16_OUTPUT_SCALE = np.float32(1.0 / 65536.0)
INT16_OUTPUT_ZERO_POINT = -32768
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
        source, _ = self._int8_input_operands(graph, op)
        try:
            softmax_scaling(op.options.get("beta", 1.0), source.quantization.scale)
        except ValueError as error:
            raise UnsupportedModelError(f"{op.describe()}: input {source.describe()}: {error} "
                                        f"(TFLite refuses this beta and input scale)") from None

    @staticmethod
    def _int8_input_operands(graph: Graph, op: Operator) -> tuple[Tensor, Tensor]:
        if len(op.outputs) == 1 and graph.tensors[op.outputs[0]].dtype is DType.INT16:
            source, result = _int8_to_int16_operands(graph, op)
        else:
            source, result = int8_input_output(graph, op)
            if float32(result.quantization.scale) != OUTPUT_SCALE:
                raise UnsupportedModelError(f"{op.describe()}: output {result.describe()} has scale "
                                            f"{result.quantization.scale:g}; TFLite requires 1/256")
        if not source.shape:
            raise UnsupportedModelError(f"{op.describe()}: input {source.describe()} is a scalar; "
                                        f"SOFTMAX needs at least one dimension")
        return source, result

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.inputs[0]].num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        if has_int16_input(graph, op):
            return SOFTMAX_16X8.lower(graph, op)
        source = graph.tensors[op.inputs[0]]
        multiplier, left_shift, diff_min = softmax_scaling(op.options.get("beta", 1.0), source.quantization.scale)
        depth = int(source.shape[-1])
        int16_output = graph.tensors[op.outputs[0]].dtype is DType.INT16
        return KernelCall(
            function="fg_softmax_s8_s16" if int16_output else "fg_softmax_s8",
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


def _int8_to_int16_operands(graph: Graph, op: Operator) -> tuple[Tensor, Tensor]:
    """The checked (input, output) of the int8 -> int16 form, as TFLM's SoftmaxPrepare requires them."""
    if len(op.inputs) != 1:
        raise unsupported(graph, op, f"expected one input, got {len(op.inputs)}")
    source = int8_per_tensor(graph, op, op.inputs[0], "input")
    result = graph.tensors[op.outputs[0]]
    q = result.quantization
    if q is None or q.per_channel or q.zero_point != INT16_OUTPUT_ZERO_POINT:
        raise unsupported(graph, op, f"output {result.describe()} needs per-tensor zero point "
                                     f"{INT16_OUTPUT_ZERO_POINT} (int8 input, int16 output)")
    if not abs(np.float32(q.scale) - INT16_OUTPUT_SCALE) <= np.float32(0.001) * INT16_OUTPUT_SCALE:
        raise unsupported(graph, op, f"output {result.describe()} has scale {q.scale:g}; TFLite Micro requires "
                                     f"1/65536 for an int8 input and int16 output")
    if tuple(source.shape) != tuple(result.shape):
        raise unsupported(graph, op, f"output {result.describe()} does not have the shape of input "
                                     f"{source.describe()}")
    return source, result


KERNELS = [SoftmaxKernel()]
