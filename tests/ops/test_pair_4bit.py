"""The generation-time layouts of the Armv7-M and DSP 4-bit variants, emulated in numpy as their kernels read them:
the channel-pair bytes (pair_4bit.pack_channel_pairs) give both channels' sums exactly, the Armv7-M tap words give
them through one 64-bit SMLAL per pair of channels, the DSP words unpack (AND, SSUB16) into the int8 variants' int16
pairs, and the DSP FULLY_CONNECTED words give four outputs' sums. Odd channel counts, depths off a multiple of 8,
the extreme weights and inputs. The DSP convolution's blocks: within the small-stack bound below a 16 KB stack, deeper
on one."""

from __future__ import annotations

import numpy as np
import pytest

from firmware_gen.ops.variants.armv7m_4bit import pair_words
from firmware_gen.ops.variants.dsp import interleaved_pairs
from firmware_gen.ops.variants.dsp_4bit import (
    FC_SAFE_CHUNK,
    SMALL_INPUTS,
    SMALL_UNPACKED,
    STACK_RESERVE,
    dsp_blocking,
    fc_chunk,
    fc_words,
    unpacking_words,
)
from firmware_gen.ops.variants.pair_4bit import pack_channel_pairs

SHAPES = [(1, 1), (2, 7), (5, 9), (8, 16), (13, 33), (16, 144)]


def _weights(shape: tuple[int, int], seed: int) -> np.ndarray:
    weights = np.random.default_rng(seed).integers(-8, 8, shape).astype(np.int8)
    weights.flat[0], weights.flat[-1] = -8, 7
    return weights


def _inputs(depth: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed + 100).integers(-128, 128, depth)
    x[0] = -128
    return x


@pytest.mark.parametrize("shape", SHAPES)
def test_channel_pair_bytes_give_both_channels_sums(shape):
    weights = _weights(shape, 1)
    pairs = pack_channel_pairs(weights)
    assert pairs.dtype == np.int8 and pairs.shape == (-(-shape[0] // 2), shape[1])
    padded = np.zeros((pairs.shape[0] * 2, shape[1]), np.int64)
    padded[:shape[0]] = weights
    x = _inputs(shape[1], 1)
    s_b = pairs.astype(np.int64) @ x
    s_u = (pairs.astype(np.int64) & 0x0F) @ x
    assert np.array_equal((s_b - s_u) >> 4, padded[0::2] @ x)
    assert np.array_equal(s_u - 8 * x.sum(), padded[1::2] @ x)


def _rotated_masked(word: np.ndarray, turn: int) -> np.ndarray:
    word = word.astype(np.uint64)
    rotated = ((word >> turn) | (word << (32 - turn))) & 0xFFFFFFFF if turn else word
    masked = (rotated & 0xF000000F).astype(np.int64)
    return np.where(masked >= 1 << 31, masked - (1 << 32), masked)


@pytest.mark.parametrize("shape", SHAPES)
def test_armv7m_tap_words_give_eight_channels_per_four_smlal(shape):
    """fg_s4_sums: word rotated right by 8k + 8 and masked with 0xF000000F, times the input, into a 64-bit sum whose
    top (from bit 28) is channel 2k's sum and whose low 28 bits, sign-extended, channel (2k + 3) mod 8's plus 8 X."""
    weights = _weights(shape, 2)
    channels, taps = shape
    words = pair_words(weights).reshape(-1, taps)
    assert words.size * 4 == -(-channels // 8) * 8 * taps // 2  # half a byte per weight, groups of eight channels
    padded = np.zeros((words.shape[0] * 8, taps), np.int64)
    padded[:channels] = weights
    x = _inputs(taps, 2)
    for group, row in enumerate(words):
        for k in range(4):
            total = int(_rotated_masked(row, (8 * k + 8) % 32) @ x)
            low = ((total & 0x0FFFFFFF) ^ 0x08000000) - 0x08000000
            assert (total - low) >> 28 == padded[8 * group + 2 * k] @ x
            assert low - 8 * x.sum() == padded[8 * group + (2 * k + 3) % 8] @ x


@pytest.mark.parametrize("shape", SHAPES)
def test_dsp_words_unpack_into_the_int8_variants_int16_pairs(shape):
    """fg_s4_unpack_dsp: word shifted by 4k, masked with 0x000F000F, SSUB16 of 8 = the int8 layout's word k."""
    weights = _weights(shape, 3)
    words = unpacking_words(weights).astype(np.uint64)
    lanes = np.stack([(words >> (4 * k)) & 0x000F000F for k in range(4)], axis=1).reshape(-1)
    low, high = (lanes & 0xFFFF).astype(np.int64) - 8, (lanes >> 16).astype(np.int64) - 8
    unpacked = ((low & 0xFFFF) | ((high & 0xFFFF) << 16)).astype(np.uint32).view(np.int32)
    assert np.array_equal(unpacked, interleaved_pairs(weights))
    assert words.size * 4 == -(-shape[0] // 2) * 2 * -(-shape[1] // 8) * 8 // 2


@pytest.mark.parametrize("shape", [*SHAPES, (6, 1000), (8, 2048)])
@pytest.mark.parametrize("extreme", [False, True])
def test_dsp_fully_connected_words_give_four_outputs_sums_per_word(shape, extreme):
    """fg_s4_fc_sums: per chunk of depths, group of four outputs and 8 depths, the words of input pairs (x0, x2),
    (x1, x3), (x4, x6), (x5, x7); SMLAD of each as it is (R), BIC 0xF000F000 (A), AND 0x00FF00FF (B), AND 0x000F000F
    (C) split (fg_s4_fc_split) into the four outputs' sums, less 8 X for outputs 0..2 (their weights + 8), R - A
    within int32 whatever the inputs; the weights -8 and 7 only (extreme): 2048 depths in chunks of 496."""
    weights = _weights(shape, 4)
    if extreme:
        weights = np.where(weights < 0, -8, 7).astype(np.int8)
    outputs, depth = shape
    chunk = fc_chunk(weights)
    padded = -(-depth // 16) * 16
    assert chunk == padded or padded > FC_SAFE_CHUNK and chunk == FC_SAFE_CHUNK
    words = fc_words(weights, chunk).astype(np.uint64)
    groups = -(-outputs // 4)
    assert words.size * 4 == groups * 4 * padded // 2
    x = np.zeros(padded, np.int64)
    x[:depth] = _inputs(depth, 4)
    sums = np.zeros((groups, 4), np.int64)
    for start in range(0, padded, chunk):
        size = min(chunk, padded - start)
        block = words[start * groups // 2:(start + size) * groups // 2].reshape(groups, size // 8, 4)
        pairs = x[start:start + size].reshape(-1, 2, 2, 2).transpose(0, 1, 3, 2).reshape(-1, 4, 2)  # [8s, j, lane]
        views = [block, block & ~np.uint64(0xF000F000), block & np.uint64(0x00FF00FF), block & np.uint64(0x000F000F)]
        r, a, b, c = ((_halves(v) * pairs).sum(axis=(1, 2, 3)) for v in views)
        sums += np.stack([c, (b - c) >> 4, (a - b) >> 8, (r - a) >> 12], axis=1)
        top = np.abs(_halves(block) >> 12).sum(axis=(1, 2, 3))  # the sum of |w3| (top nibbles, signed)
        assert np.all(top * 128 * 4096 < 1 << 31)  # 4096 S3 within int32 whatever the inputs
    expected = weights.astype(np.int64) @ x[:depth] + np.where(np.arange(outputs) % 4 < 3, 8 * x.sum(), 0)
    assert np.array_equal(sums.ravel()[:outputs], expected)


def _halves(words: np.ndarray) -> np.ndarray:
    """uint32 words [..., pair] -> their halfwords as SMLAD reads them (signed) [..., pair, lane]."""
    halves = np.stack([words & np.uint64(0xFFFF), words >> np.uint64(16)], axis=-1).astype(np.int64)
    return np.where(halves >= 1 << 15, halves - (1 << 16), halves)


def test_dsp_fully_connected_rows_split_in_one_chunk_where_their_weights_allow():
    """A 640-deep row of weights spread over [-8, 7] (sum of |w| about 2560 a row) in one chunk; of -8 and 7 only
    (about 4800) in chunks of 496 depths."""
    spread = np.random.default_rng(5).integers(-8, 8, (8, 640))
    assert fc_chunk(spread) == 640
    assert fc_chunk(np.where(spread < 0, -8, 7)) == FC_SAFE_CHUNK


def _conv(in_c: int, out_c: int, window: int, side: int = 8) -> dict:
    return {"filter_h": window, "filter_w": window, "in_c": in_c, "out_c": out_c, "out_h": side, "out_w": side}


@pytest.mark.parametrize("params", [_conv(256, 32, 1), _conv(32, 32, 3), _conv(64, 64, 3), _conv(3, 5, 3, 30),
                                    _conv(128, 64, 1), _conv(1, 1, 1, 1)])
def test_dsp_conv_blocks_grow_only_on_a_16k_stack(params):
    """4 KB, 8 KB and an unknown stack (0): the pixel block's input pairs within SMALL_INPUTS words and the unpacked
    channel pairs within SMALL_UNPACKED, and within the stack less STACK_RESERVE where a tile and a pair fit it; 16 KB:
    as few pixel blocks as the stack less STACK_RESERVE takes. Every block evened out."""
    pairs = -(-params["filter_h"] ** 2 * params["in_c"] // 8) * 4
    tiles, channel_pairs = -(-params["out_h"] * params["out_w"] // 3), -(-params["out_c"] // 2)
    for stack in (0, 4096, 8192, 16384):
        tile_block, pair_block, stack_bytes = dsp_blocking(params, stack)
        assert stack_bytes == 4 * (3 * pairs * tile_block + (8 + 2 * pairs) * pair_block)
        assert tile_block == -(-tiles // -(-tiles // tile_block)) and pair_block <= channel_pairs
        if stack < 16384:
            assert 3 * pairs * tile_block <= SMALL_INPUTS and 2 * pairs * pair_block <= SMALL_UNPACKED
        if stack and 20 * pairs <= stack - STACK_RESERVE:
            assert stack_bytes <= stack - STACK_RESERVE
    small, deep = dsp_blocking(params, 8192), dsp_blocking(params, 16384)
    assert -(-tiles // deep[0]) <= -(-tiles // small[0])


def test_the_deep_layers_of_the_sweep_take_fewer_pixel_blocks_on_a_16k_stack():
    """bench/int4_shapes.py's 1x1 256->32 and 3x3 32->32 on 8x8 pixels (22 tiles): 3 and 4 pixel blocks on a 16 KB
    stack, where the small bound takes 6 and 8."""
    assert dsp_blocking(_conv(256, 32, 1), 0)[:2] == (4, 2) and dsp_blocking(_conv(256, 32, 1), 16384)[:2] == (8, 2)
    assert dsp_blocking(_conv(32, 32, 3), 0)[:2] == (3, 2) and dsp_blocking(_conv(32, 32, 3), 16384)[:2] == (6, 4)


def test_a_pointwise_layer_whose_weights_fit_unpacks_them_whole():
    """1x1 32->64 (8x8 pixels, stride 1, no padding): every channel pair in one block (the kernel then runs the int8
    pointwise kernel on them) and two tiles of input pairs (the M7's four pixels), only where every channel is
    narrow and the unpacked weights fit the small bound or a 16 KB stack."""
    params = {**_conv(32, 64, 1), "stride_h": 1, "stride_w": 1, "pad_top": 0, "pad_left": 0, "in_w": 8}
    assert dsp_blocking(params, 16384) == (2, 32, 4 * (6 * 16 + 32 * (8 + 32)))
    assert dsp_blocking(params, 16384, narrow=False)[1] < 32 or dsp_blocking(params, 16384, narrow=False)[0] > 2
    assert dsp_blocking(params, 8192)[1] < 32 and dsp_blocking({**params, "stride_h": 2}, 16384)[0] != 2
