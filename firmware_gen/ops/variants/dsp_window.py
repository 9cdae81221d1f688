"""Armv7E-M (DSP extension) variants of the window operators: the 3x3 depthwise convolution (channel by channel on
int16 rows for wide rows, four channels per word otherwise) and the average pool. Layouts: the kernels'
runtime_c/kernels/depthwise_conv2d_*_dsp.c, avg_pool2d_dsp.c; the channel constants: dsp.py.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant, renamed
from firmware_gen.ops.variants.dsp import REQUIRES, call_table, doubled_constants, packed_call

DW_ROW_MAX = 256  # FG_DSP_DW_ROW_MAX: a ring row's columns (five rows of int16 on the stack)
# Rows at least this wide run channel by channel on int16 rows (measured on vww's 48- and 24-wide layers: 3.1 and
# 3.6 instructions per MAC against 4.6 and 4.0); narrower ones lose more to each row's and channel's setup.
PLANAR_MIN_WIDTH = 24
DW_RING_COLUMNS = 62  # FG_DSP_DW_RING_COLUMNS: a ring row's pixels (LDRD's immediate offsets reach three rows)
DW_MAX_CHANNELS = 1024  # FG_DSP_DW_MAX_CHANNELS: the depthwise kernel's row of zero points on the stack
POOL_MAX_WINDOW = 255  # the int16 halves of fg_avg_pool2d_dsp's sums


def depthwise_words(taps: np.ndarray) -> np.ndarray:
    """[channels, 9] int8 (channels a multiple of 4) -> per group of four channels c..c+3 and tap t the int16 pair
    words (w_t[c], w_t[c+2]) and (w_t[c+1], w_t[c+3]), as int32."""
    groups = taps.astype(np.int16).reshape(-1, 2, 2, 9)  # [group, high half, odd channel, tap]
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


def _ring_depthwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """fg_depthwise_conv2d_3x3_ring_dsp's table: per group of four channels its 18 weight words (depthwise_words,
    doubled), the four doubled biases, each channel's multiplier, offset and shift (34 words)."""
    p = call.params
    if (p["dilation_h"], p["dilation_w"]) != (1, 1) or p["stride_w"] not in (1, 2) or ring_columns(p) > DW_RING_COLUMNS:
        return None
    _, _, low, high = p["requant"][:4]
    if p["in_c"] % 4 or p["in_c"] > DW_MAX_CHANNELS or (low, high) != (-128, 127):
        return None
    taps = call_table(call, "channel_taps").reshape(p["in_c"], 9)
    constants, narrow = doubled_constants(graph, op, call, taps)
    if not narrow.all():
        return None  # the ring's assembly has no wide channel's output stage: fg_depthwise_conv2d_3x3_dsp runs it
    groups = np.concatenate([depthwise_words(taps.astype(np.int16) * 2).reshape(-1, 18),
                             constants[:, 0].reshape(-1, 4), constants[:, 1:].reshape(-1, 12)], axis=1)
    return packed_call(call, RING_DEPTHWISE, np.zeros((0, 4), np.int32), groups.ravel(), [op.inputs[0]])


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
                         "4 channels at a time over the image, rows sign-extended once into a ring, 9 taps of LDRD + "
                         "SMLABB/SMLATT on doubled int16 weight pairs, SMMULR output stage")
PLANAR_DEPTHWISE = Variant("fg_depthwise_conv2d_planar_dsp", "fg_depthwise_conv2d_3x3_s8", REQUIRES,
                           _planar_depthwise, "channel by channel on int16 rows, 2 outputs per pass of SMLAD on "
                           "paired taps, SMMULR output stage on doubled weights")
DEPTHWISE = Variant("fg_depthwise_conv2d_3x3_dsp", "fg_depthwise_conv2d_3x3_s8", REQUIRES, _depthwise,
                    "4 channels per word, SXTB16 + SMLABB/SMLATT on doubled int16 weight pairs, SMMULR output stage")

AVERAGE_POOL = Variant("fg_avg_pool2d_dsp", "fg_avg_pool2d_s8", REQUIRES, _average_pool,
                       "windows summed 4 channels per word (SXTAB16 into int16 halves)")

VARIANTS = [RING_DEPTHWISE, PLANAR_DEPTHWISE, DEPTHWISE, AVERAGE_POOL]
