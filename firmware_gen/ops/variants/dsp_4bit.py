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
the bytes of a word masked with 0x0F0F0F0F are nibbles 0, 2, 4, 6 (shifted by 4: 1, 3, 5, 7), and SXTAB16 of bytes
0 and 2 (1 and 3) onto lanes of -8 gives word 0 (2; shifted: 1 and 3). Weight bytes: 4 per 8 weights, TFLite's
ceil(n / 2) when the window's taps are a multiple of 8 and out_c even; before them each channel's fg_dsp_channel (16
bytes: the int8 variants' output stage), which replaces the folded bias and the per-channel multipliers and shifts,
and before those the two blocks (dsp_blocking), whose arrays are the kernel's run-time stack.

Where every channel is narrow the biases are doubled (dsp.doubled_constants) and the kernel unpacks the weights
doubled, for the int8 variants' doubled tiles. A pointwise layer (1x1, stride 1, in_c a multiple of 4) of narrow
channels whose unpacked weights and output stages (4 bytes a tap a pair, 32 bytes a pair) fit the stack (below) runs
as the int8 pointwise kernel on them, unpacked once: one channel block, and two tiles of input pairs (x: the M7's four
pixels). Otherwise a weight is unpacked once per block of pixels (28 instructions per 32 weights) and a tile runs
once per block of channel pairs, so the blocks (dsp_blocking) are the largest the stack takes, at the least estimated
cost: a pixel block's input pairs (2 bytes an input a pixel) within SMALL_INPUTS words and a channel block's unpacked
weights within SMALL_UNPACKED, as before, on a board whose stack is smaller than DEEP_STACK (less if its stack less
STACK_RESERVE is less); on one of DEEP_STACK or more, both within all but STACK_RESERVE of it. mps2_an386 (16 KB),
8x8 pixels: 1x1 256->32 in 3 pixel blocks of 8 channel blocks (1.087x the int8 kernel's instructions per MAC), 32->64
whole (1.020x), 3x3 32->32 in 4 pixel blocks (channel blocks of 4 pairs). The blocks are evened out (as many, fewer
bytes).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import DSP
from firmware_gen.ops.base import ConstTable, KernelCall, TableRef
from firmware_gen.ops.variants import Variant, call_table, renamed
from firmware_gen.ops.variants.armv6m import GATHER_TAPS
from firmware_gen.ops.variants.dsp import FC_MAX_DEPTH, WIDE, channel_constants, doubled_constants
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


SMALL_INPUTS, SMALL_UNPACKED = 1536, 576  # words of input pairs and of unpacked weights where the stack is small
DEEP_STACK, STACK_RESERVE = 16384, 1024  # a stack that takes bigger blocks; the bytes left to everything else
# instructions: unpacking 8 depths of a channel pair, eighths; a tile's further channel block (mps2_an386, 1x1
# 256->32 at (8, 2): 24,408 unpacking 3 x 16 x 128 x 8 depths, ~10.4 k beside the int8 kernel's stores over 154
# further calls; 39 and 85 before the SXTAB16 unpacking and fg_dsp_block_tiles: the same blocks for every layer
# of bench/int4_shapes.py and tests/ops/test_pair_4bit.py)
UNPACK_EIGHTHS, CALL = 32, 67


def _evened(total: int, most: int) -> int:
    """The block that takes `total` in as few blocks of at most `most` as possible, each as small as it can be."""
    return -(-total // -(-total // most))


def _blocks(pairs: int, tiles: int, channel_pairs: int, words: int, most: tuple[int, int]) -> tuple[int, int]:
    """The pixel and channel blocks (at most `most` words of input pairs and of unpacked weights; a channel pair's
    output stages take 8 words more) whose arrays fit `words` at the least estimated cost: the weights unpacked once
    per pixel block against a tile's call per channel block (UNPACK_EIGHTHS, CALL); of equal costs
    the smaller."""
    def cost(blocks: tuple[int, int]) -> tuple[int, int]:
        pixel_blocks, channel_blocks = -(-tiles // blocks[0]), -(-channel_pairs // blocks[1])
        unpacking = pixel_blocks * channel_pairs * pairs * UNPACK_EIGHTHS // 8
        return unpacking + tiles * channel_blocks * CALL, 3 * blocks[0] + 2 * blocks[1]

    candidates = set()
    for tile_block in range(1, min(most[0], words - 2 * pairs - 8) // (3 * pairs) + 1):
        tile_block = _evened(tiles, tile_block)
        pair_block = min(most[1] // (2 * pairs), (words - 3 * pairs * tile_block) // (8 + 2 * pairs))
        candidates.add((tile_block, _evened(channel_pairs, pair_block)))
    return min(candidates, key=cost)


def _pointwise(p: dict) -> bool:
    """Whether the kernel runs the layer as the int8 pointwise kernel when its unpacked weights fit (its test)."""
    return (p["filter_h"] == p["filter_w"] == 1 and p.get("stride_h") == p.get("stride_w") == 1 and
            p.get("pad_top") == p.get("pad_left") == 0 and p["out_w"] == p.get("in_w") and p["in_c"] % 4 == 0)


def dsp_blocking(p: dict, stack_bytes: int, narrow: bool = True) -> tuple[int, int, int]:
    """(tiles of three pixels a pixel block, channel pairs a channel block, the bytes of their arrays) of
    fg_conv2d_s4_dsp for the call's params on a board with a stack of `stack_bytes` (module docstring; 0: unknown),
    its channels all narrow or not."""
    pairs = -(-p["filter_h"] * p["filter_w"] * p["in_c"] // 8) * 4
    tiles, channel_pairs = -(-p["out_h"] * p["out_w"] // 3), -(-p["out_c"] // 2)
    words, most = (stack_bytes - STACK_RESERVE) // 4, (SMALL_INPUTS, SMALL_UNPACKED)
    if stack_bytes >= DEEP_STACK:
        most = (words, words)
    elif not stack_bytes or words >= sum(most):
        words = sum(most)
    whole = channel_pairs * (8 + 2 * pairs)
    if narrow and _pointwise(p) and 6 * pairs + whole <= words and 2 * pairs * channel_pairs <= most[1]:
        tiles, block = 2, channel_pairs  # x: the M7's four-pixel tiles' (fg_dsp_pointwise_run)
    else:
        tiles, block = _blocks(pairs, tiles, channel_pairs, max(words, 5 * pairs + 8), most)
    return tiles, block, 4 * (3 * pairs * tiles + (8 + 2 * pairs) * block)


def _all_wide(call: KernelCall, rows: np.ndarray) -> np.ndarray:
    """The fg_dsp_channel rows of a layer not all narrow with every channel wide but a constant one (multiplier 0,
    whatever its accumulator): the kernel's doubled output stages then take its weights as they are (not doubled)."""
    multipliers = np.broadcast_to(call_table(call, "multipliers").astype(np.int64), (len(rows),))
    shifts = np.broadcast_to(call_table(call, "shifts").astype(np.int64), (len(rows),))
    narrow = (rows[:, 3] != WIDE) & (rows[:, 1] != 0)
    wide = np.stack([rows[:, 0], multipliers, shifts, np.full(len(rows), WIDE)], axis=1)
    return np.where(narrow[:, None], wide, rows)


def _paired_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant, out_c: int,
                 stack_bytes: int = 0) -> KernelCall:
    """The call with `packed` the channels' fg_dsp_channel constants (dsp.channel_constants: the int8 variants'
    SMMULR output stage) then the weight words (the convolution's unpacking words after its blocks, dsp_blocking;
    FULLY_CONNECTED's fc_words); the portable packed rows and folded bias left out."""
    weights = weights_4bit(graph, op, out_c)
    constants = channel_constants(graph, op, call, weights).ravel().astype(np.int64)
    if variant.replaces == "fg_fully_connected_s4":  # first whether every channel is narrow, the chunk's passes
        narrow, chunk = constants.reshape(-1, 4)[:, 3] != WIDE, fc_chunk(weights)
        constants = np.concatenate([[int(narrow.all()), chunk // 16], constants])
        words = fc_words(weights, chunk)
        stack = 0
    else:
        narrow = constants.reshape(-1, 4)[:, 3] != WIDE
        if narrow.all():  # the kernel unpacks doubled weights for the int8 variants' doubled tiles
            constants = doubled_constants(graph, op, call, weights)[0].ravel().astype(np.int64)
        else:
            constants = _all_wide(call, constants.reshape(-1, 4)).ravel()
        tiles, block, stack = dsp_blocking(call.params, stack_bytes, bool(narrow.all()))
        constants = np.concatenate([[tiles, block], constants])
        words = unpacking_words(weights)
    words = words.view("<i4").astype(np.int64)
    table = ConstTable("dsp_packed", "int32_t", np.concatenate([constants, words]).astype(np.int32))
    dropped = {call.params["packed"].suffix, call.params["folded_bias"].suffix}
    params = {**call.params, "packed": TableRef(table.suffix), "folded_bias": "0"}
    return renamed(call, variant, params=params, tables=[*(t for t in call.tables if t.suffix not in dropped), table],
                   run_time_stack=stack)


VARIANTS = conv_and_fully_connected("dsp", REQUIRES, _paired_call, GATHER_TAPS, "4-bit weights: unpacked a block of "
                                    "channel pairs at a time into the int8 tile's int16 pairs, reused by a block of "
                                    "pixels", depth_max=FC_MAX_DEPTH, takes_isa=True,
                                    fc_description="4-bit weights of four outputs a word: SMLAD of it as it is and "
                                    "masked three ways against the row's int16 pairs, the four sums split per chunk")
