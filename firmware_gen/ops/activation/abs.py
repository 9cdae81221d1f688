"""ABS as TFLite Micro computes it (elementwise.cc, AbsEvalQuantized): |x - input zero point|, rescaled by
input_scale / output_scale unless the two float32 scales are equal, plus the output zero point, saturated. On int8
a 256-entry table (ops/activation/lookup.py); on int16 (16x8 models: zero points 0) fg_abs_s16, with the exact identity
multiplier where TFLM skips the rescaling.
"""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph, Operator, Tensor
from firmware_gen.ops.activation.activations_16x8 import Int16Dispatch, int16_operands
from firmware_gen.ops.activation.lookup import INT8_INPUTS, LookupKernel
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier


def abs_rescaling(source: Tensor, result: Tensor) -> tuple[int, int] | None:
    """The multiplier and shift, or None where TFLM skips the rescaling (bit-identical float32 scales)."""
    in_scale, out_scale = source.quantization.scale, result.quantization.scale
    return None if in_scale == out_scale else quantize_multiplier(in_scale / out_scale)


class AbsKernel(Int16Dispatch, LookupKernel):
    opcode = "ABS"

    def table(self, source: Tensor, result: Tensor) -> list[int]:
        in_zp, out_zp = source.quantization.zero_point, result.quantization.zero_point
        magnitudes = [abs(x - in_zp) for x in INT8_INPUTS]
        rescaling = abs_rescaling(source, result)
        if rescaling is None:
            return [m + out_zp for m in magnitudes]
        return [multiply_by_quantized_multiplier(m, *rescaling) + out_zp for m in magnitudes]

    def _lower_s16(self, graph: Graph, op: Operator) -> KernelCall:
        source, result = int16_operands(graph, op)
        multiplier, shift = abs_rescaling(source, result) or quantize_multiplier(1.0)
        return KernelCall("fg_abs_s16", "fg_abs_s16_params",
                          {"size": source.num_elements, "multiplier": multiplier, "shift": shift},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]])


KERNELS = [AbsKernel()]
