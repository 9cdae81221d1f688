"""DSP-extension variants of the 4-bit-weight CONV_2D and FULLY_CONNECTED (Cortex-M4, M7, M33; a Helium one is chosen
first on an M55): runtime_c/kernels/support/gemm_s4_dsp.c.

The weights are rows of words per output channel, ceil(taps / 8) words each: word q holds taps 8q + (0, 1, 4, 5, 2, 3,
6, 7) as w + 8 in nibbles 0..7, the order in which fg_dsp_extend pairs the inputs ((x0, x2), (x1, x3), (x4, x6),
(x5, x7)): shifted by 4k and masked with 0x000F000F, the word is the int16 pair of weights that SMLAD multiplies by
input pair k. Weight bytes: 4 per 8 taps per channel, TFLite's ceil(n / 2) when the window's taps are a multiple of 8;
before them each channel's fg_dsp_channel (16 bytes: the int8 variants' output stage), which replaces the folded bias
and the per-channel multipliers and shifts.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import DSP
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, renamed
from firmware_gen.ops.variants.armv6m import GATHER_TAPS
from firmware_gen.ops.variants.dsp import channel_constants
from firmware_gen.ops.variants.pair_4bit import conv_and_fully_connected, weights_4bit

REQUIRES = frozenset({DSP})
PAIR_ORDER = (0, 1, 4, 5, 2, 3, 6, 7)  # the tap (of eight) in nibble i


def paired_nibble_rows(weights: np.ndarray) -> np.ndarray:
    """[channels, taps] 4-bit values -> uint32 words [channels][ceil(taps / 8)] (zero weights padding a row)."""
    channels, taps = weights.shape
    words = -(-taps // 8)
    padded = np.zeros((channels, words * 8), np.int64)
    padded[:, :taps] = weights
    nibbles = (padded.reshape(channels, words, 8)[:, :, PAIR_ORDER] + 8).astype(np.uint32)
    return (nibbles << (4 * np.arange(8, dtype=np.uint32))).sum(axis=2, dtype=np.uint32).ravel()


def _paired_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int) -> KernelCall:
    """The call with `packed` the channels' fg_dsp_channel constants (dsp.channel_constants: the int8 variants'
    SMMULR output stage) then the paired nibble rows; the portable packed rows and folded bias left out."""
    weights = weights_4bit(graph, op, out_c)
    constants = channel_constants(graph, op, call, weights).ravel().astype(np.int64)
    words = paired_nibble_rows(weights).view("<i4").astype(np.int64)
    table = ConstTable("dsp_packed", "int32_t", np.concatenate([constants, words]).astype(np.int32))
    dropped = {call.params["packed"].suffix, call.params["folded_bias"].suffix}
    params = {**call.params, "packed": TableRef(table.suffix), "folded_bias": "0"}
    return renamed(call, variant, params=params, tables=[*(t for t in call.tables if t.suffix not in dropped), table])


VARIANTS = conv_and_fully_connected("dsp", REQUIRES, _paired_call, GATHER_TAPS, "4-bit weights: the window extended "
                                    "to int16 pairs once, two channels per pass of SMLAD on nibble lanes")
