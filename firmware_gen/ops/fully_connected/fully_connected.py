"""FULLY_CONNECTED on int8 with int8 weights, as TFLite Micro's reference kernels compute it.

The input, of any rank, is read as [batches, accum_depth] where accum_depth is the weights' depth; the
output is [batches, out_depth], or the input's leading dimensions + [out_depth] with keep_num_dims.
Weights are symmetric, per tensor or per output channel; the bias is optional int32. With int16 activations
(16x8) fg_fully_connected_s16 runs it (ops/convolution/weighted_16x8.py).
With constant weights and bias, fg_fully_connected_folded_s8 runs it: the input zero point folded into the bias
at generation time (bit-exact with the reference fg_fully_connected_s8, which runs the rest), the weights in the
register-blocked layout of ops/convolution/blocking.py; where the board's flash allows (ops/variant_choice.py), two
output channels per int32 word (twice the bytes of the int8 weights, for half the instructions): as the fused 1x1
convolution of its batches where its output stage is the fused kernel's, else with a single batch and whole groups of
four outputs on the fully connected kernel's own paired loop.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall, TableRef
from firmware_gen.ops.convolution.blocking import GROUP, PAIRED_GROUP, blocked_filter, paired_weights
from firmware_gen.ops.convolution.fused_output import FLOOR, FUSED
from firmware_gen.ops.convolution.weighted_16x8 import call_16x8, is_16x8
from firmware_gen.ops.convolution.wide_layout import PAIRED, paired_call
from firmware_gen.ops.support.requantize import (
    BIAS_SCALE_TOLERANCE,
    bias_tensor,
    constant_operands,
    convolution_multipliers,
    folded_bias,
    fully_connected_multiplier,
    output_stage,
    weights_tensor,
)
from firmware_gen.ops.support.tensor_checks import activation_per_tensor, same_activation_dtype, unsupported


@dataclass(frozen=True)
class FullyConnectedShapes:
    source: Tensor
    weights: Tensor
    bias: Tensor | None
    result: Tensor
    batches: int
    accum_depth: int
    out_depth: int


def fully_connected_shapes(graph: Graph, op: Operator) -> FullyConnectedShapes:
    """The operands, checked against each other and against what TFLM accepts."""
    if len(op.inputs) not in (2, 3) or len(op.outputs) != 1:
        raise unsupported(graph, op, "expected input, weights, optional bias and one output")
    source = activation_per_tensor(graph, op, op.inputs[0], "input")
    result = activation_per_tensor(graph, op, op.outputs[0], "output")
    same_activation_dtype(graph, op, source, result)
    weights = graph.tensors[op.inputs[1]] if op.inputs[1] >= 0 else None
    if weights is None or len(weights.shape) != 2:
        raise unsupported(graph, op, "the weights must be a 2-D [out_depth, accum_depth] tensor")
    out_depth, accum_depth = weights.shape
    weights_tensor(graph, op, op.inputs[1], 0, out_depth)
    if accum_depth < 1 or source.num_elements % accum_depth:
        raise unsupported(graph, op, f"input {source.describe()} does not split into rows of the weights' depth "
                                     f"{accum_depth}")
    batches = source.num_elements // accum_depth
    if op.options.get("keep_num_dims", False):
        if not source.shape or source.shape[-1] != accum_depth:
            raise unsupported(graph, op, f"with keep_num_dims the last dimension of input {source.describe()} "
                                         f"must be the weights' depth {accum_depth}")
        expected = (*source.shape[:-1], out_depth)
    else:
        expected = (batches, out_depth)
    if tuple(result.shape) != expected:
        raise unsupported(graph, op, f"output {result.describe()} should be {list(expected)}")
    bias = bias_tensor(graph, op, out_depth)
    return FullyConnectedShapes(source, weights, bias, result, batches, accum_depth, out_depth)


def _check_bias_scale(graph: Graph, op: Operator, shapes: FullyConnectedShapes) -> None:
    """TFLM refuses a per-tensor model whose bias scale is not input_scale * weight_scale (within 2%)."""
    if shapes.bias is None or shapes.weights.quantization.per_channel:
        return
    bias_scale = shapes.bias.quantization.scale if shapes.bias.quantization else 0.0
    product = shapes.source.quantization.scale * shapes.weights.quantization.scale
    if abs(product - bias_scale) / shapes.result.quantization.scale > BIAS_SCALE_TOLERANCE:
        raise unsupported(graph, op, f"bias {shapes.bias.describe()} has scale {bias_scale:g}, too far from "
                                     f"input scale * weight scale = {product:g} (TFLite Micro refuses this)")


POINTWISE = "fg_conv2d_pointwise_s8"  # the blocked 1x1 convolution a folded fully connected layer is
# fg_fully_connected_params' fields between requant and wide, unused by fg_fully_connected_s16.
_BEFORE_WIDE = {"folded_bias": 0, "blocked": (0,), "paired_weights": 0, "packed": 0}


class FullyConnectedKernel:
    opcode = "FULLY_CONNECTED"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        _check_bias_scale(graph, op, fully_connected_shapes(graph, op))

    def macs(self, graph: Graph, op: Operator) -> int:
        shapes = fully_connected_shapes(graph, op)
        return shapes.batches * shapes.out_depth * shapes.accum_depth

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        shapes = fully_connected_shapes(graph, op)
        input_scale, output_scale = shapes.source.quantization.scale, shapes.result.quantization.scale
        weight_q = shapes.weights.quantization
        if weight_q.per_channel:
            multipliers, shifts = convolution_multipliers(input_scale, weight_q.scales, output_scale)
        else:
            multipliers, shifts = fully_connected_multiplier(input_scale, weight_q.scale, output_scale)
        geometry = {"batches": shapes.batches, "accum_depth": shapes.accum_depth, "out_depth": shapes.out_depth}
        if is_16x8(shapes.source):
            return call_16x8(graph, op, "fg_fully_connected_s16", "fg_fully_connected_params", geometry,
                             _BEFORE_WIDE, multipliers, shifts, interleave=True)
        stage = output_stage(graph, op, shapes.source, shapes.result, multipliers, shifts)
        params = {**geometry, **stage.fields}
        if fully_connected_variant(graph, op) == "fg_fully_connected_folded_s8":
            weights = np.asarray(shapes.weights.data)
            bias = folded_bias(graph, op, shapes.source, weights, GROUP)
            table, blocked = blocked_filter(weights.reshape(shapes.out_depth, 1, shapes.accum_depth))
            return KernelCall("fg_fully_connected_folded_s8", "fg_fully_connected_params",
                              {**params, "folded_bias": TableRef(bias.suffix), "blocked": blocked},
                              inputs=[op.inputs[0], -1], outputs=[op.outputs[0]], tables=[*stage.tables, bias, table])
        bias_index = op.inputs[2] if len(op.inputs) > 2 else -1
        return KernelCall("fg_fully_connected_s8", "fg_fully_connected_params", params,
                          inputs=[op.inputs[0], op.inputs[1], bias_index], outputs=[op.outputs[0]],
                          tables=stage.tables)


def paired_fully_connected(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """The blocked fg_fully_connected_folded_s8 call reading two output channels per int32 word instead: as the 1x1
    convolution of one pixel per batch with its output stage fused where that serves it (pointwise_fully_connected),
    else, with one batch (no second row for the two-pixel loop) and no group of four padded, on fg_dot1x4_paired_s8;
    else None."""
    params = call.params
    if call.function != "fg_fully_connected_folded_s8":
        return None
    if (pointwise := pointwise_fully_connected(call)) is not None:
        return pointwise
    if params["batches"] != 1 or params["out_depth"] % GROUP:
        return None
    table = paired_weights(np.asarray(fully_connected_shapes(graph, op).weights.data))
    tables = [t if t.suffix != "blocked_weights" else table for t in call.tables]
    return dataclasses.replace(call, params={**params, "blocked": (0, *params["blocked"][1:]),
                                             "paired_weights": TableRef(table.suffix)}, tables=tables)


def pointwise_fully_connected(call: KernelCall) -> KernelCall | None:
    """The blocked fg_fully_connected_folded_s8 call as the fused 1x1 convolution of its batches, one pixel each
    (fg_conv2d_pointwise_fused_s8: 1 input x 8 outputs per tap in 7 instructions, each output requantized from
    registers; ad01_int8's 128x128 layers on mps2_an385: 26,600 -> 17,600 instructions), where its output stage is one
    the fused kernel serves (ops/convolution/fused_output.py) and no group of eight is padded (micro_speech's four
    outputs of 4,000 taps: 32 KB more flash and slower); else None. Its weights and bias as the blocked call has
    them: the 1x1 convolution's tables are the same."""
    p = call.params
    if p["out_depth"] % PAIRED_GROUP:
        return None
    geometry = {"batches": p["batches"], "in_h": 1, "in_w": 1, "in_c": p["accum_depth"], "out_h": 1, "out_w": 1,
                "out_c": p["out_depth"], "filter_h": 1, "filter_w": 1, "stride_h": 1, "stride_w": 1, "dilation_h": 1,
                "dilation_w": 1, "pad_top": 0, "pad_left": 0}
    convolution = dataclasses.replace(call, function=POINTWISE, params_type="fg_conv2d_params",
                                      params={**geometry, **{k: p[k] for k in ("requant", "folded_bias", "blocked")}})
    wide = paired_call(convolution)
    fused = FUSED[PAIRED[POINTWISE]]
    return wide if wide.function in (fused, FLOOR[fused]) else None


def fully_connected_variant(graph: Graph, op: Operator) -> str:
    """The C function that runs this FULLY_CONNECTED."""
    return "fg_fully_connected_folded_s8" if constant_operands(graph, op) else "fg_fully_connected_s8"


KERNELS = [FullyConnectedKernel()]
