"""DSP-extension variants of the 4-bit-weight CONV_2D and FULLY_CONNECTED (Cortex-M4, M7, M33; a Helium one is chosen
first on an M55): runtime_c/kernels/convolution/conv2d_s4_dsp.c, the int8 variants' three-pixel SMLAD tile on weights
unpacked a block of channel pairs at a time and reused by a block of pixels; and
runtime_c/kernels/fully_connected/fully_connected_s4_dsp.c: one row has no pixels to share an unpacking with, so four
outputs' weights share each word, whose SMLAD as it is and masked three ways gives their four sums (fc_words: 7
instructions per 8 products where unpacking each SMLAD's pair of weights takes 8; SMLAD's two products an instruction
bound any layout to 4 SMLAD per 8 weights, and only one of them can take a word as loaded).

The convolution's weights are one word per four depths per channel pair (A, B), the window's taps to a multiple of 8
(zero weights past it): nibble k the weight + 8 of the low lane of the int8 layout's word k, nibble 4 + k its high
lane's, the words being (A[4q], A[4q+2]), (B[4q], B[4q+2]), (A[4q+1], A[4q+3]), (B[4q+1], B[4q+3]) (dsp.py), so that
shifted by 4k, masked with 0x000F000F and SSUB16 of 8 a word is word k. Weight bytes: 4 per 8 weights, TFLite's
ceil(n / 2) when the window's taps are a multiple of 8 and out_c even; before them each channel's fg_dsp_channel (16
bytes: the int8 variants' output stage), which replaces the folded bias and the per-channel multipliers and shifts.
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import DSP
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, renamed
from firmware_gen.ops.variants.armv6m import GATHER_TAPS
from firmware_gen.ops.variants.dsp import FC_MAX_DEPTH, WIDE, channel_constants
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


FC_LANES = ((0, 2), (1, 3), (4, 6), (5, 7))  # the depths (of 8) of each input pair's low and high halfword
FC_SAFE_CHUNK = 496  # depths whose sums split exactly whatever the weights: 4096 x 128 x 8 x 496 < 2^31
S3_LIMIT = 4095  # the most sum of |w| of a group's last output over a chunk: 4096 x 128 x 4095 < 2^31


def fc_chunk(weights: np.ndarray) -> int:
    """The depths the DSP FULLY_CONNECTED splits its sums over at once (a multiple of 16): the whole (padded) row when
    no group's last output (its weights as they are) has a sum of |w| over it above S3_LIMIT, else FC_SAFE_CHUNK."""
    padded = -(-weights.shape[1] // 16) * 16
    last = np.abs(weights[3::4].astype(np.int64)).sum(axis=1)
    return padded if padded <= FC_SAFE_CHUNK or last.size == 0 or last.max() <= S3_LIMIT else FC_SAFE_CHUNK


def fc_words(weights: np.ndarray, chunk: int = FC_SAFE_CHUNK) -> np.ndarray:
    """[outputs, depth] 4-bit values -> uint32 words [chunk of `chunk` depths][group of 4 outputs][8 depths][input
    pair] (fully_connected_s4_dsp.c: the depth padded to 16 and the outputs to a multiple of 4 with zero weights;
    output k of a group in nibble k of each halfword, + 8 for k < 3, two's complement for k = 3)."""
    outputs, depth = weights.shape
    padded = np.zeros((-(-outputs // 4) * 4, -(-depth // 16) * 16), np.int64)
    padded[:outputs, :depth] = weights
    groups = padded.reshape(-1, 4, padded.shape[1])
    nibbles = np.concatenate([groups[:, :3] + 8, groups[:, 3:] & 0xF], axis=1).reshape(len(groups), 4, -1, 8)
    lanes = nibbles[..., np.array(FC_LANES)].astype(np.uint64)  # [group, output, 8 depths, pair, half]
    shifts = (4 * np.arange(4, dtype=np.uint64))[:, None, None, None] + 16 * np.arange(2, dtype=np.uint64)
    words = (lanes << shifts).sum(axis=(1, 4))  # [group, 8 depths, pair]
    chunks = [words[:, start:start + chunk // 8].ravel() for start in range(0, words.shape[1], chunk // 8)]
    return np.concatenate(chunks).astype(np.uint32)


def _paired_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int) -> KernelCall:
    """The call with `packed` the channels' fg_dsp_channel constants (dsp.channel_constants: the int8 variants'
    SMMULR output stage) then the weight words (the convolution's unpacking words, FULLY_CONNECTED's fc_words); the
    portable packed rows and folded bias left out."""
    weights = weights_4bit(graph, op, out_c)
    constants = channel_constants(graph, op, call, weights).ravel().astype(np.int64)
    if variant.replaces == "fg_fully_connected_s4":  # first whether every channel is narrow, the chunk's passes
        narrow, chunk = constants.reshape(-1, 4)[:, 3] != WIDE, fc_chunk(weights)
        constants = np.concatenate([[int(narrow.all()), chunk // 16], constants])
        words = fc_words(weights, chunk)
    else:
        words = unpacking_words(weights)
    words = words.view("<i4").astype(np.int64)
    table = ConstTable("dsp_packed", "int32_t", np.concatenate([constants, words]).astype(np.int32))
    dropped = {call.params["packed"].suffix, call.params["folded_bias"].suffix}
    params = {**call.params, "packed": TableRef(table.suffix), "folded_bias": "0"}
    return renamed(call, variant, params=params, tables=[*(t for t in call.tables if t.suffix not in dropped), table])


VARIANTS = conv_and_fully_connected("dsp", REQUIRES, _paired_call, GATHER_TAPS, "4-bit weights: unpacked a block of "
                                    "channel pairs at a time into the int8 tile's int16 pairs, reused by a block of "
                                    "pixels", depth_max=FC_MAX_DEPTH,
                                    fc_description="4-bit weights of four outputs a word: SMLAD of it as it is and "
                                    "masked three ways against the row's int16 pairs, the four sums split per chunk")
