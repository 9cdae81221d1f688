"""Armv7-M variants of the 4-bit-weight CONV_2D and FULLY_CONNECTED (every core from the M3 on; a Helium one is chosen
first where it fits, and the DSP ones on DSP cores, FULLY_CONNECTED for rows of up to 2048 inputs):
runtime_c/kernels/support/gemm_s4_armv7m.c.

The weights are channel-pair bytes (pair_4bit.pack_channel_pairs: 16 w_c + (w_c+1 + 8)), four pairs (eight channels)
per tap word: rotated and masked with 0xF000000F, a word is one channel's two's-complement nibble at the top and the
next pair's w + 8 at the bottom, a multiplier whose 64-bit SMLAL sum holds both channels exactly (4 AND + 4 SMLAL + 2
loads per 8 products, no lane splitting). Weight bytes: 4 per tap per group of eight channels, TFLite's ceil(n / 2)
when out_c is a multiple of 8 (a last short group is padded with zero channels). Before them: a word saying whether
every channel's output stage is the one-SMLAL one (a right shift of 2 to 31), then each channel's constants for it
(fg_fast_channel: multiplier, 2^(r-2), r - 1; 12 bytes, one entry for a per-tensor stage), so that the kernel derives
none at run time.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import ARMV7M
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, call_table, renamed
from firmware_gen.ops.variants.armv6m import GATHER_TAPS
from firmware_gen.ops.variants.pair_4bit import conv_and_fully_connected, pack_channel_pairs, weights_4bit

REQUIRES = frozenset({ARMV7M})
GROUP = 8  # channels per tap word
MAX_TAPS = 65536  # FG_S4_ARMV7M_MAX_TAPS: the bottom field of a sum stays exact


def pair_words(weights: np.ndarray) -> np.ndarray:
    """[channels, taps] 4-bit values -> uint32 [groups of eight channels][taps]: byte j of a word the pair bytes of
    channels (2j, 2j + 1) of the group at that tap (zero channels padding the last group)."""
    channels, taps = weights.shape
    padded = np.zeros((-(-channels // GROUP) * GROUP, taps), np.int8)
    padded[:channels] = weights
    pairs = pack_channel_pairs(padded).view(np.uint8).reshape(-1, GROUP // 2, taps)
    return np.ascontiguousarray(pairs.transpose(0, 2, 1)).view("<u4").astype(np.uint32).ravel()


def fast_channels(call: KernelCall, out_c: int) -> np.ndarray:
    """int32 [1 + 3 * entries]: 1 when every channel's shift is a right shift r in [2, 31], then per entry (one per
    channel padded to whole groups, or one for a per-tensor stage) (multiplier, 2^(r - 2), r - 1), zeros for the
    padding and any other shift."""
    multipliers = call_table(call, "multipliers").astype(np.int64)
    right = -call_table(call, "shifts").astype(np.int64)
    entries = -(-out_c // GROUP) * GROUP if multipliers.size > 1 else 1
    fast = (right >= 2) & (right <= 31)
    rows = np.zeros((entries, 3), np.int64)
    rows[:multipliers.size] = np.where(fast[:, None], np.stack(
        [multipliers, np.left_shift(1, np.clip(right - 2, 0, 29)), right - 1], axis=1), 0)
    return np.concatenate([[int(fast.all())], rows.ravel()]).astype(np.int32)


def _pair_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int) -> KernelCall:
    """The call with `packed` the output stage's constants then the pair words (the portable packed rows left out)."""
    words = pair_words(weights_4bit(graph, op, out_c))
    table = ConstTable("packed_words", "uint32_t",
                       np.concatenate([fast_channels(call, out_c).view(np.uint32), words]).astype(np.uint32))
    kept = [t for t in call.tables if t.suffix != call.params["packed"].suffix]
    return renamed(call, variant, params={**call.params, "packed": TableRef(table.suffix)}, tables=[*kept, table])


VARIANTS = conv_and_fully_connected("armv7m", REQUIRES, _pair_call, GATHER_TAPS, "4-bit weights: one input x eight "
                                    "channels per tap word, two channel-pair nibbles per SMLAL into 64-bit sums",
                                    depth_max=MAX_TAPS)
