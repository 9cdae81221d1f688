"""SUB, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM (int8 or int16) with broadcasting, as TFLM's reference kernels
compute them (sub_common.cc, squared_difference.cc, maximum_minimum.cc). They share ADD's operand checks and
broadcast loops (elementwise.BinaryKernel, broadcast.py), hence its limit of 6 loops after fusing dimensions: the
installed TFLM broadcasts all four up to 6-D (older sources show 5-D and 4-D limits; tests/ops/test_arithmetic.py
checks 6-D against the installed one).
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.elementwise.elementwise import AddKernel, BinaryKernel
from firmware_gen.ops.support.broadcast import broadcast_loops
from firmware_gen.ops.support.fixedpoint import quantize_multiplier, quantize_multiplier_smaller_than_one_exp

SQUARED_DIFFERENCE_LEFT_SHIFT = 7  # 255^2 * 2^14 still fits in int32
# By activation type: int16 (zero points 0) needs no headroom, 32767^2 fits as it is.
SQUARED_DIFFERENCE_LEFT_SHIFTS = {DType.INT8: SQUARED_DIFFERENCE_LEFT_SHIFT, DType.INT16: 0}


class SubKernel(AddKernel):
    """ADD's rescaling (TFLM's SUB derives its multipliers in double precision as ADD does), the second input
    subtracted (runtime_c/kernels/elementwise/sub.c)."""


class SquaredDifferenceKernel(BinaryKernel):
    def rescaling(self, graph: Graph, op: Operator, a: Tensor, b: Tensor, out: Tensor) -> dict[str, int]:
        scale1, scale2 = a.quantization.scale, b.quantization.scale
        left_shift = SQUARED_DIFFERENCE_LEFT_SHIFTS[out.dtype]
        twice_max_input_scale = 2.0 * max(scale1, scale2)
        real_output = twice_max_input_scale**2 / ((1 << 2 * left_shift) * out.quantization.scale)
        multiplier1, shift1 = quantize_multiplier_smaller_than_one_exp(scale1 / twice_max_input_scale)
        multiplier2, shift2 = quantize_multiplier_smaller_than_one_exp(scale2 / twice_max_input_scale)
        output_multiplier, output_shift = quantize_multiplier(real_output)
        return {
            "input1_offset": -a.quantization.zero_point, "input1_multiplier": multiplier1, "input1_shift": shift1,
            "input2_offset": -b.quantization.zero_point, "input2_multiplier": multiplier2, "input2_shift": shift2,
            "left_shift": left_shift, "output_offset": out.quantization.zero_point,
            "output_multiplier": output_multiplier, "output_shift": output_shift,
        }


@dataclass(frozen=True)
class MaximumMinimumKernel(BinaryKernel):
    """Raw int8 or int16 comparison, as TFLM: the quantization parameters are not used (the converter gives the inputs
    and the output the same ones)."""

    flip: int = 0  # -1 for MINIMUM (runtime_c/include/fg/maximum_minimum.h)

    def rescaling(self, graph: Graph, op: Operator, a: Tensor, b: Tensor, out: Tensor) -> dict[str, int]:
        return {}

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        a, b, out = self.operands(graph, op)
        params = {"shape": broadcast_loops(a.shape, b.shape, out.shape).as_param(), "flip": self.flip}
        return KernelCall(self.function_for(out), self.params_type, params, inputs=list(op.inputs),
                          outputs=[op.outputs[0]])


KERNELS = [
    SubKernel("SUB", "fg_sub_s8", "fg_add_params", function_s16="fg_sub_s16"),
    SquaredDifferenceKernel("SQUARED_DIFFERENCE", "fg_squared_difference_s8", "fg_add_params",
                            function_s16="fg_squared_difference_s16"),
    MaximumMinimumKernel("MAXIMUM", "fg_maximum_minimum_s8", "fg_maximum_minimum_params",
                         function_s16="fg_maximum_minimum_s16", flip=0),
    MaximumMinimumKernel("MINIMUM", "fg_maximum_minimum_s8", "fg_maximum_minimum_params",
                         function_s16="fg_maximum_minimum_s16", flip=-1),
]
