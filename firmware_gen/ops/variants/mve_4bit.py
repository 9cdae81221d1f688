"""Helium (MVE) variants of the 4-bit-weight CONV_2D and FULLY_CONNECTED (runtime_c/kernels/support/gemm_s4_mve.c):
the int8 variants' windows and batches in pairs, against the 4-bit GEMM layout.

The layout is mve.py's GEMM layout at half the weight bytes: per block of four output channels its quant block, then
per 16 taps two 16-byte vectors, channels (0, 1) then (2, 3); byte t holds tap t of the second channel in its high
nibble and tap t of the first + 8 in its low nibble. Read as int8 a byte is then exactly 16 B + A + 8 and its low
nibble A + 8, so the int8 loop multiplies the bytes as loaded, and once more after one VAND (sum x A = low - 8 sum x,
sum x B = (raw - low) / 16). Weight bytes: ceil(depth / 16) * 8 per channel (TFLite's ceil(n / 2) when depth is a
multiple of 16 and out_c of 4), plus the quant block's 16 bytes per channel, which replace the folded bias and the
per-channel multipliers and shifts.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant
from firmware_gen.ops.variants.mve import REQUIRES, ROW_MAX, _as_words, _blocks, _with_packed, quant_blocks

DEPTH_MAX = 1 << 16  # |16 sum x B| < 2^31 (gemm_s4_mve.c)


def gemm_layout_4bit(call: KernelCall, weights: np.ndarray) -> np.ndarray:
    """The 4-bit GEMM layout of weights [out_c, depth] (values in [-8, 7])."""
    out_c, depth = weights.shape
    steps = (depth + 15) // 16
    padded = np.zeros((_blocks(out_c) * 4, steps * 16), dtype=np.int64)
    padded[:out_c, :depth] = weights
    by_pair = padded.reshape(-1, 2, 2, steps, 16)  # [block, pair, channel of the pair, step, tap]
    nibbles = ((by_pair[:, :, 1] & 0xF) << 4) | ((by_pair[:, :, 0] + 8) & 0xF)  # [block, pair, step, tap]
    ordered = nibbles.transpose(0, 2, 1, 3).astype(np.uint8).view(np.int8).reshape(_blocks(out_c), -1)
    return np.concatenate([quant_blocks(call, out_c), _as_words(ordered)], axis=1).ravel()


def _gemm_4bit(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int) -> KernelCall:
    weights = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int64).reshape(out_c, -1)
    return _with_packed(call, variant, gemm_layout_4bit(call, weights), [call.inputs[0], -1])


def _conv2d(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    p = call.params
    if p["filter_h"] * p["filter_w"] * p["in_c"] > ROW_MAX:
        return None
    return _gemm_4bit(graph, op, call, CONV_2D, int(p["out_c"]))


def _fully_connected(graph: Graph, op: Operator, call: KernelCall) -> KernelCall | None:
    if call.params["accum_depth"] > DEPTH_MAX:
        return None
    return _gemm_4bit(graph, op, call, FULLY_CONNECTED, int(call.params["out_depth"]))


CONV_2D = Variant("fg_conv2d_s4_mve", "fg_conv2d_s4", REQUIRES, _conv2d,
                  "Helium, 4-bit weights: windows copied in pairs, 2 x 4 VMLADAVA on nibble pairs (one VAND per 32 "
                  "weights)")
FULLY_CONNECTED = Variant("fg_fully_connected_s4_mve", "fg_fully_connected_s4", REQUIRES, _fully_connected,
                          "Helium, 4-bit weights: VMLADAVA on nibble pairs (one VAND per 32 weights), 4 outputs per "
                          "block")

VARIANTS = [CONV_2D, FULLY_CONNECTED]
