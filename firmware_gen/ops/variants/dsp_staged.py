"""The int8 DSP convolutions with their weights staged in RAM (runtime_c/include/fg/isa/dsp_staged.h):
fg_conv2d_pointwise_staged_dsp and fg_conv2d_folded_staged_dsp, the 3 x 2 SMLAD tile of dsp.py's POINTWISE and FOLDED
on a block of channel pairs copied to the stack, read there by a block of pixels' tiles.

In place, every tile of three pixels reads the weights of every channel pair again: from flash, each read pays the
flash's wait states again (an STM32L4R5 at 120 MHz: 5 per 8 bytes, 2.5 per int16 weight word), what made the late
1x1 layers of vww_96_int8 cost 2.15 ESTIMATED cycles per instruction on the M4. Staged, a weight word is read from
flash once per pixel block (once per call when one channel block holds every channel pair) at the cost of its copy
(fg_dsp_stage_words: two LDM + STM a pass of sixteen words, 0.375 instructions a word), and a tile calls the tile
store once per channel block instead of once.

`staging` picks the blocks by the estimate (docs/cycle_model.md's in-order timing, the board's flash as its file
states it: Isa.flash_wait_per_byte; the wait states saved against the copies and the calls added; the channels'
output stages are staged with their weights; the copies' and calls' instructions are in those cycles; the costs of
the board's core, StagingCosts, each from hot.py's per-block timing), the arrays
within the board's stack less STAGING_RESERVE. A layer that gains nothing so runs POINTWISE or
FOLDED (the specializer says None): every layer on a board whose flash has no data wait states (the QEMU boards; an
STM32L4R5 at 120 MHz has 5 per 8-byte read, 2.5 per int16 weight word).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant
from firmware_gen.ops.variants.dsp import MAX_DEPTH, REQUIRES, conv_taps, packed_call, rows_padded, tile_table

WORD_BYTES = 4


@dataclass(frozen=True)
class StagingCosts:
    """What staging adds on one core beside the wait states it saves, in ESTIMATED cycles (the in-order timing of
    docs/cycle_model.md) and exact instructions: hot.py's per-block timing on the core's board."""
    copy_per_word: float  # fg_dsp_stage_words' pass of sixteen words: two LDM + STM (9 each), CMP, taken BNE (3)
    copy_instructions_per_word: float  # the pass's six instructions
    copy_call: float  # a call of fg_dsp_stage_words besides its passes (two a block copied): entry, odd eight, return
    copy_call_instructions: float
    call: float  # a tile's further call of the tile store for one more channel block, its pair loop's exit counted
    call_instructions: float
    blocked_tile: float  # a tile's first call where blocked (its job set up each call) over the in-place tile's
    blocked_tile_instructions: float


# fg_dsp_stage_words on either core (vww_96_int8 step 14: 538 passes of 38 + 2 cycles, 26 calls of 13 + 2 and 10 + 2,
# 12 odd eights of 20 + 2 against 20 at 2.5 a word).
_COPY = {"copy_per_word": 40 / 16, "copy_instructions_per_word": 6 / 16, "copy_call": 27, "copy_call_instructions": 7}
# fg_conv2d_pointwise_staged_dsp and fg_conv2d_folded_staged_dsp (their loop: dsp_staged.h's fg_dsp_staged_gemm) by the
# board's core (Isa.core; any other core: the M4's), measured on vww_96_int8 with the published memory: step 14 (36
# pixels, 128 -> 128: 12 tiles a block, 13 channel blocks, 156 calls of fg_dsp_gemm_3_strided's tile store) against
# step 10 (staged whole: fg_dsp_tiles_in_turn, 48 tiles, one call each).
# - mps2_an386 (M4, fg_dsp_tile_store_relu_doubled): a blocked call 194 cycles, 108 instructions (its job, the store's
#   frame, the loops); a tile in turn 115, 52; a call's last pair skips the pair loop's 16-cycle, 9-instruction tail
#   for a taken branch's 2: a further call 194 - 14 = 180, 99 instructions; a blocked tile 194 - 115 = 79, 56.
# - mps2_an521 (M33, fg_dsp_tile_store_relu_doubled_64, two channel pairs a round): a blocked call 193, 108; a tile
#   in turn 99, 42; the pairs cost the same whatever the calls (874.6 cycles a pair at 13 blocks, 874.5 in place at
#   one): a further call 193, 108; a blocked tile 193 - 99 = 94, 66.
# Checked against the whole estimate (steps.py): vww_96_int8 on mps2_an521 with steps 14-22 run in place instead costs
# 43,249 ESTIMATED cycles a step more (11.581 -> 11.797 M) and 21,250 instructions fewer; these costs say 39,754 and
# 19,790 (with 2.75 cycles a copied word and 110 a call: 51,360 and 16,592). On mps2_an386 (the L4R5's flash) the same
# steps in place: 178,458 more a step (11.938 -> 12.829 M), 19,560 instructions fewer; these costs say 178,510 and
# 18,374 (the former: 188,064 and 16,592).
STAGED_COSTS = {
    "cortex-m4": StagingCosts(**_COPY, call=180, call_instructions=99, blocked_tile=79, blocked_tile_instructions=56),
    "cortex-m33": StagingCosts(**_COPY, call=193, call_instructions=108, blocked_tile=94, blocked_tile_instructions=66),
}

# fg_conv2d_3x3_band_dsp (dsp_band.py; its loop fg_dsp_band_row_tiles, the job set up once a block: no blocked tile's
# cost), measured on pretrainedResnet_quant's step 5 (16 x 16 32 -> 32: 640 calls of fg_dsp_band_store) with the
# published memory: the store's entry and exit blocks 22, 11, 11 + 2 and 1 + 2 cycles (7 instructions) on both cores,
# the tile loop's blocks a call (4 + 2, taken 512 times of 640, and 14 + 2 or 20 + 2 on mps2_an386 for 512 and 128 of
# the calls; 15 + 2 or 21 + 2 on mps2_an521): a further call 72 cycles on the M4, 73 on the M33, 23 instructions.
BAND_COSTS = {
    "cortex-m4": StagingCosts(**_COPY, call=72, call_instructions=23, blocked_tile=0, blocked_tile_instructions=0),
    "cortex-m33": StagingCosts(**_COPY, call=73, call_instructions=23, blocked_tile=0, blocked_tile_instructions=0),
}


def staging_costs(table: dict[str, StagingCosts], isa: Isa) -> StagingCosts:
    """The costs of `table` (STAGED_COSTS or a kernel's own) on `isa`'s core, the M4's for a core not measured."""
    return table.get(isa.core, table["cortex-m4"])


# A channel pair's two fg_dsp_channel (staged with its weights), of which each tile's two bias loads are placed in
# flash by the estimate (the rest are loaded through a pointer read in the same block: placed in RAM).
CONSTANT_WORDS, BIAS_WORDS = 8, 2
STAGING_RESERVE = 4096  # stack bytes left to everything else: the kernels' fixed arrays, the calls, an exception


@dataclass(frozen=True)
class Staging:
    tiles: int  # tiles of three pixels a pixel block
    block: int  # channel pairs a staged block
    saved: float  # ESTIMATED cycles saved against the weights in place
    extra_instructions: float
    stack: int  # bytes of the two arrays


def _evened(total: int, most: int) -> int:
    """The block that takes `total` in as few blocks of at most `most` as possible, each as small as it can be."""
    return -(-total // -(-total // most))


def staged_blocks(tiles: int, channel_pairs: int, pairs: int, tile_block: int, pair_block: int,
                  wait_per_word: float, costs: StagingCosts, blocked_tiles: bool = True) -> Staging:
    """The staging of `tiles` tiles a block of `tile_block` tiles and `pair_block` channel pairs (of `pairs` input
    pairs each) against the weights read in place, `wait_per_word` wait states per word read from flash, at `costs`.
    blocked_tiles: the kernel's tiles pay costs.blocked_tile where it runs blocks (more than one tile a block or more
    than one channel block)."""
    words = channel_pairs * (CONSTANT_WORDS + 2 * pairs)  # staged: a channel pair's output stages and weights
    read = channel_pairs * (BIAS_WORDS + 2 * pairs)  # in place, each tile's reads that the estimate places in flash
    pixel_blocks, channel_blocks = -(-tiles // tile_block), -(-channel_pairs // pair_block)
    copies = 1 if channel_blocks == 1 else pixel_blocks  # one block stays staged from one pixel block to the next
    copy_calls = 2 * copies * channel_blocks  # fg_dsp_stage_words: the block's output stages, then its weights
    calls = tiles * (channel_blocks - 1)
    blocked = tiles if blocked_tiles and (channel_blocks > 1 or tile_block > 1) else 0
    saved = (tiles * read * wait_per_word - copies * words * (wait_per_word + costs.copy_per_word)
             - copy_calls * costs.copy_call - calls * costs.call - blocked * costs.blocked_tile)
    extra = (copies * words * costs.copy_instructions_per_word + copy_calls * costs.copy_call_instructions
             + calls * costs.call_instructions + blocked * costs.blocked_tile_instructions)
    stack = 4 * (3 * pairs * tile_block + (CONSTANT_WORDS + 2 * pairs) * pair_block)
    return Staging(tile_block, pair_block, saved, extra, stack)


def staging(pixels: int, out_c: int, depth: int, isa: Isa) -> Staging | None:
    """The blocks of the staged kernel for a layer of `pixels` output pixels, `out_c` channels and windows of `depth`
    taps (the kernel's, padded) on a board of `isa`'s stack and flash wait states: the most ESTIMATED cycles saved
    within the stack (module docstring); None when no blocking
    gains."""
    pairs, tiles, channel_pairs = -(-depth // 8) * 4, -(-pixels // 3), -(-out_c // 2)
    words = (isa.stack_bytes - STAGING_RESERVE) // 4
    wait_per_word, costs = WORD_BYTES * isa.flash_wait_per_byte, staging_costs(STAGED_COSTS, isa)
    best = None
    for tile_block in range(1, tiles + 1):
        tile_block = _evened(tiles, tile_block)
        pair_block = min(channel_pairs, (words - 3 * pairs * tile_block) // (CONSTANT_WORDS + 2 * pairs))
        if pair_block < 1:
            break
        candidate = staged_blocks(tiles, channel_pairs, pairs, tile_block, _evened(channel_pairs, pair_block),
                                  wait_per_word, costs)
        if candidate.saved > 0 and (best is None or candidate.saved > best.saved):
            best = candidate
    return best


def _tiled_staged(variant_name: str):
    """The specializer of a staged variant: the plain variant's table after the blocks, when staging pays."""
    def specialize(graph: Graph, op: Operator, call: KernelCall, isa: Isa) -> KernelCall | None:
        padded = rows_padded(np.asarray(graph.tensors[op.inputs[1]].data, dtype=np.int8))
        if padded.shape[1] > MAX_DEPTH:
            return None
        p = call.params
        chosen = staging(p["batches"] * p["out_h"] * p["out_w"], p["out_c"], padded.shape[1], isa)
        if chosen is None:
            return None
        constants, words = tile_table(graph, op, call, conv_taps(graph, op), padded)
        header = np.array([chosen.tiles, chosen.block], np.int32)
        staged = packed_call(call, globals()[variant_name], np.concatenate([header, constants.ravel()]), words,
                             [op.inputs[0], -1])
        return replace(staged, run_time_stack=chosen.stack)
    return specialize


POINTWISE_STAGED = Variant("fg_conv2d_pointwise_staged_dsp", "fg_conv2d_pointwise_s8", REQUIRES,
                           _tiled_staged("POINTWISE_STAGED"), "3 pixels x 2 channels per SMLAD tile on weights staged "
                           "in RAM a block of channel pairs at a time (flash read once per block of pixels), SMMULR "
                           "output stage", precedence=1, takes_isa=True)
FOLDED_STAGED = Variant("fg_conv2d_folded_staged_dsp", "fg_conv2d_folded_s8", REQUIRES, _tiled_staged("FOLDED_STAGED"),
                        "im2col of 3 pixels, then the 3 x 2 SMLAD tile on weights staged in RAM a block of channel "
                        "pairs at a time; SMMULR output stage", precedence=1, takes_isa=True)

VARIANTS = [POINTWISE_STAGED, FOLDED_STAGED]
