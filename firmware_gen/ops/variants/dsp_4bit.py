"""DSP-extension variant of the 4-bit-weight CONV_2D (Cortex-M4, M7, M33; a Helium one is chosen first on an M55):
runtime_c/kernels/support/gemm_s4_dsp.c. FULLY_CONNECTED takes the Armv7-M variant (armv7m_4bit): one row has no
pixels to share the unpacking with, and its SMLAL pairs cost no more per product than SMLAD on unpacked lanes.

The weights are channel-pair bytes (pair_4bit.pack_channel_pairs: 16 w_c + (w_c+1 + 8)), per channel pair the
window's depths in order, four to a word (zeros past the window, to a multiple of 8): SXTB16 of a word, and of it
rotated by 8, are the int16 pairs that meet fg_dsp_extend's input pairs, their low nibbles the second channel's.
Weight bytes: one per depth per channel pair, TFLite's ceil(n / 2) when the window's taps are a multiple of 8 and the
channels even; before them each channel's fg_dsp_channel (16 bytes: the int8 variants' output stage), which replaces
the folded bias and the per-channel multipliers and shifts.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import DSP
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, renamed
from firmware_gen.ops.variants.armv6m import GATHER_TAPS
from firmware_gen.ops.variants.dsp import channel_constants
from firmware_gen.ops.variants.pair_4bit import conv_and_fully_connected, pack_channel_pairs, weights_4bit

REQUIRES = frozenset({DSP})


def pair_rows(weights: np.ndarray) -> np.ndarray:
    """[channels, taps] 4-bit values -> uint32 words [channel pairs][ceil(taps / 8) * 2]: the pair bytes of each
    channel pair, depth by depth (zeros padding the depths to a multiple of 8)."""
    pairs = pack_channel_pairs(weights.astype(np.int8))
    depth = -(-weights.shape[1] // 8) * 8
    padded = np.zeros((pairs.shape[0], depth), np.int8)
    padded[:, :weights.shape[1]] = pairs
    return padded.view("<u4").astype(np.uint32).ravel()


def _paired_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int) -> KernelCall:
    """The call with `packed` the channels' fg_dsp_channel constants (dsp.channel_constants: the int8 variants'
    SMMULR output stage) then the pair rows; the portable packed rows and folded bias left out."""
    weights = weights_4bit(graph, op, out_c)
    constants = channel_constants(graph, op, call, weights).ravel().astype(np.int64)
    words = pair_rows(weights).view("<i4").astype(np.int64)
    table = ConstTable("dsp_packed", "int32_t", np.concatenate([constants, words]).astype(np.int32))
    dropped = {call.params["packed"].suffix, call.params["folded_bias"].suffix}
    params = {**call.params, "packed": TableRef(table.suffix), "folded_bias": "0"}
    return renamed(call, variant, params=params, tables=[*(t for t in call.tables if t.suffix not in dropped), table])


VARIANTS = conv_and_fully_connected("dsp", REQUIRES, _paired_call, GATHER_TAPS, "4-bit weights: three pixels x a "
                                    "channel pair per pass, pair bytes and their low nibbles as SMLAD lanes")[:1]
