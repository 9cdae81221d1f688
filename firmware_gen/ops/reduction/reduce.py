"""SUM (int8 or int16), REDUCE_MAX and REDUCE_MIN (int8) over constant axes, walked as MEAN is (ops/reduction/mean.py).

SUM is TFLM's QuantizedMeanOrSum with compute_sum: MEAN's kernel without the 1/count folded into the multiplier.
REDUCE_MAX / REDUCE_MIN: TFLM requires equal input and output quantization and returns the raw extreme.
"""

from __future__ import annotations

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.reduction.mean import MeanKernel
from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from firmware_gen.ops.support.operands import operand, per_tensor_quantization, unsupported


class SumKernel(MeanKernel):
    opcode = "SUM"

    def output_multiplier(self, real_multiplier: float, count: int) -> tuple[int, int]:
        return quantize_multiplier(real_multiplier)


class ReduceMaxKernel(MeanKernel):
    dtypes = (DType.INT8,)  # TFLM's REDUCE_MAX and REDUCE_MIN take float32 and int8 only

    def __init__(self, opcode: str, flip: int) -> None:
        self.opcode = opcode
        self.flip = flip  # -1 for REDUCE_MIN (runtime_c/include/fg/reduce_max.h)

    def check(self, graph: Graph, op: Operator) -> None:
        super().check(graph, op)
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        in_q, out_q = per_tensor_quantization(graph, op, source), per_tensor_quantization(graph, op, output)
        if (in_q.scale, in_q.zero_point) != (out_q.scale, out_q.zero_point):
            raise unsupported(graph, op, f"output {output.describe()} has scale {out_q.scale:.9g} and zero point "
                                         f"{out_q.zero_point}, input {in_q.scale:.9g} and {in_q.zero_point}; TFLM "
                                         "requires them equal")

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        walks, count = self.walks(graph, op)
        return KernelCall("fg_reduce_max_s8", "fg_reduce_max_params", {**walks, "count": count, "flip": self.flip},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]])


KERNELS = [SumKernel(), ReduceMaxKernel("REDUCE_MAX", 0), ReduceMaxKernel("REDUCE_MIN", -1)]
