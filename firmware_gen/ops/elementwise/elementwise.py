"""ADD and MUL on int8 or int16 (16x8) tensors with broadcasting, as TFLite Micro's reference kernels compute them.

Multipliers are derived from the float32 scales in double precision in TFLM's order of operations
(add_common.cc / mul_common.cc), so the integer parameters, and hence every output byte, match. TFLM's int16 ADD
and SUB take the general path (reference_ops::Add with pot_scale false, BroadcastAdd6DSlow, SubElementwise): the
int8 arithmetic with 15 bits of headroom instead of 20, not TFLite's power-of-two path; its int16 MUL is the int8
one on int16 elements.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap
from firmware_gen.ops.support.broadcast import MAX_LOOPS, broadcast_loops, broadcast_shape
from firmware_gen.ops.support.fixedpoint import quantize_multiplier, quantize_multiplier_smaller_than_one_exp
from firmware_gen.ops.support.tensor_checks import (
    activation_per_tensor,
    fused_activation_range,
    int8_per_tensor,
    same_activation_dtype,
    unsupported,
)

ADD_LEFT_SHIFT = 20  # headroom bits of the int8 ADD and SUB
ADD_LEFT_SHIFTS = {DType.INT8: ADD_LEFT_SHIFT, DType.INT16: 15}  # by activation type: 32767 * 2^15 fits in int32


@dataclass(frozen=True)
class BinaryKernel:
    """What ADD and MUL share: two broadcastable int8 inputs, one int8 output, a fused activation; or all three
    int16 where the kernel has a 16x8 form (`function_s16`)."""

    opcode: str
    function: str
    params_type: str
    is_alias: bool = False
    function_s16: str = ""

    def operands(self, graph: Graph, op: Operator) -> tuple[Tensor, Tensor, Tensor]:
        if len(op.inputs) != 2 or len(op.outputs) != 1:
            raise unsupported(graph, op, "expected two inputs and one output")
        roles = ((op.inputs[0], "input 1"), (op.inputs[1], "input 2"), (op.outputs[0], "output"))
        if not self.function_s16:
            a, b, out = (int8_per_tensor(graph, op, index, role) for index, role in roles)
            return a, b, out
        a, b, out = (activation_per_tensor(graph, op, index, role) for index, role in roles)
        same_activation_dtype(graph, op, out, a, b)
        return a, b, out

    def function_for(self, out: Tensor) -> str:
        return self.function_s16 if out.dtype is DType.INT16 else self.function

    def check(self, graph: Graph, op: Operator) -> None:
        a, b, out = self.operands(graph, op)
        expected = broadcast_shape(a.shape, b.shape)
        if expected is None or expected != tuple(out.shape):
            raise unsupported(graph, op, f"inputs {a.describe()} and {b.describe()} do not broadcast to output "
                                         f"{out.describe()}")
        loops = broadcast_loops(a.shape, b.shape, out.shape)
        if len(loops.dims) > MAX_LOOPS:
            raise unsupported(graph, op, f"broadcasting {a.describe()} with {b.describe()} needs "
                                         f"{len(loops.dims)} nested loops; at most {MAX_LOOPS} are supported")
        fused_activation_range(graph, op, out)
        self.rescaling(graph, op, a, b, out)

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.outputs[0]].num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        a, b, out = self.operands(graph, op)
        activation_min, activation_max = fused_activation_range(graph, op, out)
        params = {
            "shape": broadcast_loops(a.shape, b.shape, out.shape).as_param(),
            **self.rescaling(graph, op, a, b, out),
            "activation_min": activation_min,
            "activation_max": activation_max,
        }
        return KernelCall(self.function_for(out), self.params_type, params, inputs=list(op.inputs),
                          outputs=[op.outputs[0]])

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return elementwise_overlap(graph, op)

    def rescaling(self, graph: Graph, op: Operator, a: Tensor, b: Tensor, out: Tensor) -> dict[str, int]:
        """Offsets, multipliers and shifts, in the params struct's field order."""
        raise NotImplementedError


class AddKernel(BinaryKernel):
    def rescaling(self, graph: Graph, op: Operator, a: Tensor, b: Tensor, out: Tensor) -> dict[str, int]:
        scale1, scale2, scale_out = a.quantization.scale, b.quantization.scale, out.quantization.scale
        left_shift = ADD_LEFT_SHIFTS[out.dtype]
        twice_max_input_scale = 2 * max(scale1, scale2)
        real_output = twice_max_input_scale / ((1 << left_shift) * scale_out)
        try:
            multiplier1, shift1 = quantize_multiplier_smaller_than_one_exp(scale1 / twice_max_input_scale)
            multiplier2, shift2 = quantize_multiplier_smaller_than_one_exp(scale2 / twice_max_input_scale)
            output_multiplier, output_shift = quantize_multiplier_smaller_than_one_exp(real_output)
        except ValueError:
            raise unsupported(graph, op, f"output {out.describe()} scale {scale_out} is too small for the inputs' "
                                         f"scales {scale1}, {scale2}") from None
        return {
            "input1_offset": -a.quantization.zero_point,
            "input1_multiplier": multiplier1,
            "input1_shift": shift1,
            "input2_offset": -b.quantization.zero_point,
            "input2_multiplier": multiplier2,
            "input2_shift": shift2,
            "left_shift": left_shift,
            "output_offset": out.quantization.zero_point,
            "output_multiplier": output_multiplier,
            "output_shift": output_shift,
        }


class MulKernel(BinaryKernel):
    def rescaling(self, graph: Graph, op: Operator, a: Tensor, b: Tensor, out: Tensor) -> dict[str, int]:
        real_multiplier = a.quantization.scale * b.quantization.scale / out.quantization.scale
        output_multiplier, output_shift = quantize_multiplier(real_multiplier)
        return {
            "input1_offset": -a.quantization.zero_point,
            "input2_offset": -b.quantization.zero_point,
            "output_offset": out.quantization.zero_point,
            "output_multiplier": output_multiplier,
            "output_shift": output_shift,
        }


KERNELS = [
    AddKernel("ADD", "fg_add_s8", "fg_add_params", function_s16="fg_add_s16"),
    MulKernel("MUL", "fg_mul_s8", "fg_mul_params", function_s16="fg_mul_s16"),
]
