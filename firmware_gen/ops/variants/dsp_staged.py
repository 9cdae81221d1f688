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
the board's core, StagingCosts, fitted to steps run at several blocks), the arrays
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
    docs/cycle_model.md) and exact instructions on the core's board: the copy by hot.py's per-block timing, the rest
    fitted to whole steps (STAGED_COSTS)."""
    copy_per_word: float  # fg_dsp_stage_words' pass of sixteen words: two LDM + STM (9 each), CMP, taken BNE (3)
    copy_instructions_per_word: float  # the pass's six instructions
    copy_call: float  # a call of fg_dsp_stage_words besides its passes (two a block copied): entry, odd eight, return
    copy_call_instructions: float
    call: float  # a tile's further run of the tile store for one more channel block
    call_instructions: float
    blocked_tile: float  # a tile where blocked over a tile in turn (fg_dsp_tiles_in_turn), its first run counted
    blocked_tile_instructions: float
    block: float = 0.0  # a pixel block's run on one channel block: fg_dsp_block_tiles' job set up, its loops
    block_instructions: float = 0.0


# fg_dsp_stage_words on either core (vww_96_int8 step 14: 538 passes of 38 + 2 cycles, 26 calls of 13 + 2 and 10 + 2,
# 12 odd eights of 20 + 2 against 20 at 2.5 a word).
_COPY = {"copy_per_word": 40 / 16, "copy_instructions_per_word": 6 / 16, "copy_call": 27, "copy_call_instructions": 7}
# fg_conv2d_pointwise_staged_dsp and fg_conv2d_folded_staged_dsp (their loop: dsp_staged.h's fg_dsp_staged_gemm, its
# blocks fg_dsp_block_tiles) by the board's core (Isa.core; any other core: the M4's), on the published memory
# (steps.py-style ESTIMATED cycles, exact instructions). block and call: least squares over vww_96_int8's step 14 (36
# pixels, 128 -> 128, 64 input pairs: 12 tiles, 64 channel pairs) run at these (tiles, pairs) blocks ((12, 5),
# (6, 5), (6, 8), (6, 11), (4, 8), (4, 16); (1, 16) on the M4) against in place, what a step differs beyond the wait
# states and copies above, a cost a pixel block's channel block (block) and a tile's channel block (call), residuals
# within 240 cycles and 100 instructions a step. blocked_tile: step 10 (144 pixels, 64 -> 64: 48 tiles) blocked
# (8, 32) against its tiles in turn (1, 32), less its six blocks.
# - mps2_an386 (M4, fg_dsp_tile_store_relu_doubled, a call a tile): a block 213 cycles, 144 instructions; a call 83,
#   38; a blocked tile 46, 36 (step 10: 761,932 against 758,424 cycles, 475,480 against 472,880 instructions).
# - mps2_an521 (M33) on 32 or 64 input pairs (fg_dsp_tile_store_relu_doubled_64: a pixel block's tiles in one call,
#   FG_DSP_SHORT_NEXT_X; blocks of one tile excepted): a block 217, 130; a call 30, 22; a blocked tile -12, 18 (below
#   the tile in turn, whose call it saves; step 10: 733,424 against 732,679, 458,500 against 456,850). Its other
#   stores run a call a tile as the M4's: the M4's costs (not fitted on the M33).
# Checked against the whole estimate: steps 14-22 in place cost 185,893 ESTIMATED cycles a step more on mps2_an386
# (944,694 against 758,801) and 11,280 instructions fewer; these costs say 190,105 and 11,222. On mps2_an521: 67,089
# more (786,948 against 719,859), 8,600 fewer; these costs say 61,677 and 8,520 (step 10 in place: 104,077 more,
# 93,258 said). The gap is the in-place tile's: what the estimate charges its flash reads beside their wait states at
# flash_wait_per_byte (the fit's constant less blocked_tile and call: -336 cycles a tile on the M4, +446 on the M33
# at step 14, +225 at step 10), not charged here: it varies with the layer. Step 24 (9 pixels, 256 -> 128) on
# mps2_an521, which these costs keep in place: staged (3, 16) 404,514 against 393,440 in place; step 26 (256 -> 256,
# 128 pairs) 798,396 at (3, 7) and 805,154 at (3, 4) against 769,095. Every layer of vww_96_int8, person_detect,
# kws_ref_model, pretrainedResnet_quant and ad01_int8 keeps the blocks of the former costs (a call 180 and 193 cycles,
# a blocked tile 79 and 94, no block).
_CALL_A_TILE = StagingCosts(**_COPY, call=83, call_instructions=38, blocked_tile=46, blocked_tile_instructions=36,
                            block=213, block_instructions=144)
STAGED_COSTS = {"cortex-m4": _CALL_A_TILE, "cortex-m33": _CALL_A_TILE}
SHORT_STORE_PAIRS = (32, 64)  # the M33's stores that run a pixel block's tiles in one call (FG_DSP_DEEP_SHORT_STORES)
SHORT_STAGED_COSTS = {
    "cortex-m33": StagingCosts(**_COPY, call=30, call_instructions=22, blocked_tile=-12, blocked_tile_instructions=18,
                               block=217, block_instructions=130),
}
# Blocks of more than one tile at other depths but 4, 8 and 16 pairs: the general stores over a pixel block's tiles
# (fg_dsp_tile_store_doubled_tiles, _relu_doubled_tiles; FG_DSP_TILES_NEXT), fitted as above on mps2_an386 (step 14
# at (12, 5), (6, 5), (6, 8), (6, 11), (4, 8), (4, 16): residuals within 221 cycles and 38 instructions; step 10 at
# (8, 32) 759,496 cycles, 474,560 instructions against 758,422 and 472,920 at (1, 32)). The M4's only: the M33's
# general stores run a call a tile (its 32 and 64 pairs' stores all of a block's tiles, SHORT_STAGED_COSTS).
TILES_STAGED_COSTS = StagingCosts(**_COPY, call=24, call_instructions=17, blocked_tile=-12,
                                  blocked_tile_instructions=16, block=273, block_instructions=148)
# The short stores (a call a tile in any block) and 16 pairs, whose tiles in turn run in one call
# (fg_dsp_tile_store_relu_doubled_16: vww_96_int8's step 6 in turn 809,850 ESTIMATED cycles on mps2_an386, blocked
# (the costs above) 849,962).
CALL_A_TILE_PAIRS = (4, 8, 16)

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
    blocks = pixel_blocks * channel_blocks if blocked else 0
    saved = (tiles * read * wait_per_word - copies * words * (wait_per_word + costs.copy_per_word)
             - copy_calls * costs.copy_call - calls * costs.call - blocked * costs.blocked_tile - blocks * costs.block)
    extra = (copies * words * costs.copy_instructions_per_word + copy_calls * costs.copy_call_instructions
             + calls * costs.call_instructions + blocked * costs.blocked_tile_instructions
             + blocks * costs.block_instructions)
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
    short = SHORT_STAGED_COSTS.get(isa.core) if pairs in SHORT_STORE_PAIRS else None
    if short is None and pairs not in CALL_A_TILE_PAIRS and isa.core == "cortex-m4":
        short = TILES_STAGED_COSTS
    best = None
    for tile_block in range(1, tiles + 1):
        tile_block = _evened(tiles, tile_block)
        pair_block = min(channel_pairs, (words - 3 * pairs * tile_block) // (CONSTANT_WORDS + 2 * pairs))
        if pair_block < 1:
            break
        candidate = staged_blocks(tiles, channel_pairs, pairs, tile_block, _evened(channel_pairs, pair_block),
                                  wait_per_word, short if short and tile_block > 1 else costs)
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
