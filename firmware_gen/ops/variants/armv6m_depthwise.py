"""The Armv6-M 3x3 DEPTHWISE_CONV_2D variants (runtime_c/kernels/depthwise_convolution/depthwise_conv2d_armv6m.c), int8
and 4-bit weights: a ring of three input rows per channel on the stack (x + 128, LDRB at constant offsets), within
RING_BYTES. Where the ring of every channel fits, one pass over the image (any overlap of output over input the
planner allows); where it does not, the blocked entries: blocks of as many channels as fit (a multiple of four, at
least four), each over the whole image, when the output may be written channel by channel, else the portable 3x3
kernel on the filter unpacked to the stack (9 bytes a channel, at most RING_BYTES: the ring's room).

Table: the layer's constants (armv6m_output.layer_constants), then int8: per channel its nine weights and its bias
(the folded bias less 128 times the weights' sum) as int32; 4-bit: the channels' biases, then the filter as
[channel][9 taps] nibbles (ceil(9 channels / 2) bytes, TFLite's count, padded to a whole word).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.nibbles import pack_int4
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.support.requantize import wrap_int32
from firmware_gen.ops.variants import Variant, call_table, renamed, whole_input_pixels
from firmware_gen.ops.variants.armv6m import REQUIRES
from firmware_gen.ops.variants.armv6m_output import accumulator_reach, layer_constants

RING_BYTES = 4096  # FG_DW_RING_BYTES: the ring of input rows on the stack
SUMS = 512  # FG_DW_SUMS: the sums of a chunk of pixels, every channel of the block of a pixel among them
BATCH = 8  # FG_DW_BATCH: 4-bit weights, the channels unpacked at a time once per chunk of an output row
BLOCK_S4 = 32  # FG_DW_BLOCK_S4: 4-bit weights, the most channels of a block unpacked once per image


def _pitch(p: dict) -> int:
    return max(p["pad_left"] + p["in_w"], (p["out_w"] - 1) * p["stride_w"] + 3)


def ring_block(p: dict) -> int:
    """The channels of a pass over the image: all of them when their ring fits RING_BYTES, else as many as fit, a
    multiple of four (0: not even four fit)."""
    fit = RING_BYTES // (3 * _pitch(p))
    return p["in_c"] if p["in_c"] <= fit else fit & ~3


def _blocked(p: dict) -> bool:
    return ring_block(p) < p["in_c"]


def _constants(call: KernelCall, taps: np.ndarray, blocked: bool) -> np.ndarray | None:
    """The layer's constants ([channels, 9] taps) where the layer suits the entry (blocked or not): stride 1 or 2, no
    dilation, the ring as the entry wants it; None where not."""
    p = call.params
    if (p["dilation_h"], p["dilation_w"]) != (1, 1) or p["stride_w"] not in (1, 2) or p["stride_h"] not in (1, 2):
        return None
    if p["pad_top"] > 3:  # fg_dw_slot's range (a 3x3 window pads at most 1 row)
        return None
    block = ring_block(p)
    if _blocked(p) != blocked or block == 0 or (blocked and 9 * p["in_c"] > RING_BYTES):
        return None
    channels = p["in_c"]
    return layer_constants(call, channels, accumulator_reach(taps, call_table(call, "folded_bias")[:channels]))


def _rounded(*sizes: int) -> int:
    return sum(-(-size // 8) * 8 for size in sizes)  # gcc rounds each allocation up to the stack's 8 bytes


def channel_major_block(p: dict, int4: bool) -> int:
    """The block where the output may be written channel by channel: besides cut to the channels whose sums of a
    whole output row fit SUMS (when at least four do), and with 4-bit weights to BLOCK_S4."""
    block, whole_rows = ring_block(p), SUMS // p["out_w"] & ~3
    block = whole_rows if block * p["out_w"] > SUMS and whole_rows >= 4 else block
    return min(block, BLOCK_S4) if int4 else block


def arrays_bytes(p: dict, int4: bool = False) -> int:
    """The stack of the kernels' variable-length arrays, as they size them, in the case that needs most: the ring of
    three input rows of a block, the sums of a chunk of pixels and (4-bit) the unpacked weights, over the blocks of
    either order of the output; blocked, the filter unpacked for the portable kernel too."""
    blocks = [channel_major_block(p, int4)] + ([] if _blocked(p) else [p["in_c"]])
    most = 0
    for block in blocks:
        chunk = min(p["out_w"], max(1, SUMS // block))
        unpacked = 0 if not int4 else block if block <= BLOCK_S4 else BATCH
        most = max(most, _rounded(block * 3 * _pitch(p), chunk * block * 4, 4 * (10 * unpacked + 1)))
    return max(most, _rounded(9 * p["in_c"])) if _blocked(p) else most


def _int8(blocked: bool):
    def specialize(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
        channels = call.params["in_c"]
        taps = call_table(call, "channel_taps").astype(np.int64).reshape(channels, 9)
        constants = _constants(call, taps, blocked)
        if constants is None:
            return None
        bias = call_table(call, "folded_bias").astype(np.int64)[:channels] - 128 * taps.sum(axis=1)
        rows = np.concatenate([taps, bias[:, None]], axis=1)
        table = ConstTable("armv6m_packed", "int32_t", np.concatenate([constants, wrap_int32(rows.ravel())]))
        params = {**call.params, "packed": TableRef(table.suffix), "channel_taps": "0"}
        kept = [t for t in call.tables if t.suffix != "channel_taps"]
        return renamed(call, DEPTHWISE_BLOCKED if blocked else DEPTHWISE, params=params, tables=[*kept, table],
                       run_time_stack=arrays_bytes(call.params))
    return specialize


def _int4(blocked: bool):
    def specialize(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
        p = call.params
        if (p["filter_h"], p["filter_w"], p["depth_multiplier"]) != (3, 3, 1):
            return None
        channels = p["in_c"]
        taps = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int64).reshape(9, channels).T
        constants = _constants(call, taps, blocked)
        if constants is None:
            return None
        bias = call_table(call, "folded_bias").astype(np.int64)[:channels] - 128 * taps.sum(axis=1)
        nibbles = np.frombuffer(pack_int4(taps), np.uint8)
        words = np.pad(nibbles, (0, -len(nibbles) % 4)).view("<i4").astype(np.int64)
        values = np.concatenate([constants, wrap_int32(bias), words]).astype(np.int32)
        table = ConstTable("armv6m_packed", "int32_t", values)
        kept = [t for t in call.tables if t.suffix != p["packed"].suffix]
        return renamed(call, DEPTHWISE_BLOCKED_4BIT if blocked else DEPTHWISE_4BIT,
                       params={**p, "packed": TableRef(table.suffix)}, tables=[*kept, table],
                       run_time_stack=arrays_bytes(p, int4=True))
    return specialize


RING = "a ring of three input rows per channel as x + 128 (LDRB at constant offsets), output rows channel by channel"
BLOCKED = ("blocks of channels whose rings fit, each over the image (the portable kernel where the output overlaps the "
           "input by part of a pixel): ")
UNPACKED = ("4-bit weights: each channel's nine nibbles unpacked once per image (blocks of at most 32 channels) where "
            "the output may be written channel by channel, else once per chunk of an output row; ")
# Each runs channel by channel only where the output lies whole pixels before the input (fg_depthwise_channel_major).
DEPTHWISE = Variant("fg_depthwise_conv2d_armv6m", "fg_depthwise_conv2d_3x3_s8", REQUIRES, _int8(False), RING,
                    overlap_granule=whole_input_pixels)
DEPTHWISE_BLOCKED = Variant("fg_depthwise_conv2d_blocked_armv6m", "fg_depthwise_conv2d_3x3_s8", REQUIRES, _int8(True),
                            BLOCKED + RING, overlap_granule=whole_input_pixels)
DEPTHWISE_4BIT = Variant("fg_depthwise_conv2d_s4_armv6m", "fg_depthwise_conv2d_s4", REQUIRES, _int4(False),
                         UNPACKED + RING, overlap_granule=whole_input_pixels)
DEPTHWISE_BLOCKED_4BIT = Variant("fg_depthwise_conv2d_blocked_s4_armv6m", "fg_depthwise_conv2d_s4", REQUIRES,
                                 _int4(True), UNPACKED + BLOCKED + RING, overlap_granule=whole_input_pixels)

VARIANTS = [DEPTHWISE, DEPTHWISE_BLOCKED, DEPTHWISE_4BIT, DEPTHWISE_BLOCKED_4BIT]
