"""DSP-extension variant of the 4-bit-weight CONV_2D (Cortex-M4, M7, M33; a Helium one is chosen first on an M55):
runtime_c/kernels/convolution/conv2d_s4_dsp.c, the int8 variants' three-pixel SMLAD tile on weights unpacked a block of
channel pairs at a time and reused by a block of pixels. FULLY_CONNECTED takes the Armv7-M variant (armv7m_4bit): one
row has no pixels to share an unpacking with, and its SMLAL pairs cost fewer instructions per product than unpacking
to int16 lanes.

The weights are one word per four depths per channel pair (A, B), the window's taps to a multiple of 8 (zero weights
past it): nibble k the weight + 8 of the low lane of the int8 layout's word k, nibble 4 + k its high lane's, the words
being (A[4q], A[4q+2]), (B[4q], B[4q+2]), (A[4q+1], A[4q+3]), (B[4q+1], B[4q+3]) (dsp.py), so that shifted by 4k,
masked with 0x000F000F and SSUB16 of 8 a word is word k. Weight bytes: 4 per 8 weights, TFLite's ceil(n / 2) when the
window's taps are a multiple of 8 and out_c even; before them each channel's fg_dsp_channel (16 bytes: the int8
variants' output stage), which replaces the folded bias and the per-channel multipliers and shifts.
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


LANES = (0, 4, 1, 5, 2, 6, 3, 7)  # the nibble of each of the eight weights below, in order


def unpacking_words(weights: np.ndarray) -> np.ndarray:
    """[channels, taps] 4-bit values -> uint32 words [channel pairs][ceil(taps / 8) * 2] (module docstring; an odd
    last channel paired with a zero one)."""
    channels, taps = weights.shape
    depth = -(-taps // 8) * 8
    padded = np.zeros((channels + channels % 2, depth), np.int64)
    padded[:channels, :taps] = weights
    a, b = padded[0::2].reshape(-1, depth // 4, 4), padded[1::2].reshape(-1, depth // 4, 4)
    # per word: A[4q], A[4q+2], B[4q], B[4q+2], A[4q+1], A[4q+3], B[4q+1], B[4q+3] into nibbles 0, 4, 1, 5, 2, 6, 3, 7
    ordered = np.stack([a[..., 0], a[..., 2], b[..., 0], b[..., 2], a[..., 1], a[..., 3], b[..., 1], b[..., 3]], -1)
    shifts = (4 * np.asarray(LANES, np.uint64)).astype(np.uint64)
    return ((ordered + 8).astype(np.uint64) << shifts).sum(axis=-1).astype(np.uint32).ravel()


def _paired_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int) -> KernelCall:
    """The call with `packed` the channels' fg_dsp_channel constants (dsp.channel_constants: the int8 variants'
    SMMULR output stage) then the unpacking words; the portable packed rows and folded bias left out."""
    weights = weights_4bit(graph, op, out_c)
    constants = channel_constants(graph, op, call, weights).ravel().astype(np.int64)
    words = unpacking_words(weights).view("<i4").astype(np.int64)
    table = ConstTable("dsp_packed", "int32_t", np.concatenate([constants, words]).astype(np.int32))
    dropped = {call.params["packed"].suffix, call.params["folded_bias"].suffix}
    params = {**call.params, "packed": TableRef(table.suffix), "folded_bias": "0"}
    return renamed(call, variant, params=params, tables=[*(t for t in call.tables if t.suffix not in dropped), table])


VARIANTS = conv_and_fully_connected("dsp", REQUIRES, _paired_call, GATHER_TAPS, "4-bit weights: unpacked a block of "
                                    "channel pairs at a time into the int8 tile's int16 pairs, reused by a block of "
                                    "pixels")[:1]
