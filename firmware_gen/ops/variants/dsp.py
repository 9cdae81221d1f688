"""Armv7E-M (DSP extension) variants: SMLAD tiles on int16 pairs, weights interleaved at generation time, the output
stage with SMMULR. The C side and the layouts: runtime_c/include/fg/isa/dsp.h, runtime_c/kernels/*_dsp.c.

Every variant's table (`packed`, int32 words) starts with one fg_dsp_channel per output channel: the folded bias,
the Q31 multiplier, offset = 2^(shift-1) + (output zero point << shift), and the right shift. The kernels compute
SMMULR(2 * acc, multiplier), equal to TFLite's SaturatingRoundingDoublingHighMul(acc, multiplier) while 2 * acc
fits in int32. A channel whose weights, bias and input range allow a larger accumulator, whose shift is not a
right shift of 1..31, or whose offset could overflow is marked wide: the kernels run TFLite's arithmetic as the
portable kernels do (offset then holds TFLite's signed shift).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import DSP
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.requantize import constant_operands, folded_bias
from firmware_gen.ops.variants import Variant, call_table, renamed

REQUIRES = frozenset({DSP})
INT32_LIMIT = 1 << 31
# The x buffer on the stack holds three pixels' pairs of this many depths (12 bytes per two depths).
MAX_DEPTH = 640  # FG_DSP_CONV_MAX_DEPTH: a fixed array on the stack, so that the kernel's frame is known
FC_MAX_DEPTH = 2048  # FG_DSP_FC_MAX_DEPTH: the row's pairs on the stack
WIDE = 256  # FG_DSP_WIDE: the shift field's flag for a channel that needs the 64-bit product


def tflite_outputs(acc: np.ndarray, multipliers: np.ndarray, shifts: np.ndarray, call: KernelCall) -> np.ndarray:
    """TFLite's output stage (MultiplyByQuantizedMultiplier, zero point, clamp) of int64 accumulators within int32,
    for right shifts (shift <= 0)."""
    product = acc * multipliers
    nudge = np.where(product >= 0, 1 << 30, 1 - (1 << 30))
    total = product + nudge
    high = np.where(total >= 0, total >> 31, -((-total) >> 31))  # C's division by 2^31: towards zero
    exponent = -shifts
    mask = (np.int64(1) << exponent) - 1
    threshold = (mask >> 1) + (high < 0)
    scaled = (high >> exponent) + ((high & mask) > threshold)
    _, output_zp, low, top = call.params["requant"][:4]
    return np.clip(scaled + output_zp, low, top)


def channel_constants(graph: Graph, op: Operator, call: KernelCall, taps: np.ndarray,
                      folded_bias: np.ndarray | None = None) -> np.ndarray:
    """[channels, 4] int32 fg_dsp_channel rows for the [channels, taps] filter (see the module's docstring); the
    folded bias from the call's table unless given."""
    channels = taps.shape[0]
    output_zp = call.params["requant"][1]
    multipliers = np.broadcast_to(call_table(call, "multipliers").astype(np.int64), (channels,))
    shifts = np.broadcast_to(call_table(call, "shifts").astype(np.int64), (channels,))
    # The portable lowering pads its folded bias to whole groups of channels: one entry per channel here.
    folded = (call_table(call, "folded_bias") if folded_bias is None else folded_bias).astype(np.int64)[:channels]
    weights = taps.astype(np.int64)  # the kernels' accumulator: folded bias + taps . raw inputs in [-128, 127]
    lowest = folded + np.minimum(-128 * weights, 127 * weights).sum(axis=1)
    highest = folded + np.maximum(-128 * weights, 127 * weights).sum(axis=1)
    bound = np.maximum(np.abs(lowest), np.abs(highest))
    right = np.clip(-shifts, 1, 31)
    offsets = (np.int64(1) << (right - 1)) + (np.int64(output_zp) << right)
    high_mul = (np.minimum(bound, INT32_LIMIT) * multipliers >> 31) + 1  # |v| cannot exceed it
    narrow = (shifts <= -1) & (shifts >= -31) & (2 * bound < INT32_LIMIT) & (
        high_mul + 1 + np.abs(offsets) < INT32_LIMIT)
    rows = np.stack([folded, multipliers, np.where(narrow, offsets, shifts), np.where(narrow, right, WIDE)], axis=1)
    # A channel whose output stage (monotonic in the accumulator) gives one value over the whole range, as a dead
    # channel's huge bias does: multiplier 0, the value in offset (v = 0, shift 1), narrow whatever its bias.
    fits = (shifts <= 0) & (lowest >= -INT32_LIMIT) & (highest < INT32_LIMIT)
    first = tflite_outputs(np.where(fits, lowest, 0), multipliers, np.minimum(shifts, 0), call)
    last = tflite_outputs(np.where(fits, highest, 0), multipliers, np.minimum(shifts, 0), call)
    constant = fits & (first == last)
    rows[constant] = np.stack([folded[constant], 0 * folded[constant], 2 * first[constant],
                               np.ones_like(first[constant])], axis=1)
    return rows.astype(np.int32)


def interleaved_pairs(taps: np.ndarray) -> np.ndarray:
    """[channels, depth] int8 or int16 -> per channel pair (A, B) and input pair g with depths (k0, k1) (fg/isa/dsp.h)
    the int16 pair words (A[k0], A[k1]) and (B[k0], B[k1]), as int32: depth padded to a multiple of 8 and the channels
    to an even count, with zeros."""
    channels, depth = taps.shape
    padded = np.zeros((channels + channels % 2, -(-depth // 8) * 8), np.int16)
    padded[:channels, :depth] = taps
    pairs = padded.shape[0] // 2
    quads = padded.reshape(pairs, 2, -1, 4)[:, :, :, [0, 2, 1, 3]]  # (k0, k1) = (4q, 4q+2), (4q+1, 4q+3)
    ordered = quads.reshape(pairs, 2, -1, 2, 2).transpose(0, 2, 3, 1, 4)  # [pair, q, g, channel, half]
    return np.ascontiguousarray(ordered).reshape(-1).view("<i4").astype(np.int32)


def packed_call(call: KernelCall, variant: Variant, constants: np.ndarray, words: np.ndarray,
                inputs: list[int]) -> KernelCall:
    """The variant's call: `packed` points at the channel constants followed by the words. The portable kernels'
    register-blocked and paired copies of the weights (params `blocked`, `paired_weights`, tables
    `blocked_weights`, `paired_weights`) are left out: the variants never read them, and they would cost the
    weights' size again in flash."""
    table = ConstTable("dsp_packed", "int32_t", np.concatenate([constants.ravel(), words]).astype(np.int32))
    params = {**call.params, "packed": TableRef(table.suffix)}
    if "blocked" in params:
        params["blocked"] = ("0", *([0] * (len(params["blocked"]) - 1)))  # NULL and zeros
    if "paired_weights" in params:
        params["paired_weights"] = "0"  # NULL
    kept = [t for t in call.tables if t.suffix not in ("blocked_weights", "paired_weights")]
    return renamed(call, variant, params=params, tables=[*kept, table], inputs=inputs)


def conv_taps(graph: Graph, op: Operator) -> np.ndarray:
    """A CONV_2D's filter as [outputs, taps] int8."""
    weights = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8)
    return weights.reshape(weights.shape[0], -1)


def padded_row(filter_h: int, row: int, outputs: int) -> int:
    """The im2col kernel's bytes per filter row (fg_conv2d_folded_dsp): row rounded up to whole words (windows then
    read straight from the image) unless the blocks of 8 depths that adds, times the outputs, exceed 8."""
    words = -(-row // 4) * 4
    return words if (-(-filter_h * words // 8) + (filter_h * row // -8)) * outputs <= 8 else row


def rows_padded(weights: np.ndarray) -> np.ndarray:
    """[outputs, filter_h, filter_w, in_c] -> [outputs, filter_h * padded_row]: each filter row's taps padded with
    zeros, the im2col kernel's depth order (a 1x1 filter: unchanged once the depth is padded to 8)."""
    outputs, filter_h = weights.shape[:2]
    taps = weights.reshape(outputs, filter_h, -1)
    padded = np.zeros((outputs, filter_h, padded_row(filter_h, taps.shape[2], outputs)), np.int8)
    padded[:, :, :taps.shape[2]] = taps
    return padded.reshape(outputs, -1)


def tile_table(graph: Graph, op: Operator, call: KernelCall, taps: np.ndarray, padded: np.ndarray,
               folded: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The 3 x 2 tile's channel constants and weight words (interleaved_pairs) for the [channels, taps] filter and its
    kernel's depth order `padded`: a narrow channel's bias and weights doubled (doubled_constants), so that the tile's
    output stage is SMMULR or SMMLAR without a shift."""
    constants, narrow = doubled_constants(graph, op, call, taps, folded)
    doubled = padded.astype(np.int16) * np.where(narrow, 2, 1).astype(np.int16)[:, None]
    return constants, interleaved_pairs(doubled)


def _tiled(variant_name: str):
    """The specializer of a CONV_2D variant on the 3 x 2 tile (1x1 or im2col: the same weight layout)."""
    def specialize(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
        padded = rows_padded(np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8))
        if padded.shape[1] > MAX_DEPTH:
            return None
        constants, words = tile_table(graph, op, call, conv_taps(graph, op), padded)
        return packed_call(call, globals()[variant_name], constants, words, [op.inputs[0], -1])
    return specialize


def doubled_constants(graph: Graph, op: Operator, call: KernelCall, taps: np.ndarray,
                      folded_bias: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """channel_constants with a narrow channel's bias doubled (its int16 weights are doubled too: the accumulator is
    2 acc, which fits, and SMMULR alone is the high multiply), and which channels are narrow."""
    constants = channel_constants(graph, op, call, taps, folded_bias).astype(np.int64)
    narrow = constants[:, 3] != WIDE
    constants[:, 0] = np.where(narrow, constants[:, 0] * 2, constants[:, 0])
    return (constants & 0xFFFFFFFF).astype(np.uint32).view(np.int32), narrow  # a dead channel's doubled bias wraps


def _depthwise_one_channel(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """A DEPTHWISE_CONV_2D of one input channel (any filter, multiplier, stride, dilation) is the CONV_2D of
    depth_multiplier filters [h, w, 1]: the im2col tile's layout."""
    if call.params["in_c"] != 1 or not constant_operands(graph, op):
        return None
    filters = _one_channel_filters(graph, op)
    if filters is None:
        return None
    taps = filters.reshape(filters.shape[0], -1)
    folded = folded_bias(graph, op, graph.tensors[op.inputs[0]], taps).values
    constants, words = tile_table(graph, op, call, taps, rows_padded(filters), folded)
    return packed_call(call, DEPTHWISE_ONE_CHANNEL, constants, words, [op.inputs[0]])


def _one_channel_filters(graph: Graph, op: Operator) -> np.ndarray | None:
    """A one-channel depthwise's filter [1, h, w, m] as the CONV_2D filters [m, h, w, 1]; None when too deep."""
    weights = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8)
    filters = np.ascontiguousarray(weights.transpose(3, 1, 2, 0))
    return None if rows_padded(filters).shape[1] > MAX_DEPTH else filters


def _one_channel_conv(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """fg_depthwise_conv2d_one_channel_s8: the portable lowering already made it a CONV_2D call (fg_conv2d_params,
    its folded bias): the im2col tile runs it as it is."""
    filters = _one_channel_filters(graph, op)
    if filters is None:
        return None
    constants, words = tile_table(graph, op, call, filters.reshape(filters.shape[0], -1), rows_padded(filters))
    return packed_call(call, FOLDED_ONE_CHANNEL, constants, words, [op.inputs[0], -1])


def extended_pairs(taps: np.ndarray) -> np.ndarray:
    """[outputs, depth] int16 -> the weights as int16 pairs (k0, k1) in fg_dsp_extend's order, the depth padded to a
    multiple of 16 (fg_fully_connected_dsp's pass) and the outputs to a multiple of 4 with zeros, as int32 words:
    per four outputs and per 8 depths, each output's 4 words in turn (one LDM each in the kernel's pass)."""
    outputs, depth = taps.shape
    padded = np.zeros((-(-outputs // 4) * 4, -(-depth // 16) * 16), np.int16)
    padded[:outputs, :depth] = taps
    ordered = padded.reshape(len(padded), -1, 2, 2).transpose(0, 1, 3, 2)  # [out, q, (x0 x2) | (x1 x3), half]
    fours = ordered.reshape(len(padded) // 4, 4, -1, 8).transpose(0, 2, 1, 3)  # [four, 8 depths, out, halves]
    return np.ascontiguousarray(fours).reshape(-1).view("<i4").astype(np.int32)


def _fully_connected(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8)
    taps = taps.reshape(call.params["out_depth"], -1)
    if taps.shape[1] > FC_MAX_DEPTH:
        return None
    constants, narrow = doubled_constants(graph, op, call, taps)
    doubled = taps.astype(np.int16) * np.where(narrow, 2, 1).astype(np.int16)[:, None]
    flagged = np.concatenate([[int(narrow.all())], constants.ravel()]).astype(np.int32)  # every channel narrow
    return packed_call(call, FULLY_CONNECTED, flagged, extended_pairs(doubled), [op.inputs[0], -1])


def _add(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    shapes = [tuple(graph.tensors[i].shape) for i in (*op.inputs[:2], op.outputs[0])]
    if shapes[0] != shapes[2] or shapes[1] != shapes[2]:
        return None  # broadcasting
    if call.params["left_shift"] > 20 or not -31 <= call.params["output_shift"] <= 0:
        return None
    return renamed(call, ADD)


POINTWISE = Variant("fg_conv2d_pointwise_dsp", "fg_conv2d_pointwise_s8", REQUIRES, _tiled("POINTWISE"),
                    "3 pixels x 2 channels per SMLAD tile: inputs sign-extended by SXTB16, int16 weight pairs in "
                    "SXTB16's order; SMMULR output stage")
FOLDED = Variant("fg_conv2d_folded_dsp", "fg_conv2d_folded_s8", REQUIRES, _tiled("FOLDED"),
                 "im2col of 3 pixels, then the 3 x 2 SMLAD tile; SMMULR output stage")

DEPTHWISE_ONE_CHANNEL = Variant("fg_depthwise_conv2d_dsp", "fg_depthwise_conv2d_s8", REQUIRES, _depthwise_one_channel,
                                "one input channel as a CONV_2D of depth_multiplier filters: im2col + 3 x 2 SMLAD tile")

FOLDED_ONE_CHANNEL = Variant("fg_conv2d_folded_dsp", "fg_depthwise_conv2d_one_channel_s8", REQUIRES,
                             _one_channel_conv, "one-channel depthwise as its CONV_2D: im2col + 3 x 2 SMLAD tile")

FULLY_CONNECTED = Variant("fg_fully_connected_dsp", "fg_fully_connected_folded_s8", REQUIRES, _fully_connected,
                          "row extended once, 4 outputs per LDM + SMLAD pass on doubled int16 weights, SMMULR output "
                          "stage")

ADD = Variant("fg_add_dsp", "fg_add_s8", REQUIRES, _add,
              "each input's 256 rescaled values tabulated once per call, SMMULR output stage")

VARIANTS = [POINTWISE, FOLDED, DEPTHWISE_ONE_CHANNEL, FOLDED_ONE_CHANNEL, FULLY_CONNECTED, ADD]
