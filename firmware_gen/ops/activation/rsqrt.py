"""RSQRT as TFLite Micro computes it (elementwise.cc, RsqrtEvalQuantized): on int8 a 256-entry table (lookup.py);
on int16 (16x8 models: zero points 0) fg_rsqrt_s16, the same integer formula per element (65,536 outputs would
make a 128 KiB table)."""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.activation.activations_16x8 import Int16Dispatch, int16_operands
from firmware_gen.ops.activation.lookup import RsqrtKernel, rsqrt_rescaling
from firmware_gen.ops.base import KernelCall


class Rsqrt(Int16Dispatch, RsqrtKernel):
    def _lower_s16(self, graph: Graph, op: Operator) -> KernelCall:
        source, result = int16_operands(graph, op)
        multiplier, shift = rsqrt_rescaling(source, result)
        return KernelCall("fg_rsqrt_s16", "fg_rsqrt_s16_params",
                          {"size": source.num_elements, "multiplier": multiplier, "shift": shift},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]])


KERNELS = [Rsqrt()]
