"""Helium (MVE) variants of the 4-bit-weight CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED.

The convolutions and FULLY_CONNECTED run the int8 variants' windows, pixels and batches in pairs against two 4-bit GEMM
layouts, both mve.py's GEMM layout at half the weight bytes (per block of four output channels its quant block, then
per 16 taps two 16-byte vectors, channels (0, 1) then (2, 3), byte t holding tap t of both channels of a pair; zero
bytes past the row), with the int8 assembly loop's structure (fg_mve_gemm_blocks2_s4, _s4_offset; the last channels
and a lone row in gemm_s4_mve.c):

Signed layout: byte t holds the pair's second channel in its high nibble and its first in its low one, both two's
complement. VSHR.S8 #4 gives the second channel's taps, VSHL.I8 #4 16 times the first's: two shifts per 32 weights on
top of the int8 loop (16 instructions per step of 2 rows x 4 channels x 16 taps against its 14), nothing per row. The
first channels' sums come out x 16: their quant block holds 16 x bias and left shift - 4 (VSHL by a negative amount is
an exact right shift of a multiple of 16; by a positive one the int8 left shift of 16 x sum); where no channel shifts
left the loop takes those shifts (-4, 0, -4, 0) from a register: 2 instructions per block more than the int8 loop.

Offset layout: the first channel + 8 in the low nibble, so read as int8 a byte is exactly 16 B + A + 8 and its
VSHR.S8 #4 is B: the loop multiplies the bytes as loaded (into A's accumulator) and after one shift (into B's), 14
instructions per step as the int8 loop's; per block about 6 more (A's accumulator less 16 x B's, four scalar
subtractions, and the bias added as a vector: the accumulators start at -8 x the row's sum, one LDM from the state),
per row its sum (taken as a window or pixel is copied). The better one for long rows (offset_is_shorter);
FULLY_CONNECTED always.

Where the int8 variants run their faster structures, so do these: a 1x1 layer of rows up to 64 taps holds each pair
of rows in registers (fg_mve_resident_pairs_s4, offset layout), a windowed one without dilation across reads its
windows in place from a band of columns (fg_conv2d_columns_s4_mve, the signed layout's pairs of a row in one call; the
offset one's window sums from the columns'), FULLY_CONNECTED's lone row runs eight channels a pass
(fg_mve_gemm_row8_s4).

The signed one scales a channel's accumulator by 16, which needs 16 x |bias + sum| < 2^31: a layer whose bias is within
2^27 - 128 x sum |w| of it on every channel (any real one) may take it, any other takes the offset one, whose sums wrap
as the int8 loop's do (its result the same int32 as TFLM's).
Weight bytes: ceil(depth / 16) * 8 per channel (TFLite's ceil(n / 2) when depth is a multiple of 16 and out_c of 4),
plus the quant block's 16 bytes per channel, which replace the folded bias and the per-channel multipliers and shifts.

The 3x3 depthwise kernel (depthwise_layout_4bit) runs sixteen channels per vector with int16 sums: 72 nibble bytes per
group of sixteen channels (ceil(n / 2) when the channels are a multiple of 16), and the four quant blocks. A padded
layer of fewer channels (gathered_fits) takes the int8 kernel's banded path instead (depthwise_gathered_layout_4bit:
per channel its taps 0-7 dotted as int16 lanes, unpacked from nibble pairs by three shifts a pair; 20 bytes per four
channels, tap 8 unpacked to a byte each, against TFLite's 18).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant
from firmware_gen.ops.variants.mve import (
    COLUMN_BAND_MAX,
    COLUMN_MIN_CHANNELS,
    DEPTHWISE_MAX,
    REQUIRES,
    ROW_MAX,
    _as_words,
    _blocks,
    _table,
    _with_packed,
    quant_blocks,
)
from firmware_gen.ops.variants.pair_4bit import weights_4bit

DEPTH_MAX = 1 << 16  # FULLY_CONNECTED's rows: 8 x |sum x| < 2^31 (gemm_s4_mve.c)
RESIDENT_MAX = 64  # fg_mve_resident_pairs_s4's rows (conv2d_pointwise_mve.c)
GATHERED_BAND_MAX = 4096  # FG_DW_BAND_MAX (depthwise_conv2d_3x3_mve.c)
SCALED_MAX = 1 << 27  # 16 x |bias + sum| < 2^31: the 4-bit GEMM layouts' bound on a channel's accumulator


def _nibble_pairs(weights: np.ndarray, low_offset: int) -> np.ndarray:
    """[blocks, steps * 32] int8: per block and step of 16 taps, channels (0, 1) then (2, 3), byte t = tap t of the
    second channel (high nibble) and of the first + low_offset (low nibble); zero bytes past the row."""
    out_c, depth = weights.shape
    steps = (depth + 15) // 16
    padded = np.zeros((_blocks(out_c) * 4, steps * 16), dtype=np.int64)
    padded[:out_c, :depth] = weights
    by_pair = padded.reshape(-1, 2, 2, steps, 16)  # [block, pair, channel of the pair, step, tap]
    nibbles = ((by_pair[:, :, 1] & 0xF) << 4) | ((by_pair[:, :, 0] + low_offset) & 0xF)  # [block, pair, step, tap]
    nibbles = nibbles * (np.arange(steps * 16).reshape(steps, 16) < depth)
    return nibbles.transpose(0, 2, 1, 3).astype(np.uint8).view(np.int8).reshape(_blocks(out_c), -1)


def scaled_fits(call: KernelCall, weights: np.ndarray) -> bool:
    """Whether every channel's accumulator times 16 fits int32 (int8 inputs, the folded bias)."""
    bias = np.abs(_table(call, "folded_bias")[:weights.shape[0]])
    return bool(np.all(bias + 128 * np.abs(weights).sum(axis=1) < SCALED_MAX))


def signed_gemm_layout_4bit(call: KernelCall, weights: np.ndarray) -> np.ndarray:
    """The signed 4-bit GEMM layout of weights [out_c, depth] (values in [-8, 7]; scaled_fits)."""
    quant = quant_blocks(call, weights.shape[0]).astype(np.int64)
    quant[:, 0:4:2] *= 16  # the first channel of each pair: its sums are 16 x
    quant[:, 8:12:2] -= 4
    return np.concatenate([quant.astype(np.int32), _as_words(_nibble_pairs(weights, 0))], axis=1).ravel()


def gemm_layout_4bit(call: KernelCall, weights: np.ndarray) -> np.ndarray:
    """The offset 4-bit GEMM layout of weights [out_c, depth] (values in [-8, 7]): the quant blocks as mve.py's."""
    quant = quant_blocks(call, weights.shape[0]).astype(np.int32)
    return np.concatenate([quant, _as_words(_nibble_pairs(weights, 8))], axis=1).ravel()


def offset_is_shorter(depth: int, out_c: int, sum_per_step: int) -> bool:
    """Whether the offset layout takes fewer instructions than the signed one per pair of rows (an estimate, fitted to
    counts on mps3_an547): the signed one 2 shifts per step and 2 instructions per block more than the int8 loop, the
    offset one about 6 per block, the two rows' sums (sum_per_step per step: 3 for the pointwise kernel, which copies
    one pixel of two and sums both in that loop; 4 where the windows are summed as they are copied, border windows
    after) and about 12 per pair of rows to hand the sums over."""
    steps, blocks = (depth + 15) // 16, out_c // 4
    return blocks * 6 + sum_per_step * steps + 12 < blocks * (2 * steps + 2)


def _call(graph: Graph, op: Operator, call: KernelCall, variants: tuple[Variant, Variant],
          sum_per_step: int) -> KernelCall | None:
    """The call of the signed variant, or of the offset one where it is shorter or the signed one's scaled sums would
    not fit (variants: the two)."""
    out_c = int(call.params["out_c"])
    weights = weights_4bit(graph, op, out_c)
    if offset_is_shorter(weights.shape[1], out_c, sum_per_step) or not scaled_fits(call, weights):
        return _with_packed(call, variants[1], gemm_layout_4bit(call, weights), [call.inputs[0], -1])
    return _with_packed(call, variants[0], signed_gemm_layout_4bit(call, weights), [call.inputs[0], -1])


def _pointwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    p = call.params
    if (p["filter_h"], p["filter_w"], p["stride_h"], p["stride_w"]) != (1, 1, 1, 1) or p["in_c"] > ROW_MAX:
        return None
    if p["in_c"] <= RESIDENT_MAX and p["out_c"] % 4 == 0:  # pairs of rows held in registers: offset layout
        weights = weights_4bit(graph, op, int(p["out_c"]))
        return _with_packed(call, POINTWISE_OFFSET, gemm_layout_4bit(call, weights), [call.inputs[0], -1])
    return _call(graph, op, call, (POINTWISE, POINTWISE_OFFSET), 3)


def _folded(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    p = call.params
    if p["filter_h"] * p["filter_w"] * p["in_c"] > ROW_MAX:
        return None
    return _call(graph, op, call, (FOLDED, FOLDED_OFFSET), 4)


def _columns(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    """The column-band kernel (as mve.py's, out_c a multiple of 4): each window's taps column by column."""
    p = call.params
    width = (p["out_w"] - 1) * p["stride_w"] + p["filter_w"]
    fits = p["filter_h"] * width * p["in_c"] <= COLUMN_BAND_MAX and p["out_c"] % 4 == 0
    if p["dilation_w"] != 1 or (p["in_c"] < COLUMN_MIN_CHANNELS and p["stride_w"] > 1) or not fits:
        return None
    out_c = int(p["out_c"])
    taps = weights_4bit(graph, op, out_c).reshape(out_c, p["filter_h"], p["filter_w"], -1)
    weights = taps.transpose(0, 2, 1, 3).reshape(out_c, -1)
    # the offset layout's pairs: a call each and its windows' sums (6 a step), the signed one's: a row's in one call
    if offset_is_shorter(weights.shape[1], out_c, 6) or not scaled_fits(call, weights):
        return _with_packed(call, COLUMNS_OFFSET, gemm_layout_4bit(call, weights), [call.inputs[0], -1])
    return _with_packed(call, COLUMNS, signed_gemm_layout_4bit(call, weights), [call.inputs[0], -1])


def _fully_connected(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    out_c = int(call.params["out_depth"])
    weights = weights_4bit(graph, op, out_c)
    if call.params["accum_depth"] > DEPTH_MAX:
        return None
    return _with_packed(call, FULLY_CONNECTED, gemm_layout_4bit(call, weights), [call.inputs[0], -1])


def depthwise_lanes(channels: int) -> np.ndarray:
    """The channel of each lane of the 3x3 depthwise layout's groups of 16 (-1: none). A last group of 1 to 8 channels
    holds them twice, in lanes 0 .. 7 and 8 .. 15, so the kernel runs that tail of two pixels in one vector."""
    groups, tail = channels // 16, channels % 16
    lanes = [np.arange(16 * groups)]
    if tail:
        within = np.arange(16) % 8 if tail <= 8 else np.arange(16)
        lanes.append(np.where(within < tail, 16 * groups + within, -1))
    return np.concatenate(lanes)


def depthwise_layout_4bit(call: KernelCall, taps: np.ndarray) -> np.ndarray:
    """The 3x3 depthwise layout of taps [9, channels] (values in [-8, 7]; depthwise_conv2d_3x3_s4_mve.c): per group
    of 16 lanes (depthwise_lanes) taps (0, 1) .. (6, 7) as 16 bytes each (lane j: byte j, the even tap low), tap 8 as
    8 bytes (lane 2j low in byte j, 2j + 1 high): 72 bytes, TFLite's ceil(9 x 16 / 2); then the quant blocks of lanes
    (j, j + 4, j + 8, j + 12), j = 0 .. 3, each bias, left shift, multiplier, right shift."""
    lanes = depthwise_lanes(taps.shape[1])
    groups = len(lanes) // 16
    # [channel, field]: bias, left shift, multiplier, right shift
    fields = quant_blocks(call, taps.shape[1]).reshape(-1, 4, 4)[:, [0, 2, 1, 3]].transpose(0, 2, 1).reshape(-1, 4)
    used = (lanes >= 0)[:, None]
    by_lane = np.where(used, fields[np.maximum(lanes, 0)], 0)  # [lane, field]
    blocks = by_lane.reshape(groups, 4, 4, 4).transpose(0, 2, 3, 1).reshape(groups, 64)  # [group, j, field, k]
    padded = np.where(used.T, taps[:, np.maximum(lanes, 0)], 0)
    nibbles = padded.reshape(9, groups, 16) & 0xF
    pairs = (nibbles[1:8:2] << 4) | nibbles[0:8:2]  # [pair, group, lane]
    last = (nibbles[8, :, 1::2] << 4) | nibbles[8, :, 0::2]  # [group, 8]
    weight_bytes = np.concatenate([pairs.transpose(1, 0, 2).reshape(groups, 64), last], axis=1)
    return np.concatenate([_as_words(weight_bytes.astype(np.uint8).view(np.int8)), blocks.astype(np.int32)],
                          axis=1).ravel()


def depthwise_gathered_layout_4bit(call: KernelCall, taps: np.ndarray) -> np.ndarray:
    """The 3x3 gathering layout of taps [9, channels] (a multiple of 4; values in [-8, 7]; depthwise_conv2d_3x3_mve.c's
    4-bit banded path): per four channels the quant block, taps 0-7 of channels (0, 1) then of (2, 3) as 8 bytes each
    (byte t: tap t of the second in the high nibble, of the first in the low one), tap 8 of the four as 4 bytes (its
    nibbles unpacked: the int8 loop's one widening load; 2 bytes more than ceil(36 / 2))."""
    by_block = taps.reshape(9, -1, 4).transpose(1, 2, 0)  # [block, channel, tap]
    pairs = ((by_block[:, 1::2, :8] & 0xF) << 4) | (by_block[:, 0::2, :8] & 0xF)  # [block, pair, tap]
    weight_bytes = np.concatenate([pairs.reshape(-1, 16), by_block[:, :, 8] & 0xFF], axis=1)
    return np.concatenate([quant_blocks(call, taps.shape[1]), _as_words(weight_bytes.astype(np.uint8).view(np.int8))],
                          axis=1).ravel()


def gathered_fits(p: dict) -> bool:
    """Whether the int8 3x3 kernel's banded path takes the layer (fg_dw_banded_fits: padding, channels a multiple of
    4, its band of three tap rows within 4096 bytes) and its int16 dot products beat the 16-channel vectors: fewer than
    32 channels, or fewer than 64 at stride 1 (bench/int4_shapes.py on mps3_an547)."""
    width = (p["out_w"] - 1) * p["stride_w"] + 2 * p["dilation_w"] + 1
    bottom = (p["out_h"] - 1) * p["stride_h"] - p["pad_top"] + 2 * p["dilation_h"]
    padded = p["pad_top"] > 0 or p["pad_left"] > 0 or bottom >= p["in_h"] or width - p["pad_left"] > p["in_w"]
    fewer = p["in_c"] < 32 or (p["in_c"] < 64 and p["stride_w"] == 1)
    return padded and p["in_c"] % 4 == 0 and 3 * width * p["in_c"] <= GATHERED_BAND_MAX and fewer


def _depthwise(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    p = call.params
    if (p["filter_h"], p["filter_w"], p["depth_multiplier"]) != (3, 3, 1) or p["in_c"] > DEPTHWISE_MAX:
        return None
    taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int64).reshape(9, -1)
    if gathered_fits(p):
        return _with_packed(call, DEPTHWISE_GATHERED, depthwise_gathered_layout_4bit(call, taps), [call.inputs[0], -1])
    return _with_packed(call, DEPTHWISE, depthwise_layout_4bit(call, taps), [call.inputs[0], -1])


POINTWISE = Variant("fg_conv2d_pointwise_s4_mve", "fg_conv2d_s4", REQUIRES, _pointwise,
                    "Helium, 4-bit weights, 1x1: 2 pixels x 4 channels of VMLADAVA per 16 taps on nibble pairs "
                    "(two shifts per 32 weights)", precedence=1)
POINTWISE_OFFSET = Variant("fg_conv2d_pointwise_s4_offset_mve", "fg_conv2d_s4", REQUIRES, _pointwise,
                           "Helium, 4-bit weights, 1x1: 2 pixels x 4 channels of VMLADAVA per 16 taps on nibble pairs "
                           "(one VSHR per 32 weights, the pixels' sums)")
FOLDED = Variant("fg_conv2d_s4_mve", "fg_conv2d_s4", REQUIRES, _folded,
                 "Helium, 4-bit weights: windows copied in pairs, 2 x 4 VMLADAVA on nibble pairs (two shifts per 32 "
                 "weights)")
FOLDED_OFFSET = Variant("fg_conv2d_s4_offset_mve", "fg_conv2d_s4", REQUIRES, _folded,
                        "Helium, 4-bit weights: windows copied in pairs, 2 x 4 VMLADAVA on nibble pairs (one VSHR per "
                        "32 weights, the windows' sums)")
COLUMNS = Variant("fg_conv2d_columns_s4_mve", "fg_conv2d_s4", REQUIRES, _columns,
                  "Helium, 4-bit weights: a band of the row's input columns, windows read in place in pairs, 2 x 4 "
                  "VMLADAVA on nibble pairs (two shifts per 32 weights)", precedence=1)
COLUMNS_OFFSET = Variant("fg_conv2d_columns_s4_offset_mve", "fg_conv2d_s4", REQUIRES, _columns,
                         "Helium, 4-bit weights: a band of the row's input columns, windows read in place in pairs, "
                         "2 x 4 VMLADAVA on nibble pairs (one VSHR per 32 weights, the windows' sums)", precedence=1)
FULLY_CONNECTED = Variant("fg_fully_connected_s4_mve", "fg_fully_connected_s4", REQUIRES, _fully_connected,
                          "Helium, 4-bit weights: 2 x 4 VMLADAVA on nibble pairs (one VSHR per 32 weights)")
DEPTHWISE = Variant("fg_depthwise_conv2d_3x3_s4_mve", "fg_depthwise_conv2d_s4", REQUIRES, _depthwise,
                    "Helium, 4-bit weights, 3x3 depthwise: 16 channels per vector, VMULLB / VMULLT into int16 sums")
DEPTHWISE_GATHERED = Variant("fg_depthwise_conv2d_3x3_s4_gathered_mve", "fg_depthwise_conv2d_s4", REQUIRES, _depthwise,
                             "Helium, 4-bit weights, 3x3 depthwise with padding, few channels: the int8 banded path, "
                             "taps 0-7 of a channel as int16 lanes unpacked from nibble pairs (VMLADAVA.S16)")

VARIANTS = [POINTWISE, POINTWISE_OFFSET, COLUMNS, COLUMNS_OFFSET, FOLDED, FOLDED_OFFSET, FULLY_CONNECTED, DEPTHWISE,
            DEPTHWISE_GATHERED]
