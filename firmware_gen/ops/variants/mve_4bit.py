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
from firmware_gen.ops.variants.pair_4bit import conv_and_fully_connected, weights_4bit

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
    weights = gemm_layout_4bit(call, weights_4bit(graph, op, out_c))
    return _with_packed(call, variant, weights, [call.inputs[0], -1])


VARIANTS = conv_and_fully_connected("mve", REQUIRES, _gemm_4bit, ROW_MAX, "Helium, 4-bit weights: 2 x 4 VMLADAVA on "
                                    "nibble pairs (one VAND per 32 weights)", depth_max=DEPTH_MAX)
