"""The 3x3 stride-1 DSP convolution by Winograd's F(2x2, 3x3) in integers
(runtime_c/kernels/convolution/conv2d_3x3_winograd_dsp.c): each 2x2 output tile is A^T [U' . (B^T d B)] A with
U' = G' g G'^T, G' = 2 G, four times the direct correlation exactly (Lavin & Gray's matrices; the kernel shifts the
factor out, nothing is rounded). 16 multiplies per input and output channel a tile instead of 36: 2.25 times fewer
SMLADs than the band (dsp_band.py), for the transforms of every tile's 4x4 input window and 2x2 outputs.

U' is computed here and laid out for the kernel's 3 tiles x 2 channels SMLAD tile: per output channel pair, per
position p of the 4x4 transformed tile, per input pair (fg/isa/dsp.h's SXTB16 order), channel A's int16 pair then
B's (interleaved_pairs on the [channels, position x depth] array). The raw int8 input is transformed (the zero point
in the padding), so the channel constants are the band's: the folded bias, doubled with the narrow channels.

Each block of three tiles reads all of U' (16/9 of the band's table): where the flash has data wait states, the
channel constants and as many channel pairs' U' as the stack holds beside the kernel's arrays are staged once a call
(staged_pairs, dsp_staged.py's copy cost), the rest read in place.

The variant is offered over the band where its ESTIMATED cycles (winograd_cycles, against band_cycles; the in-order
timing of docs/cycle_model.md, fitted on pretrainedResnet_quant's layers) are fewer, and is wide (Variant.wide):
ops/variant_choice.py puts the band back where the board's flash is short. On the M7 (where the band is not
offered: the im2col tile runs these layers) the products of 8, 16 and 32 input pairs take fg/isa/dsp.h's M7 order
(FG_DSP_TILE_PASS_M7). Odd out_h or out_w: the last tile row or column computes two outputs and stores one (the
estimate counts its whole tiles).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant
from firmware_gen.ops.variants.dsp import REQUIRES, conv_taps, doubled_constants, interleaved_pairs, packed_call
from firmware_gen.ops.variants.dsp_staged import STAGED_COSTS, STAGING_RESERVE, WORD_BYTES, staging_costs

# Lavin & Gray's F(2x2, 3x3) for correlation, G doubled to integers.
INPUT_TRANSFORM = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.int64)  # B^T
FILTER_TRANSFORM = np.array([[2, 0, 0], [1, 1, 1], [1, -1, 1], [0, 0, 2]], np.int64)  # G' = 2 G
OUTPUT_TRANSFORM = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.int64)  # A^T
SCALE = 4  # A^T [U' . V] A over the direct correlation: G' = 2 G on both sides

TILES = 3  # FG_WINO_TILES: tiles a block, the SMLAD tile's pixels
POSITIONS = 16
# Every sum of the kernel within int32: a position's |V U'| <= 512 * 1152 per input channel, A^T M A adds up to 9
# (a bound: tests/ops/test_dsp_winograd.py finds A^T M A's sums never above one position's). The variant is offered
# up to in_c 64 today: it replaces fg_conv2d_folded_s8, whose windows hold at most 576 taps.
MAX_IN_C = 256
# ESTIMATED cycles (docs/cycle_model.md's in-order timing, the M4's rules on the M33 too), from hot.py's blocks of
# pretrainedResnet_quant's steps 1, 5 and 9 on mps2_an521 (in_c 16, 32, 64): an input pair of a position's 3 x 2
# SMLAD tile (13 instructions), a position's stores, loop and call; a tile's 4x4 window besides its channels and per
# four input channels; a tile's four outputs per output channel (its block's loops counted in); the band's cycles
# per MAC (pretrainedResnet_quant's four layers on the published memories: 1.13 on the M33, 1.14-1.19 on the M4).
PAIR_CYCLES = 13.0
POSITION_CYCLES = 15.0
INPUT_TILE_CYCLES = 130.0
INPUT_QUAD_CYCLES = 390.0
OUTPUT_CHANNEL_CYCLES = 120.0
BAND_CYCLES_PER_MAC = 1.13


def filter_transform(weights: np.ndarray) -> np.ndarray:
    """[out_c, 3, 3, in_c] int8 -> U' = G' g G'^T as [out_c, 16, in_c] int64 (position p = 4 i + j)."""
    transformed = np.einsum("ia,oabc,jb->oijc", FILTER_TRANSFORM, weights.astype(np.int64), FILTER_TRANSFORM)
    return transformed.reshape(weights.shape[0], POSITIONS, weights.shape[3])


def input_transform(window: np.ndarray) -> np.ndarray:
    """[..., 4, 4, c] -> B^T d B over the two window axes."""
    return np.einsum("ia,...abc,jb->...ijc", INPUT_TRANSFORM, window.astype(np.int64), INPUT_TRANSFORM)


def output_transform(products: np.ndarray) -> np.ndarray:
    """[..., 4, 4, c] -> A^T M A: [..., 2, 2, c], SCALE times the direct correlation."""
    return np.einsum("ia,...abc,jb->...ijc", OUTPUT_TRANSFORM, products, OUTPUT_TRANSFORM)


def winograd_fits(p: dict, isa: Isa) -> bool:
    """The kernel's geometry: 3x3, stride and dilation 1, out_c even, in_c a multiple of 8 (the products' rounds of
    four input pairs) up to MAX_IN_C; at least two tiles a row, out_w >= 3 (a block of three tiles then spans two tile
    rows at most: the kernel holds two rows' lower outputs); its arrays within the board's stack."""
    return ((p["filter_h"], p["filter_w"], p["stride_h"], p["stride_w"], p["dilation_h"], p["dilation_w"])
            == (3, 3, 1, 1, 1, 1) and p["out_w"] >= 3 and p["out_c"] % 2 == 0 and p["in_c"] % 8 == 0
            and p["in_c"] <= MAX_IN_C
            and 0 < winograd_stack(p) <= isa.stack_bytes - STAGING_RESERVE)


def winograd_stack(p: dict) -> int:
    """Bytes of the kernel's arrays: the block's transformed inputs (V), its products (M), the zero pixel, the two
    held rows of lower outputs (a tile row's: an odd out_w's one pixel longer) and an odd out_w's two scratch pairs."""
    held = 2 * 2 * tiles_wide(p) * p["out_c"] + (4 * p["out_c"] if p["out_w"] % 2 else 0)
    sizes = [4 * POSITIONS * TILES * p["in_c"] // 2, 4 * TILES * 2 * POSITIONS, p["in_c"], held]
    return sum(-(-size // 8) * 8 for size in sizes)  # gcc rounds each allocation up to the stack's 8 bytes


def tiles_wide(p: dict) -> int:
    """Tiles a tile row (an odd out_w's last of one output column)."""
    return -(-p["out_w"] // 2)


def tile_count(p: dict) -> int:
    """Tiles an image (an odd out_h's last tile row of one output row)."""
    return -(-p["out_h"] // 2) * tiles_wide(p)


def table_words(p: dict) -> int:
    """Words of the channel constants and U' (what the kernel stages)."""
    return 4 * p["out_c"] + POSITIONS * p["in_c"] * p["out_c"] // 2


def tile_blocks(p: dict) -> int:
    """The blocks of TILES tiles of the call: each reads all of U'."""
    return p["batches"] * -(-tile_count(p) // TILES)


def pair_words(p: dict) -> int:
    """Words of U' of one output channel pair."""
    return POSITIONS * p["in_c"]


def staged_pairs(p: dict, isa: Isa) -> int:
    """The output channel pairs whose U' is staged on the stack once a call with the channel constants (dsp_staged.py's
    copy cost): where the flash has data wait states, as many as fit beside the kernel's arrays, 0 where the wait
    states of their reads after the first do not outweigh the copy."""
    room = isa.stack_bytes - STAGING_RESERVE - winograd_stack(p) - WORD_BYTES * 4 * p["out_c"]
    count = max(0, min(p["out_c"] // 2, room // (WORD_BYTES * pair_words(p))))
    words = 4 * p["out_c"] + count * pair_words(p)
    waits = (tile_blocks(p) - 1) * words * WORD_BYTES * isa.flash_wait_per_byte
    return count if count and waits > words * staging_costs(STAGED_COSTS, isa).copy_per_word else 0


def winograd_cycles(p: dict, isa: Isa) -> float:
    """ESTIMATED cycles of the kernel on the layer: the positions' SMLAD tiles, the flash's wait states of U' (read
    once a block, or once to stage it), the input and output transforms."""
    tiles = tile_count(p)
    in_pairs, out_pairs = p["in_c"] // 2, p["out_c"] // 2
    products = tile_blocks(p) * out_pairs * POSITIONS * (in_pairs * PAIR_CYCLES + POSITION_CYCLES)
    staged_words = pair_words(p) * staged_pairs(p, isa)
    waits = (staged_words + tile_blocks(p) * (table_words(p) - staged_words)) * WORD_BYTES * isa.flash_wait_per_byte
    transforms = p["batches"] * tiles * (INPUT_TILE_CYCLES + p["in_c"] // 4 * INPUT_QUAD_CYCLES
                                         + p["out_c"] * OUTPUT_CHANNEL_CYCLES)
    return products + waits + transforms


def band_cycles(p: dict) -> float:
    """ESTIMATED cycles of the band kernel on the layer (its staged table: few wait states)."""
    return BAND_CYCLES_PER_MAC * p["batches"] * p["out_h"] * p["out_w"] * 9 * p["in_c"] * p["out_c"]


def winograd_words(weights: np.ndarray) -> np.ndarray:
    """U' of the [out_c, 3, 3, in_c] filter in the kernel's order, as int32 words of int16 pairs."""
    transformed = filter_transform(weights)
    return interleaved_pairs(transformed.reshape(len(weights), -1).astype(np.int16))


def _winograd(graph: Graph, op: Operator, call: KernelCall, isa: Isa) -> KernelCall | None:
    p = call.params
    if not winograd_fits(p, isa) or winograd_cycles(p, isa) >= band_cycles(p):
        return None
    weights = np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8)
    constants, _ = doubled_constants(graph, op, call, conv_taps(graph, op))
    staged = staged_pairs(p, isa)
    header = np.array([staged], np.int32)
    table = packed_call(call, WINOGRAD, np.concatenate([header, constants.ravel()]), winograd_words(weights),
                        [op.inputs[0], -1])
    staged_bytes = WORD_BYTES * (4 * p["out_c"] + staged * pair_words(p)) if staged else 0
    return replace(table, run_time_stack=winograd_stack(p) + staged_bytes)


WINOGRAD = Variant("fg_conv2d_3x3_winograd_dsp", "fg_conv2d_folded_s8", REQUIRES, _winograd,
                   "Winograd F(2x2, 3x3) in integers: 2x2 output tiles, 16 SMLAD products of int16 pairs per input and "
                   "output channel instead of 36 (the 3 x 2 tile over 3 tiles x 2 channels per position), exact; "
                   "SMMULR output stage", precedence=3, takes_isa=True, wide=True)

VARIANTS = [WINOGRAD]
