"""Armv7E-M (DSP extension) variants of the window operators: the 3x3 depthwise convolution (channel by channel on
int16 rows for wide rows, four channels per word otherwise) and the average pool. Layouts: the kernels'
runtime_c/kernels/depthwise_conv2d_*_dsp.c, avg_pool2d_dsp.c; the channel constants: dsp.py.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant, call_table, renamed, whole_input_pixels
from firmware_gen.ops.variants.dsp import REQUIRES, doubled_constants, packed_call

DW_ROW_MAX = 256  # FG_DSP_DW_ROW_MAX: a ring row's columns (five rows of int16 on the stack)
# Rows at least this wide run channel by channel on int16 rows (measured on vww's 48- and 24-wide layers: 3.1 and
# 3.6 instructions per MAC against 4.6 and 4.0); narrower ones lose more to each row's and channel's setup.
PLANAR_MIN_WIDTH = 24
DW_RING_COLUMNS = 62  # FG_DSP_DW_RING_COLUMNS: a ring row's pixels (LDRD's immediate offsets reach three rows)
DW_MAX_CHANNELS = 1024  # FG_DSP_DW_MAX_CHANNELS: the depthwise kernel's row of zero points on the stack
POOL_MAX_WINDOW = 255
CONV_RING_COLUMNS = 98  # FG_DSP_CONV_RING_COLUMNS
CONV_RING_MAX_OUT = 16  # FG_DSP_CONV_RING_MAX_OUT  # the int16 halves of fg_avg_pool2d_dsp's sums


def depthwise_words(taps: np.ndarray) -> np.ndarray:
    """[channels, taps] int8 (channels a multiple of 4) -> per group of four channels c..c+3 and tap t the int16 pair
    words (w_t[c], w_t[c+2]) and (w_t[c+1], w_t[c+3]), as int32."""
    groups = taps.astype(np.int16).reshape(-1, 2, 2, taps.shape[1])  # [group, high half, odd channel, tap]
    halves = groups.transpose(0, 3, 2, 1)  # [group, tap, odd channel, half]: half 0 the low int16
    return np.ascontiguousarray(halves).reshape(-1).view("<i4").astype(np.int32)


def _depthwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    channels = call.params["in_c"]
    if channels % 4 or channels > DW_MAX_CHANNELS:
        return None
    taps = call_table(call, "channel_taps").reshape(channels, 9)
    constants, narrow = doubled_constants(graph, op, call, taps)
    doubled = taps.astype(np.int16) * np.where(narrow, 2, 1).astype(np.int16)[:, None]
    return packed_call(call, DEPTHWISE, constants, depthwise_words(doubled), [op.inputs[0]])


def ring_columns(params: dict) -> int:
    """The padded row fg_depthwise_conv2d_3x3_ring_dsp's ring holds: the image's columns after the left padding, or
    the last window's end if further."""
    return max(params["pad_left"] + params["in_w"], (params["out_w"] - 1) * params["stride_w"] + 3)


def ring_fits(p: dict) -> bool:
    """Whether fg_depthwise_conv2d_3x3_ring_dsp's geometry and clamp take the layer (its channels' constants aside)."""
    if (p["dilation_h"], p["dilation_w"]) != (1, 1) or p["stride_w"] not in (1, 2) or ring_columns(p) > DW_RING_COLUMNS:
        return False
    _, _, low, high = p["requant"][:4]
    return p["in_c"] % 4 == 0 and p["in_c"] <= DW_MAX_CHANNELS and (low, high) == (-128, 127)


def _ring_depthwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """fg_depthwise_conv2d_3x3_ring_dsp's table: per group of four channels its two halves' biases, multipliers,
    offsets, shifts and doubled weight pairs (ring_groups): 34 words."""
    p = call.params
    if not ring_fits(p):
        return None
    taps = call_table(call, "channel_taps").reshape(p["in_c"], 9)
    constants, narrow = doubled_constants(graph, op, call, taps)
    if not narrow.all():
        return None  # the ring's assembly has no wide channel's output stage: fg_depthwise_conv2d_3x3_dsp runs it
    return packed_call(call, RING_DEPTHWISE, np.zeros((0, 4), np.int32), ring_groups(taps, constants), [op.inputs[0]])


def ring_group_constants(constants: np.ndarray) -> np.ndarray:
    """[groups, 16]: per group of four channels the ring kernels' constant words (fg/isa/dsp_ring.h), from
    doubled_constants: the four doubled biases, then each channel's multiplier, offset and shift."""
    return np.concatenate([constants[:, 0].reshape(-1, 4), constants[:, 1:].reshape(-1, 12)], axis=1)


def ring_groups(taps: np.ndarray, constants: np.ndarray) -> np.ndarray:
    """fg_depthwise_conv2d_3x3_ring_dsp's table for [channels, 9] weights (channels a multiple of 4, every one narrow)
    and their doubled_constants: per group of four channels c .. c + 3 two halves of 17 words, half h for channels
    c + h and c + h + 2 (the word of a ring pixel that holds them): their two doubled biases, each one's multiplier,
    offset and shift, then per tap the doubled weight pair (depthwise_words' word of that half). The quad kernel
    copies one half whole (its weights need no pointer), the pair kernel reads both."""
    groups = ring_group_constants(constants)  # [group, 16]
    words = depthwise_words(taps.astype(np.int16) * 2).reshape(len(taps) // 4, 9, 2)  # [group, tap, half]
    halves = [np.concatenate([groups[:, [h, 2 + h]], groups[:, 4 + 3 * h:7 + 3 * h],
                              groups[:, 10 + 3 * h:13 + 3 * h], words[:, :, h]], axis=1) for h in (0, 1)]
    return np.concatenate(halves, axis=1).ravel()


def _ring_conv_call(graph: Graph, op: Operator, call: KernelCall, filters: np.ndarray, variant: Variant
                    ) -> KernelCall | None:
    """fg_conv2d_3x3_ring_dsp for the CONV_2D call of `filters` [out_c, 3, 3, in_c] if the layer meets its
    preconditions (variants_dsp.h)."""
    p = call.params
    out_c, filter_h, filter_w, in_c = filters.shape
    if (filter_h, filter_w, p["dilation_h"], p["dilation_w"]) != (3, 3, 1, 1) or p["stride_w"] not in (1, 2):
        return None
    if in_c not in (1, 3) or out_c % 4 or out_c > CONV_RING_MAX_OUT or ring_columns(p) > CONV_RING_COLUMNS:
        return None
    if tuple(p["requant"][2:4]) != (-128, 127):
        return None
    taps = filters.reshape(out_c, -1)
    constants, narrow = doubled_constants(graph, op, call, taps)
    if not narrow.all():
        return None
    return packed_call(call, variant, np.zeros((0, 4), np.int32), conv_ring_groups(filters, constants),
                       [op.inputs[0], -1])


def conv_ring_groups(filters: np.ndarray, constants: np.ndarray) -> np.ndarray:
    """fg_conv2d_3x3_ring_dsp's table for [out_c, 3, 3, in_c] filters (every channel narrow): per group of four
    channels the constants of ring_groups, then (doubled int16 halves, the low one first) the taps in the order the
    kernel reads them, four words (one per channel) a tap: per pair p of window row 0's 3 in_c taps (in (column,
    channel) order) each channel's (w[0][2p], w[0][2p + 1]), row 1's pairs, the last taps of rows 0 and 1 as one
    pair (w[0][last], w[1][last]), row 2's pairs, then (w[2][last], 0)."""
    out_c = filters.shape[0]
    rows = filters.astype(np.int64).reshape(out_c, 3, -1) * 2  # [channel, row, 3 in_c taps]
    pairs = rows.shape[2] // 2
    low, high = rows[:, :, 0:2 * pairs:2], rows[:, :, 1:2 * pairs:2]
    pair_words = (low & 0xFFFF) | ((high & 0xFFFF) << 16)  # [channel, row, pair]
    last = rows[:, :, -1] & 0xFFFF  # [channel, row]
    last_two = last[:, 0:1] | (last[:, 1:2] << 16)
    taps = np.concatenate([pair_words[:, 0], pair_words[:, 1], last_two, pair_words[:, 2], last[:, 2:]], axis=1)
    groups = out_c // 4
    words = taps.reshape(groups, 4, taps.shape[1]).transpose(0, 2, 1).reshape(groups, -1)
    return np.concatenate([ring_group_constants(constants), words.astype(np.uint32).view(np.int32)], axis=1).ravel()


def _ring_conv(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    data = graph.tensors[op.inputs[1]].data
    if data is None:
        return None
    return _ring_conv_call(graph, op, call, np.asarray(data, dtype=np.int8), RING_CONV)


def _ring_one_channel(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """fg_depthwise_conv2d_one_channel_s8 is the CONV_2D of depth_multiplier filters [h, w, 1]."""
    data = graph.tensors[op.inputs[1]].data
    if data is None:
        return None
    filters = np.ascontiguousarray(np.asarray(data, dtype=np.int8).transpose(3, 1, 2, 0))
    return _ring_conv_call(graph, op, call, filters, RING_ONE_CHANNEL)


def planar_depthwise_words(taps: np.ndarray, doubled: np.ndarray) -> np.ndarray:
    """[channels, 9] int8 -> per channel and filter row i the int16 pair words A_i = (w_i0, w_i1), C_i = (w_i1,
    w_i2) (fg_depthwise_conv2d_planar_dsp), the weights doubled where `doubled`, as int32."""
    w = taps.astype(np.int64).reshape(-1, 3, 3) * np.where(doubled, 2, 1)[:, None, None]
    a = (w[:, :, 0] & 0xFFFF) | ((w[:, :, 1] & 0xFFFF) << 16)
    c = (w[:, :, 1] & 0xFFFF) | ((w[:, :, 2] & 0xFFFF) << 16)
    return np.stack([a, c], axis=2).reshape(-1).astype(np.uint32).view(np.int32)


def planar_row_len(params: dict) -> int:
    """fg_dsp_dw_row_len: the columns of one ring row."""
    pairs_end = 2 * -(-params["out_w"] // 2) + 4
    return (max(pairs_end, params["pad_left"] + params["in_w"]) + 1) & ~1


def _planar_depthwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    p = call.params
    if (p["dilation_h"], p["dilation_w"], p["stride_w"]) != (1, 1, 1) or p["stride_h"] not in (1, 2):
        return None
    if p["out_w"] < PLANAR_MIN_WIDTH or planar_row_len(p) > DW_ROW_MAX:
        return None
    taps = call_table(call, "channel_taps").reshape(p["in_c"], 9)
    constants, narrow = doubled_constants(graph, op, call, taps)
    return packed_call(call, PLANAR_DEPTHWISE, constants, planar_depthwise_words(taps, narrow), [op.inputs[0]])


def _average_pool(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    p = call.params
    if p["channels"] % 4 or p["filter_h"] * p["filter_w"] > POOL_MAX_WINDOW:
        return None
    return renamed(call, AVERAGE_POOL)


RING_DEPTHWISE = Variant("fg_depthwise_conv2d_3x3_ring_dsp", "fg_depthwise_conv2d_3x3_s8", REQUIRES, _ring_depthwise,
                         "4 channels at a time over the image, rows sign-extended once into a ring; 4 pixels x 2 "
                         "channels per pass (the weights in the stack frame), the rest in pairs of pixels; SMLABB/"
                         "SMLATT on doubled int16 weight pairs, SMMULR output stage",
                         overlap_granule=whole_input_pixels)
RING_CONV = Variant("fg_conv2d_3x3_ring_dsp", "fg_conv2d_folded_s8", REQUIRES, _ring_conv,
                    "3x3 of 1 or 3 input channels: input rows sign-extended once, 4 output channels x 2 pixels per "
                    "pass (the M7's stride 1: 1 pixel), the 4 weights of a tap loaded once a pass (SMLAD/SMLABB), "
                    "SMMULR output stage", precedence=2)  # before dsp_staged's
RING_ONE_CHANNEL = Variant("fg_conv2d_3x3_ring_dsp", "fg_depthwise_conv2d_one_channel_s8", REQUIRES, _ring_one_channel,
                           "one-channel 3x3 depthwise as its CONV_2D: the passes of the 3x3 of one input channel "
                           "(fg_conv2d_3x3_ring_dsp's)", precedence=1)
PLANAR_DEPTHWISE = Variant("fg_depthwise_conv2d_planar_dsp", "fg_depthwise_conv2d_3x3_s8", REQUIRES,
                           _planar_depthwise, "channel by channel on int16 rows, 2 outputs per pass of SMLAD on "
                           "paired taps, SMMULR output stage on doubled weights", overlap_granule=whole_input_pixels)
DEPTHWISE = Variant("fg_depthwise_conv2d_3x3_dsp", "fg_depthwise_conv2d_3x3_s8", REQUIRES, _depthwise,
                    "4 channels per word, SXTB16 + SMLABB/SMLATT on doubled int16 weight pairs, SMMULR output stage")

AVERAGE_POOL = Variant("fg_avg_pool2d_dsp", "fg_avg_pool2d_s8", REQUIRES, _average_pool,
                       "windows summed 4 channels per word (SXTAB16 into int16 halves)")

VARIANTS = [RING_CONV, RING_ONE_CHANNEL, RING_DEPTHWISE, PLANAR_DEPTHWISE, DEPTHWISE, AVERAGE_POOL]
