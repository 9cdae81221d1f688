"""PRELU on int8 tensors: x >= 0 ? x : alpha * x, alpha (usually a per-channel constant) broadcast against the input,
as TFLite Micro's BroadcastPrelu4DSlow computes it (up to 4 dimensions; multipliers from double-precision scales).
In 16x8 models the input and output are int16 (zero point 0) and alpha int8, as TFLM reads it: a constant alpha
is widened to int16 at generation time (fg_prelu_s16 walks both operands in steps of one element size)."""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap
from firmware_gen.ops.support.broadcast import broadcast_loops, broadcast_shape
from firmware_gen.ops.support.fixedpoint import quantize_multiplier
from firmware_gen.ops.support.operands import require_arity, unsupported
from firmware_gen.ops.support.tensor_checks import activation_per_tensor, int8_per_tensor, same_activation_dtype

MAX_RANK = 4  # BroadcastPrelu4DSlow


class PreluKernel:
    opcode = "PRELU"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        self.lower(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.outputs[0]].num_elements

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        require_arity(graph, op, {2})
        source = activation_per_tensor(graph, op, op.inputs[0], "input")
        alpha = int8_per_tensor(graph, op, op.inputs[1], "alpha")
        result = activation_per_tensor(graph, op, op.outputs[0], "output")
        same_activation_dtype(graph, op, source, result)
        if broadcast_shape(source.shape, alpha.shape) != tuple(result.shape):
            raise unsupported(graph, op, f"input {source.describe()} and alpha {alpha.describe()} do not broadcast "
                                         f"to output {result.describe()}")
        if len(result.shape) > MAX_RANK:
            raise unsupported(graph, op, f"output {result.describe()} has {len(result.shape)} dimensions; TFLite "
                                         f"Micro's PRELU handles at most {MAX_RANK}")
        in_scale, alpha_scale, out_scale = (t.quantization.scale for t in (source, alpha, result))
        identity_multiplier, identity_shift = quantize_multiplier(in_scale / out_scale)
        alpha_multiplier, alpha_shift = quantize_multiplier(in_scale * alpha_scale / out_scale)
        params = {
            "shape": broadcast_loops(source.shape, alpha.shape, result.shape).as_param(),
            "input_offset": -source.quantization.zero_point,
            "alpha_offset": -alpha.quantization.zero_point,
            "output_offset": result.quantization.zero_point,
            "identity_multiplier": identity_multiplier,
            "identity_shift": identity_shift,
            "alpha_multiplier": alpha_multiplier,
            "alpha_shift": alpha_shift,
        }
        if source.dtype is DType.INT8:
            return KernelCall("fg_prelu_s8", "fg_prelu_params", params, inputs=list(op.inputs),
                              outputs=[op.outputs[0]])
        if not alpha.is_constant or alpha.data is None:
            raise unsupported(graph, op, f"alpha {alpha.describe()} is not a constant; an int16 PRELU needs a constant "
                                         f"int8 alpha")
        widened = ConstTable("alpha", "int16_t", np.asarray(alpha.data, dtype=np.int16).ravel())
        return KernelCall("fg_prelu_s16", "fg_prelu_s16_params",
                          {"prelu": tuple(params.values()), "alpha": TableRef(widened.suffix)},
                          inputs=[op.inputs[0]], outputs=[op.outputs[0]], tables=[widened])

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return elementwise_overlap(graph, op)


KERNELS = [PreluKernel()]
